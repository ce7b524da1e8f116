import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP relay in front of a server (PostgreSQL, Redis) that a test cuts and restores, as a network
 * partition or a failover would: "refuse" closes the port (ECONNREFUSED), "blackhole" accepts
 * connections and never answers (only the pool's connect timeout ends the wait). `freeze()`
 * is a SIGSTOPped server: open connections stay open and nothing on them is answered, new ones
 * are accepted and left waiting; `thaw()` lets everything flow again, as SIGCONT would.
 */
export class TcpRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private readonly waiting = new Set<Socket>();
  port = 0;
  mode: "forward" | "blackhole" | "frozen" = "forward";

  private readonly target: { host: string; port: number };

  /** `target`: the server's URL (`postgres://…`, `redis://…`); its port, or `defaultPort`. */
  constructor(target: string, defaultPort: number) {
    const u = new URL(target);
    this.target = { host: u.hostname, port: Number(u.port || defaultPort) };
  }

  /** `url` with its host and port replaced by the relay's. */
  through(url: string): string {
    const u = new URL(url);
    u.host = `127.0.0.1:${this.port}`;
    return u.toString();
  }

  private forward(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    this.sockets.add(upstream);
    const pair = { client, upstream };
    this.pairs.add(pair);
    upstream.on("close", () => {
      this.sockets.delete(upstream);
      this.pairs.delete(pair);
      client.destroy();
    });
    client.on("close", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  }

  async start(): Promise<void> {
    this.server = createServer((client) => {
      this.sockets.add(client);
      client.on("close", () => {
        this.sockets.delete(client);
        this.waiting.delete(client);
      });
      client.on("error", () => {});
      if (this.mode === "blackhole") return;
      if (this.mode === "frozen") {
        this.waiting.add(client);
        return;
      }
      this.forward(client);
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, "127.0.0.1", resolve));
    const address = this.server.address();
    if (typeof address === "object" && address) this.port = address.port;
  }

  /** Every open connection dies; with "refuse", new ones are refused too. */
  async cut(mode: "refuse" | "blackhole"): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (mode === "blackhole") {
      this.mode = "blackhole";
      return;
    }
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** Nothing is answered any more; no connection is closed. */
  freeze(): void {
    this.mode = "frozen";
    for (const { client, upstream } of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /**
   * Everything held flows again, on the same connections. Only once per freeze: piping a pair a
   * second time would send every byte twice (PostgreSQL then answers each statement twice).
   */
  thaw(): void {
    if (this.mode !== "frozen") return;
    this.mode = "forward";
    for (const { client, upstream } of this.pairs) {
      client.pipe(upstream).pipe(client);
      client.resume();
      upstream.resume();
    }
    for (const client of this.waiting) this.forward(client);
    this.waiting.clear();
  }

  async restore(): Promise<void> {
    this.mode = "forward";
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (!this.server) await this.start();
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
