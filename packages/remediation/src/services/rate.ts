// A bounded rate of changes per connector: a token bucket (`perSecond` tokens a second, up to
// `burst` at once). Each change a step makes takes a token first; a source's 429 is honoured on
// top of it (the step waits the Retry-After the writer reports, see services/apply.ts).

export type TRateOptions = { perSecond: number; burst?: number };

export type TRateLimiter = {
  /** Resolves when the connector may make one more change. */
  take: (connectorId: string) => Promise<void>;
};

/** Changes a second per connector when neither the deps nor REMEDIATION_RATE_PER_SECOND say. */
export const DEFAULT_CHANGES_PER_SECOND = 10;

export function rateFromEnv(env: NodeJS.ProcessEnv = process.env): TRateOptions {
  const n = Number(env.REMEDIATION_RATE_PER_SECOND);
  return { perSecond: Number.isFinite(n) && n > 0 ? n : DEFAULT_CHANGES_PER_SECOND };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createRateLimiter(
  opts: TRateOptions,
  wait: (ms: number) => Promise<void> = sleep,
): TRateLimiter {
  const burst = Math.max(1, opts.burst ?? Math.ceil(opts.perSecond));
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    async take(connectorId) {
      for (;;) {
        const now = Date.now();
        const b = buckets.get(connectorId) ?? { tokens: burst, at: now };
        b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * opts.perSecond);
        b.at = now;
        buckets.set(connectorId, b);
        if (b.tokens >= 1) {
          b.tokens -= 1;
          return;
        }
        await wait(Math.ceil(((1 - b.tokens) / opts.perSecond) * 1000));
      }
    },
  };
}
