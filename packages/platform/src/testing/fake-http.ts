import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// The one fake HTTP server for tests: a real server on 127.0.0.1 and an OS-assigned port, a log of
// every request, and fault injection. The fakes of third-party APIs (Google, Microsoft Graph, the
// issue trackers) and webhook receivers are handlers on top of it, so clients are exercised over
// real sockets exactly as in production.

export type TFakeHttpRequest = {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Path and query string, as the client sent them. */
  url: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The raw body text ("" when there was none). */
  body: string;
  /** The body parsed as JSON, or undefined when there was none or it was not JSON. */
  json: unknown;
};

/** `body` is sent as JSON; `text` as is. */
export type TFakeHttpResponse = {
  status: number;
  body?: unknown;
  text?: string;
  headers?: Record<string, string>;
};

/**
 * What matching requests get instead of the handler's answer: a status (with an optional
 * Retry-After and body), or no answer at all until the fake is closed. A fault applies to the next
 * `count` requests (default 1) whose path starts with `pathPrefix` (default: every path).
 */
export type TFakeHttpFault = (
  { status: number; body?: unknown; retryAfter?: number | string } | { hang: true }
) & {
  count?: number;
  pathPrefix?: string;
};

export type TFakeHttpContext = {
  /** e.g. http://127.0.0.1:54321 (no trailing slash). */
  baseUrl: string;
  /** 0 for the first request this fake received. */
  index: number;
  /** The raw response, for what a response object cannot say (a Location header before a 302…). */
  res: ServerResponse;
};

export type TFakeHttpHandler = (
  req: TFakeHttpRequest,
  ctx: TFakeHttpContext,
) => TFakeHttpResponse | "hang" | Promise<TFakeHttpResponse | "hang">;

export type TFakeHttp = {
  /** Base address, e.g. http://127.0.0.1:54321 (no trailing slash). */
  url: string;
  port: number;
  /** Every request received, faulted ones included, oldest first. */
  requests: TFakeHttpRequest[];
  /** Queues a fault; faults apply in the order they were queued. */
  fail: (fault: TFakeHttpFault) => void;
  /** Closes the server, dropping open (and hanging) connections. */
  close: () => Promise<void>;
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, response: TFakeHttpResponse): void {
  const headers: Record<string, string> = { ...response.headers };
  if (response.body !== undefined) headers["content-type"] ??= "application/json; charset=utf-8";
  res.writeHead(response.status, headers);
  res.end(response.body !== undefined ? JSON.stringify(response.body) : (response.text ?? ""));
}

export async function startFakeHttp(opts: {
  handle: TFakeHttpHandler;
  /** The API's usual error body for a faulted status; none when absent. */
  faultBody?: (status: number) => unknown;
}): Promise<TFakeHttp> {
  const requests: TFakeHttpRequest[] = [];
  const faults: Array<TFakeHttpFault & { count: number }> = [];
  let baseUrl = "";

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? "/", baseUrl);
      const request: TFakeHttpRequest = {
        method: req.method ?? "GET",
        path: url.pathname,
        url: req.url ?? "/",
        query: url.searchParams,
        headers: req.headers,
        body,
        json: parseJson(body),
      };
      const index = requests.push(request) - 1;
      const fault = faults.find((f) => f.count > 0 && request.path.startsWith(f.pathPrefix ?? "/"));
      if (fault) {
        fault.count--;
        if ("hang" in fault) return;
        const headers: Record<string, string> =
          fault.retryAfter === undefined ? {} : { "retry-after": String(fault.retryAfter) };
        send(res, { status: fault.status, body: fault.body ?? opts.faultBody?.(fault.status), headers });
        return;
      }
      const response = await opts.handle(request, { baseUrl, index, res });
      if (response !== "hang") send(res, response);
    })().catch((error: unknown) => {
      if (res.headersSent) return;
      send(res, {
        status: 500,
        body: { message: error instanceof Error ? error.message : "fake server failed" },
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: baseUrl,
    port,
    requests,
    fail: (fault) => void faults.push({ ...fault, count: fault.count ?? 1 }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** One request header's value (the first, when repeated). */
export function header(req: { headers: IncomingHttpHeaders }, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
