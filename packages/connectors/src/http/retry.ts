// Back-off policy shared by every source API call: exponential with full jitter, bounded attempts,
// and the server's Retry-After honoured (but capped, so one hostile header cannot stall a scan).

export type TRetryPolicy = {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
};

export const DEFAULT_RETRY_POLICY: TRetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

export const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

export type TSleep = (ms: number) => Promise<void>;

export const realSleep: TSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retry-After is either delta-seconds or an HTTP-date; returns milliseconds, or null if absent/unparseable. */
export function parseRetryAfter(value: string | null, now: Date = new Date()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (trimmed === "") return null;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP-date names its weekday and month; bare numbers Date.parse would read as years are not dates.
  if (!/[a-z]/i.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}

/** Delay before attempt `attempt + 1` (attempt counts from 1). */
export function backoffDelay(
  attempt: number,
  policy: TRetryPolicy,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, policy.maxDelayMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Full jitter spreads the retries of many workers hitting the same throttled tenant.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
