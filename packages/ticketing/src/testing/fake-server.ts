import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type TRecordedRequest = {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** Parsed JSON body, or undefined when there was none or it was not JSON. */
  body: unknown;
};

/**
 * What the next request gets instead of the tracker's normal answer: an HTTP status (with an
 * optional Retry-After and body), or no answer at all until the fake is closed.
 */
export type TFault = { status: number; retryAfter?: string; body?: unknown } | { hang: true };

export type TFakeResponse = { status: number; body?: unknown; headers?: Record<string, string> };

export type TFakeTracker = {
  /** Base address, e.g. http://127.0.0.1:54321 (no trailing slash). */
  url: string;
  /** Every request received, faulted ones included, oldest first. */
  requests: TRecordedRequest[];
  /** Queues a fault for the next request that arrives; several queue in order. */
  failNext(fault: TFault): void;
  close(): Promise<void>;
};

type THandler = (req: TRecordedRequest, baseUrl: string) => TFakeResponse;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function reply(res: ServerResponse, response: TFakeResponse): void {
  const headers: Record<string, string> = { ...response.headers };
  if (response.body !== undefined) headers["content-type"] ??= "application/json";
  res.writeHead(response.status, headers);
  res.end(response.body === undefined ? undefined : JSON.stringify(response.body));
}

/**
 * A tracker double on 127.0.0.1 and an OS-assigned port: records each request, applies queued
 * faults, otherwise answers through the provider's handler.
 */
export async function startFakeServer(
  handler: THandler,
  faultBody: (status: number) => unknown,
): Promise<TFakeTracker> {
  const requests: TRecordedRequest[] = [];
  const faults: TFault[] = [];
  let baseUrl = "";

  const server = createServer((req, res) => {
    void (async () => {
      const rawBody = await readBody(req);
      const url = new URL(req.url ?? "/", baseUrl);
      const recorded: TRecordedRequest = {
        method: req.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        rawBody,
        body: parseJson(rawBody),
      };
      requests.push(recorded);
      const fault = faults.shift();
      if (fault && "hang" in fault) return;
      if (fault) {
        const headers: Record<string, string> = fault.retryAfter ? { "retry-after": fault.retryAfter } : {};
        reply(res, { status: fault.status, body: fault.body ?? faultBody(fault.status), headers });
        return;
      }
      reply(res, handler(recorded, baseUrl));
    })().catch(() => {
      if (!res.headersSent) reply(res, { status: 500, body: { message: "fake tracker error" } });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: baseUrl,
    requests,
    failNext: (fault) => {
      faults.push(fault);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Hanging requests would otherwise keep close() waiting forever.
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

export function header(req: TRecordedRequest, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
