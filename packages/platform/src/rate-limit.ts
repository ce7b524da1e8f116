import type { Redis } from "ioredis";
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from "rate-limiter-flexible";
import { AppError } from "./errors";

export type TRatePolicy = { name: string; points: number; durationSec: number };

// The spec's Limits table.
export const RATE_POLICIES = {
  authenticated: { name: "authenticated", points: 60, durationSec: 60 },
  anonymous: { name: "anonymous", points: 20, durationSec: 60 },
  signIn: { name: "sign-in", points: 10, durationSec: 60 },
  complianceReport: { name: "compliance-report", points: 5, durationSec: 3600 },
} as const satisfies Record<string, TRatePolicy>;

export type TRatePolicyName = keyof typeof RATE_POLICIES;

export type TRateDecision = {
  allowed: boolean;
  policy: TRatePolicy;
  remaining: number;
  resetSec: number;
};

/** IETF draft-ietf-httpapi-ratelimit-headers structured fields. */
export function rateLimitHeaders(d: TRateDecision): Record<string, string> {
  return {
    "RateLimit-Policy": `"${d.policy.name}";q=${d.policy.points};w=${d.policy.durationSec}`,
    RateLimit: `"${d.policy.name}";r=${d.remaining};t=${d.resetSec}`,
  };
}

export function rateLimitedError(d: TRateDecision): AppError {
  return new AppError(
    "rate_limited",
    `Rate limit exceeded (${d.policy.points} per ${d.policy.durationSec}s); retry after ${d.resetSec}s`,
    { retryAfter: d.resetSec },
    { "Retry-After": String(d.resetSec), ...rateLimitHeaders(d) },
  );
}

/**
 * Counters live in Redis so every gateway replica shares them. If Redis is unreachable the
 * limiter falls back to a per-process memory counter (rate-limiter-flexible's insurance
 * limiter) instead of failing open or failing the request: limits stay enforced per replica,
 * requests never wait on Redis (the client has no offline queue), and shared counting
 * resumes as soon as Redis is back.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(
    private readonly redis: Redis | null,
    private readonly keyPrefix = "rl",
  ) {}

  private limiter(policy: TRatePolicy): RateLimiterAbstract {
    let l = this.limiters.get(policy.name);
    if (!l) {
      const base = {
        points: policy.points,
        duration: policy.durationSec,
        keyPrefix: `${this.keyPrefix}:${policy.name}`,
      };
      l = this.redis
        ? new RateLimiterRedis({
            ...base,
            storeClient: this.redis,
            insuranceLimiter: new RateLimiterMemory(base),
          })
        : new RateLimiterMemory(base);
      this.limiters.set(policy.name, l);
    }
    return l;
  }

  async consume(policyName: TRatePolicyName, key: string): Promise<TRateDecision> {
    const policy = RATE_POLICIES[policyName];
    const toDecision = (res: RateLimiterRes, allowed: boolean): TRateDecision => ({
      allowed,
      policy,
      remaining: Math.max(0, res.remainingPoints),
      resetSec: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    });
    try {
      return toDecision(await this.limiter(policy).consume(key), true);
    } catch (e) {
      if (e instanceof RateLimiterRes) return toDecision(e, false);
      throw e;
    }
  }

  /** Consumes and throws 429 when over the limit. */
  async enforce(policyName: TRatePolicyName, key: string): Promise<TRateDecision> {
    const d = await this.consume(policyName, key);
    if (!d.allowed) throw rateLimitedError(d);
    return d;
  }
}
