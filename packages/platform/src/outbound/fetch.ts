import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { pinnedLookup, vetTarget, type TResolver } from "./guard";

export type TGuardedFetchOptions = {
  /** `WEBHOOK_ALLOW_PRIVATE_TARGETS`: private targets pass the guard (tests, self-hosted trackers). */
  allowPrivateTargets: boolean;
  /** Injectable DNS, for tests; the system resolver otherwise. */
  resolve?: TResolver | undefined;
  /** Bound on the whole exchange, resolution included. */
  timeoutMs?: number;
  /** A response body larger than this fails the call. */
  maxResponseBytes?: number;
};

export const OUTBOUND_TIMEOUT_MS = 10_000;
export const OUTBOUND_MAX_RESPONSE_BYTES = 1024 * 1024;

/** Why a guarded call failed at the network level; `cause.code` says which way. */
function networkError(code: string, message: string, cause?: unknown): TypeError {
  return new TypeError("fetch failed", { cause: Object.assign(new Error(message, { cause }), { code }) });
}

function requestBody(body: RequestInit["body"]): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body);
  throw new TypeError("guarded fetch sends string or byte bodies only");
}

function toHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for tenant-supplied URLs. Each call vets its URL (see guard.ts) and connects only to
 * the addresses it vetted, with the URL's own host name as Host and TLS server name, over a fresh
 * connection (a pooled socket could outlive the check). Redirects are never followed: a 3xx is
 * returned as it is. The exchange is bounded in time and the body in size. A refused target
 * rejects with the guard's TargetRefusedError itself, so callers can tell it from a network fault.
 */
export function createGuardedFetch(opts: TGuardedFetchOptions): typeof fetch {
  const timeoutMs = opts.timeoutMs ?? OUTBOUND_TIMEOUT_MS;
  const maxBytes = opts.maxResponseBytes ?? OUTBOUND_MAX_RESPONSE_BYTES;

  const guarded = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (input instanceof Request) throw new TypeError("guarded fetch takes a URL, not a Request");
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const started = Date.now();
    const target = await vetTarget(String(input), {
      allowPrivateTargets: opts.allowPrivateTargets,
      resolve: opts.resolve,
      timeoutMs,
    });
    signal?.throwIfAborted();
    const body = requestBody(init.body);
    const headers = new Headers(init.headers);
    if (body !== undefined) headers.set("content-length", String(body.length));
    const request = target.url.protocol === "https:" ? httpsRequest : httpRequest;

    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        cleanup();
        req.destroy();
        reject(err);
      };
      const onAbort = () => fail(signal?.reason);
      const timer = setTimeout(
        () => fail(networkError("ETIMEDOUT", `no complete answer within ${timeoutMs} ms`)),
        Math.max(1, timeoutMs - (Date.now() - started)),
      );
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      signal?.addEventListener("abort", onAbort, { once: true });

      const req = request(
        {
          method: init.method ?? "GET",
          protocol: target.url.protocol,
          hostname: target.hostname,
          port: target.url.port || undefined,
          path: `${target.url.pathname}${target.url.search}`,
          agent: false,
          lookup: pinnedLookup(target.addresses),
          headers: Object.fromEntries(headers.entries()),
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) {
              fail(networkError("E_RESPONSE_TOO_LARGE", `response body over ${maxBytes} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on("error", (err) => fail(networkError("ECONNRESET", err.message, err)));
          res.on("end", () => {
            if (settled) return;
            settled = true;
            cleanup();
            const status = res.statusCode ?? 502;
            resolve(
              new Response(NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks), {
                status,
                statusText: res.statusMessage ?? "",
                headers: toHeaders(res),
              }),
            );
          });
        },
      );
      req.on("error", (err: NodeJS.ErrnoException) =>
        fail(networkError(err.code ?? "ECONNRESET", err.message, err)),
      );
      req.end(body);
    });
  };
  return guarded as typeof fetch;
}
