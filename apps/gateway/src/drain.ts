import type { Server } from "node:http";
import { Server as NetServer, type Socket } from "node:net";

type TConnection = { inFlight: number };

/** How long a closed idle connection's client has to close its side before the socket is destroyed. */
const HALF_CLOSED_MS = 1_000;

export type TConnectionDrain = {
  /**
   * Stops accepting; from now on every response carries `Connection: close`, and the connection
   * closes once it is sent. Resolves when every connection has closed.
   */
  drain: () => Promise<void>;
  /** Closes the connections with no request in flight: the grace is ending. */
  closeIdle: () => void;
};

/**
 * Graceful drain for keep-alive clients. A connection idle when the drain begins is one its
 * client may reuse at any moment: closing it then races the client's next request, which is
 * reset instead of answered (Node's own `server.close()` closes idle connections at once; an
 * idle close after 250 ms reset requests sent at 250 ms). So a drained connection is closed by
 * the server only after it has answered a request with `Connection: close`, when its client
 * closes it, or by `closeIdle()` when the shutdown's grace is ending.
 */
export function trackConnections(server: Server): TConnectionDrain {
  const connections = new Map<Socket, TConnection>();
  let draining = false;
  let idleClosed = false;
  const endSocket = (socket: Socket) => {
    socket.end();
    setTimeout(() => socket.destroy(), HALF_CLOSED_MS).unref();
  };

  server.on("connection", (socket: Socket) => {
    connections.set(socket, { inFlight: 0 });
    socket.on("close", () => connections.delete(socket));
  });
  // Runs before the app's own listener. The header is decided when the response's head is
  // written (every response goes through writeHead), so a request that began before the drain
  // and is answered during it (a sync) also tells its client to close.
  server.prependListener("request", (req, res) => {
    const c = connections.get(req.socket);
    if (c) c.inFlight += 1;
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
    res.writeHead = ((...args: unknown[]) => {
      if (draining && !res.headersSent) res.setHeader("Connection", "close");
      return writeHead(...args);
    }) as typeof res.writeHead;
    res.on("close", () => {
      if (!c) return;
      c.inFlight -= 1;
      // Its head went out before the drain (a long download): nothing told the client to close.
      if (idleClosed && c.inFlight === 0) endSocket(req.socket);
    });
  });

  const drain = () =>
    new Promise<void>((resolve) => {
      draining = true;
      // net.Server's close: stop listening and wait for the connections, without http.Server's
      // immediate idle sweep.
      NetServer.prototype.close.call(server, () => resolve());
    });

  const closeIdle = () => {
    idleClosed = true;
    for (const [socket, c] of connections) if (c.inFlight === 0) endSocket(socket);
  };

  return { drain, closeIdle };
}
