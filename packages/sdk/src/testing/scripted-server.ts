import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createClient, type ClientOptions, type PostureClient } from "../index";

export type TSeen = { method: string; url: string; headers: IncomingHttpHeaders; body: string; at: number };
export type THandler = (req: TSeen, res: ServerResponse) => void;

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/**
 * A local HTTP server for a test file: it answers from a script of handlers (then `fallback`) and
 * records what it was sent. Started in beforeAll, reset before each test, closed in afterAll.
 */
export function useScriptedServer() {
  const state = {
    seen: [] as TSeen[],
    script: [] as THandler[],
    fallback: ((_req, res) => json(res, 200, {})) as THandler,
    baseUrl: "",
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      state.seen.push(r);
      (state.script.shift() ?? state.fallback)(r, res);
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    state.seen.length = 0;
    state.script = [];
    state.fallback = (_req, res) => json(res, 200, {});
  });
  return {
    state,
    /** A client of this server, with a short back-off so retry tests stay fast. */
    client: (o: Partial<ClientOptions> = {}): PostureClient =>
      createClient({ baseUrl: state.baseUrl, apiKey: "svc_ak_test", retryBaseDelayMs: 5, ...o }),
  };
}
