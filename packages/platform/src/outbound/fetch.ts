import type { IncomingHttpHeaders } from "node:http";
import { vetTarget, type TResolver } from "./guard";
import { OutboundNetworkError, pinnedRequest, ResponseTooLargeError } from "./pinned-request";

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

function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for tenant-supplied URLs: each call vets its URL (see guard.ts), then makes one
 * `pinnedRequest` (connected only to the vetted addresses, no redirects followed: a 3xx is
 * returned as it is, bounded in time and size). A refused target rejects with the guard's
 * TargetRefusedError itself, so callers can tell it from a network fault.
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
    try {
      const res = await pinnedRequest(target, {
        method: init.method ?? "GET",
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        body: requestBody(init.body),
        timeoutMs: timeoutMs - (Date.now() - started),
        maxResponseBytes: maxBytes,
        ...(signal ? { signal } : {}),
      });
      return new Response(NULL_BODY_STATUSES.has(res.status) ? null : res.body, {
        status: res.status,
        statusText: res.statusText,
        headers: toHeaders(res.headers),
      });
    } catch (err) {
      if (err instanceof ResponseTooLargeError) throw networkError("E_RESPONSE_TOO_LARGE", err.message, err);
      if (err instanceof OutboundNetworkError) throw networkError(err.code, err.message, err.cause);
      throw err;
    }
  };
  return guarded as typeof fetch;
}
