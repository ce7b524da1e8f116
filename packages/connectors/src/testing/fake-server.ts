import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo } from "node:net";

// The common machinery of the fake source APIs: a real HTTP server on 127.0.0.1:0, a request log,
// and fault injection, so adapters are exercised over real sockets exactly as in production.

export type TFakeRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
};

export type TFakeResponse = { status: number; body?: unknown; headers?: Record<string, string> };

export type TFault = {
  status: number;
  /** How many matching requests fail before the server answers normally again. */
  count: number;
  /** Seconds or an HTTP-date, sent as Retry-After. */
  retryAfter?: number | string;
  /** Only requests whose path starts with this fail; every request when absent. */
  pathPrefix?: string;
  /** Replaces the API's usual error body for this status. */
  body?: unknown;
};

export type TFakeServer = {
  url: string;
  /** Every request received, in order (faulted ones included). */
  requests: TFakeRequest[];
  injectFault: (fault: TFault) => void;
  close: () => Promise<void>;
};

function paginate<T>(items: T[], offset: number, size: number): { page: T[]; next: number | null } {
  const page = items.slice(offset, offset + size);
  return { page, next: offset + size < items.length ? offset + size : null };
}

export const encodeCursor = (offset: number) => Buffer.from(`offset:${offset}`).toString("base64url");

function decodeCursor(token: string | null): number | "invalid" {
  if (!token) return 0;
  const match = /^offset:(\d+)$/.exec(Buffer.from(token, "base64url").toString());
  return match ? Number(match[1]) : "invalid";
}

/** One page of `items` at an opaque cursor token, and the token of the next page (none on the last). */
export function pageAt<T>(
  items: T[],
  token: string | null,
  size: number,
): { page: T[]; nextToken: string | undefined } | "invalid" {
  const offset = decodeCursor(token);
  if (offset === "invalid") return "invalid";
  const { page, next } = paginate(items, offset, size);
  return { page, nextToken: next === null ? undefined : encodeCursor(next) };
}

/** A page size as the API would apply it: the client's request, capped by the API's and the fake's maxima. */
export function pageSize(
  requested: string | null,
  apiDefault: number,
  apiMax: number,
  fakeMax: number,
): number {
  const asked = requested ? Number(requested) : apiDefault;
  const size = Number.isInteger(asked) && asked > 0 ? Math.min(asked, apiMax) : apiDefault;
  return Math.min(size, fakeMax);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, response: TFakeResponse) {
  res.writeHead(response.status, { "content-type": "application/json; charset=utf-8", ...response.headers });
  res.end(response.body === undefined ? "" : JSON.stringify(response.body));
}

export async function startFakeServer(opts: {
  handle: (req: TFakeRequest, baseUrl: string) => TFakeResponse | Promise<TFakeResponse>;
  faultBody: (status: number) => unknown;
}): Promise<TFakeServer> {
  const requests: TFakeRequest[] = [];
  const faults: TFault[] = [];
  let baseUrl = "";

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", baseUrl);
      const request: TFakeRequest = {
        method: req.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: await readBody(req),
      };
      requests.push(request);
      const fault = faults.find((f) => f.count > 0 && request.path.startsWith(f.pathPrefix ?? "/"));
      if (fault) {
        fault.count--;
        const headers: Record<string, string> =
          fault.retryAfter === undefined ? {} : { "retry-after": String(fault.retryAfter) };
        send(res, { status: fault.status, body: fault.body ?? opts.faultBody(fault.status), headers });
        return;
      }
      send(res, await opts.handle(request, baseUrl));
    })().catch((error: unknown) => {
      send(res, {
        status: 500,
        body: { error: { message: error instanceof Error ? error.message : "fake failed" } },
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: baseUrl,
    requests,
    injectFault: (fault) => faults.push({ ...fault }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function bearerToken(req: TFakeRequest): string | null {
  const header = req.headers.authorization;
  const match = typeof header === "string" ? /^Bearer (.+)$/.exec(header) : null;
  return match?.[1] ?? null;
}

export type TTokenBook = {
  /** Every access token handed out, in order (a pre-shared one is accepted but not listed). */
  issued: string[];
  issue: () => string;
  /** Whether the request's bearer token is one this fake handed out or was given. */
  accepts: (req: TFakeRequest) => boolean;
};

export function createTokenBook(prefix: string, preshared?: string): TTokenBook {
  const valid = new Set<string>(preshared ? [preshared] : []);
  const issued: string[] = [];
  return {
    issued,
    issue: () => {
      const token = `${prefix}${randomBytes(16).toString("hex")}`;
      valid.add(token);
      issued.push(token);
      return token;
    },
    accepts: (req) => {
      const token = bearerToken(req);
      return Boolean(token) && valid.has(token ?? "");
    },
  };
}
