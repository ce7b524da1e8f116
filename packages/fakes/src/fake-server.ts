import { randomBytes } from "node:crypto";
import { startFakeHttp, type TFakeHttpRequest, type TFakeHttpResponse } from "@posture/platform/testing";

// The fake source APIs: vendor semantics (pagination, tokens, error bodies) on top of the
// platform's fake HTTP server, so adapters are exercised over real sockets exactly as in production.

export type TFakeRequest = TFakeHttpRequest;

export type TFakeResponse = TFakeHttpResponse;

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

export async function startFakeServer(opts: {
  handle: (req: TFakeRequest, baseUrl: string) => TFakeResponse | Promise<TFakeResponse>;
  faultBody: (status: number) => unknown;
}): Promise<TFakeServer> {
  const server = await startFakeHttp({
    handle: (req, { baseUrl }) => opts.handle(req, baseUrl),
    faultBody: opts.faultBody,
  });
  return { url: server.url, requests: server.requests, injectFault: server.fail, close: server.close };
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
