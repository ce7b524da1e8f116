import { parseRetryAfter } from "./errors.js";

export type RetryOptions = {
  /** Retries after the first attempt (default 2; 0 turns retrying off). */
  retries: number;
  /** A wait longer than this is not waited: the 429/503 is returned as an ApiError (default 60 s). */
  maxDelayMs: number;
  /** First back-off without a server hint, doubled per attempt with jitter (default 500 ms). */
  baseDelayMs: number;
  /** Told before each wait (a 429's wait can be most of a minute: say so rather than hang silently). */
  onRetry?: ((wait: RetryWait) => void) | undefined;
};

/** One wait before a retry: what answered, how long, which retry it precedes. */
export type RetryWait = { method: string; url: string; status: number; delayMs: number; attempt: number };

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);
const RETRYABLE_STATUS = new Set([429, 503]);

/**
 * A request may be sent again when repeating it cannot do the work twice: an idempotent method,
 * or a POST/PATCH carrying an Idempotency-Key (the server replays the first answer).
 */
export function isRetryable(request: Request): boolean {
  return IDEMPOTENT.has(request.method) || request.headers.has("idempotency-key");
}

/**
 * How long the server asks us to wait, in ms: `Retry-After`, else the IETF `RateLimit` header's
 * reset `t` when its remaining quota `r` is 0; null without a hint.
 */
export function serverDelayMs(headers: Headers, now: number): number | null {
  const retryAfter = parseRetryAfter(headers.get("retry-after"), now);
  if (retryAfter !== null) return retryAfter * 1000;
  const rateLimit = headers.get("ratelimit");
  if (rateLimit) {
    const r = /(?:^|;)\s*r=(\d+)/.exec(rateLimit)?.[1];
    const t = /(?:^|;)\s*t=(\d+)/.exec(rateLimit)?.[1];
    if (r !== undefined && t !== undefined && Number(r) === 0) return Number(t) * 1000;
  }
  return null;
}

function backoffMs(attempt: number, base: number): number {
  const ceiling = base * 2 ** attempt;
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Wraps `fetch` so that a 429 or 503 on a retryable request is sent again after the wait the
 * server asked for (or an exponential back-off), at most `retries` times. The body is replayed
 * from a clone taken before each attempt; the Idempotency-Key stays the same across attempts.
 */
export function retryingFetch(
  inner: (request: Request) => Promise<Response>,
  options: RetryOptions,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const retryable = options.retries > 0 && isRetryable(request);
    let current = request;
    for (let attempt = 0; ; attempt++) {
      const spare = retryable && attempt < options.retries ? current.clone() : null;
      const response = await inner(current);
      if (!spare || !RETRYABLE_STATUS.has(response.status)) return response;
      const delay = serverDelayMs(response.headers, Date.now()) ?? backoffMs(attempt, options.baseDelayMs);
      if (delay > options.maxDelayMs) return response;
      await response.body?.cancel();
      options.onRetry?.({
        method: request.method,
        url: request.url,
        status: response.status,
        delayMs: Math.round(delay),
        attempt: attempt + 1,
      });
      await sleep(delay, request.signal);
      current = spare;
    }
  };
}
