import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { pinnedLookup, type TVettedTarget } from "./guard";

export type TPinnedRequest = {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Bound on the exchange from now (the caller may already have spent part of its budget on DNS). */
  timeoutMs: number;
  /** A response body larger than this rejects with ResponseTooLargeError. */
  maxResponseBytes: number;
  /** `status`: settle as soon as the status line and headers arrive, reading no body. */
  read?: "body" | "status";
  /** Extra trusted CA (PEM), for tests against a local TLS server. */
  ca?: string;
  signal?: AbortSignal;
};

export type TPinnedResponse = {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
};

export class ResponseTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`response body over ${maxBytes} bytes`);
  }
}

/** A network-level failure (`code` as Node names it: ECONNREFUSED, ETIMEDOUT…). */
export class OutboundNetworkError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The one outbound HTTP exchange with a tenant-supplied URL, after vetTarget: it connects only to
 * the addresses the guard vetted (a pinned `lookup`), with the URL's own host name as Host and TLS
 * server name, over a fresh connection (a pooled socket could outlive the check). Redirects are
 * never followed. The exchange is bounded in time and the body in size. The guarded `fetch`
 * (trackers, source APIs), webhook deliveries and partner logos all go through it.
 */
export function pinnedRequest(target: TVettedTarget, o: TPinnedRequest): Promise<TPinnedResponse> {
  const request = target.url.protocol === "https:" ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { ...o.headers };
  if (o.body !== undefined) headers["content-length"] = String(o.body.length);
  return new Promise<TPinnedResponse>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      fn();
      req.destroy();
    };
    const fail = (err: unknown) => settle(() => reject(err));
    const onAbort = () => fail(o.signal?.reason);
    const timer = setTimeout(
      () => fail(new OutboundNetworkError("ETIMEDOUT", `no complete answer within ${o.timeoutMs} ms`)),
      Math.max(1, o.timeoutMs),
    );
    o.signal?.addEventListener("abort", onAbort, { once: true });

    const req = request(
      {
        method: o.method ?? "GET",
        protocol: target.url.protocol,
        hostname: target.hostname,
        port: target.url.port || undefined,
        path: `${target.url.pathname}${target.url.search}`,
        agent: false,
        lookup: pinnedLookup(target.addresses),
        headers,
        ...(o.ca ? { ca: o.ca } : {}),
      },
      (res: IncomingMessage) => {
        const head = {
          status: res.statusCode ?? 502,
          statusText: res.statusMessage ?? "",
          headers: res.headers,
        };
        if (o.read === "status") {
          settle(() => resolve({ ...head, body: Buffer.alloc(0) }));
          return;
        }
        if (Number(res.headers["content-length"] ?? 0) > o.maxResponseBytes) {
          fail(new ResponseTooLargeError(o.maxResponseBytes));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > o.maxResponseBytes) {
            fail(new ResponseTooLargeError(o.maxResponseBytes));
            return;
          }
          chunks.push(chunk);
        });
        res.on("error", (err) => fail(new OutboundNetworkError("ECONNRESET", err.message, { cause: err })));
        res.on("end", () => settle(() => resolve({ ...head, body: Buffer.concat(chunks) })));
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) =>
      fail(new OutboundNetworkError(err.code ?? "ECONNRESET", err.message, { cause: err })),
    );
    req.end(o.body);
  });
}
