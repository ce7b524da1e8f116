// Back-off policy shared by every source API call: exponential with full jitter, bounded attempts,
// and the server's Retry-After (read by the platform's parseRetryAfter) honoured, but capped, so
// one hostile header cannot stall a scan.

export type TRetryPolicy = {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
};

export const DEFAULT_RETRY_POLICY: TRetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

export const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

export type TSleep = (ms: number) => Promise<void>;

export const realSleep: TSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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
