import type { Redis } from "ioredis";
import {
  dataEpochKeys,
  LocalDataEpochs,
  seedEpoch,
  ALL_ORGANIZATIONS,
  type TDataEpoch,
  type TDataEpochStore,
} from "./data-epochs";
import { AppError } from "./errors";
import { metrics } from "./metrics";

export type TRatePolicy = { name: string; points: number; durationSec: number };

// The spec's Limits table.
export const RATE_POLICIES = {
  authenticated: { name: "authenticated", points: 60, durationSec: 60 },
  anonymous: { name: "anonymous", points: 20, durationSec: 60 },
  signIn: { name: "sign-in", points: 10, durationSec: 60 },
  complianceReport: { name: "compliance-report", points: 5, durationSec: 3600 },
  /**
   * Credentials that failed their database lookup (unknown, revoked, expired), per client: once
   * spent, an unseen credential from that client is refused before any lookup. It bounds the
   * lookups a flood of made-up keys can cause without touching the budget of valid ones.
   */
  credentialFailures: { name: "credential-failures", points: 20, durationSec: 60 },
  /**
   * The API reference (`/api/docs`, its scripts, `/api/openapi.json`): static, cacheable, and
   * not counted against the API budgets; a generous budget of its own keeps a scraper in check.
   */
  docs: { name: "docs", points: 300, durationSec: 60 },
} as const satisfies Record<string, TRatePolicy>;

export type TRatePolicyName = keyof typeof RATE_POLICIES;

export type TRateDecision = {
  allowed: boolean;
  policy: TRatePolicy;
  remaining: number;
  resetSec: number;
  /** What this decision charged, and where: what `RateLimits.refund` gives back (a 304). */
  charge?: TRateCharge;
};

/**
 * Points a request was charged: the counter's key, the cost, and whether Redis counted it. A
 * deferred charge (a conditional GET) was only checked on the way in: `RateLimits.settle` counts
 * it once the answer is known not to be a 304.
 */
export type TRateCharge = { key: string; cost: number; shared: boolean; deferred?: { windowMs: number } };

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
 * One round trip: a fixed-window counter (INCRBY, or a plain read when the cost is 0) and,
 * when a second key is given, the organization's published credential epoch, raised first to
 * ARGV[3] when that is higher (the value just read from PostgreSQL); when four more are given,
 * the organization's and every organization's data epoch (data-epochs.ts), or '' while a write
 * of either is in progress (marks that expired before ARGV[4], now, are dropped first; an absent
 * epoch starts at ARGV[5]). Returns {count, ms to reset, epoch or -1, data epoch or ''}.
 */
const WINDOW_SCRIPT = `
local cost = tonumber(ARGV[2])
local count
if cost > 0 then
  count = redis.call('INCRBY', KEYS[1], cost)
  if count == cost then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
else
  count = tonumber(redis.call('GET', KEYS[1]) or '0')
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  if count > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
  ttl = tonumber(ARGV[1])
end
local epoch = -1
if #KEYS > 1 then
  epoch = tonumber(redis.call('GET', KEYS[2]) or '-1')
  local seen = tonumber(ARGV[3] or '-1')
  if seen > epoch then
    redis.call('SET', KEYS[2], seen, 'PX', 86400000)
    epoch = seen
  end
end
local data = ''
if #KEYS > 2 then
  local now = tonumber(ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)
  if redis.call('ZCARD', KEYS[4]) + redis.call('ZCARD', KEYS[6]) == 0 then
    local own = redis.call('GET', KEYS[3])
    if not own then own = ARGV[5]; redis.call('SET', KEYS[3], own) end
    local all = redis.call('GET', KEYS[5])
    if not all then all = ARGV[5]; redis.call('SET', KEYS[5], all) end
    data = own .. ':' .. all
  end
end
return {count, ttl, epoch, data}
`;

/**
 * A write's marks (data-epochs.ts) on each organization's pair of keys (epoch, writes in
 * progress): ARGV[4] 'begin' and 'end' bump the epoch (from ARGV[3] when absent); 'begin' and
 * 'renew' list the write ARGV[1] until ARGV[2], 'end' and 'unlist' take it off.
 */
const DATA_WRITE_SCRIPT = `
local mode = ARGV[4]
for i = 1, #KEYS, 2 do
  if mode == 'begin' or mode == 'end' then
    if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('SET', KEYS[i], ARGV[3]) end
    redis.call('INCR', KEYS[i])
  end
  if mode == 'end' or mode == 'unlist' then
    redis.call('ZREM', KEYS[i + 1], ARGV[1])
  else
    redis.call('ZADD', KEYS[i + 1], ARGV[2], ARGV[1])
  end
end
return 1
`;

/**
 * Gives back points a request was charged (a conditional GET answered 304: not counted, as on
 * GitHub's API), never below zero and keeping the window's expiry: a counter whose window has
 * ended meanwhile is not created again.
 */
const REFUND_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count <= 0 then return 0 end
return redis.call('DECRBY', KEYS[1], math.min(count, tonumber(ARGV[1])))
`;

type TWindowRedis = Redis & {
  postureWindow: (...args: Array<string | number>) => Promise<[number, number, number, string]>;
  postureRefund: (...args: Array<string | number>) => Promise<number>;
  postureDataWrite: (...args: Array<string | number>) => Promise<number>;
};

/** Per-process fixed windows: the embedded default, and the fallback while Redis is away. */
class MemoryWindows {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private nextSweep = 0;

  hit(key: string, windowMs: number, cost: number, now: number): { count: number; ttlMs: number } {
    if (now >= this.nextSweep) {
      for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
      this.nextSweep = now + 10_000;
    }
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      if (cost === 0) return { count: 0, ttlMs: windowMs };
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count += cost;
    return { count: w.count, ttlMs: w.resetAt - now };
  }

  refund(key: string, cost: number, now: number): void {
    const w = this.windows.get(key);
    if (w && w.resetAt > now) w.count = Math.max(0, w.count - cost);
  }
}

export type TConsumeOptions = {
  /** Points this request costs (a tRPC batch costs one per call); 0 only reads the counter. */
  cost?: number;
  /**
   * Read (and heal) this organization's published credential epoch in the same round trip and,
   * with `data`, its data epoch (data-epochs.ts).
   */
  epoch?: { orgId: string; atLeast?: number; data?: boolean };
  /**
   * Check the cost against the budget but do not count it yet (a conditional GET, which a 304
   * leaves uncounted): `settle` counts it afterwards, `refund` drops it, and no second round trip
   * is made on the way in either way.
   */
  defer?: boolean;
};

/**
 * A decision, plus the published credential epoch when one was asked for (null: unknown) and the
 * data epoch (null: unknown, or a write in progress: nothing may be cached).
 */
export type TGateDecision = TRateDecision & { epoch: number | null; dataEpoch: TDataEpoch | null };

export type TRateLimitOptions = {
  /**
   * How long a request waits for Redis before it counts in memory instead (ms). Redis answers
   * in well under a millisecond when healthy; a server that accepts but does not answer (paused,
   * swapping, a half-open connection) must not hold every request for the client's 1 s command
   * timeout.
   */
  redisTimeoutMs?: number;
  /** After such a timeout, Redis is not asked again for this long (ms): one slow call, not one per request. */
  redisCooldownMs?: number;
};

export const DEFAULT_REDIS_LIMIT_TIMEOUT_MS = 75;
export const DEFAULT_REDIS_LIMIT_COOLDOWN_MS = 1_000;

/**
 * Counters live in Redis so every gateway replica (and every worker of a clustered gateway)
 * shares them exactly. While Redis is unreachable — or does not answer within `redisTimeoutMs`
 * — each process counts in its own memory instead of failing open or failing the request:
 * limits stay enforced per process, requests never wait on Redis for longer than that bound
 * (the client has no offline queue), and shared counting resumes by itself.
 */
export class RateLimits implements TDataEpochStore {
  private readonly memory = new MemoryWindows();
  // Embedded mode: the data epochs are this process's own too.
  private readonly localData = new LocalDataEpochs();
  // Embedded mode: the published epochs are this process's own.
  private readonly localEpochs = new Map<string, number>();
  private readonly timeoutMs: number;
  private readonly cooldownMs: number;
  /** Until then Redis is skipped: it did not answer within the bound a moment ago. */
  private skipRedisUntil = 0;

  constructor(
    private readonly redis: Redis | null,
    private readonly keyPrefix = "rl",
    private readonly onRedisError: (err: Error) => void = () => {},
    options: TRateLimitOptions = {},
  ) {
    this.timeoutMs = options.redisTimeoutMs ?? DEFAULT_REDIS_LIMIT_TIMEOUT_MS;
    this.cooldownMs = options.redisCooldownMs ?? DEFAULT_REDIS_LIMIT_COOLDOWN_MS;
    if (redis && !("postureWindow" in redis)) {
      redis.defineCommand("postureWindow", { lua: WINDOW_SCRIPT });
    }
    if (redis && !("postureRefund" in redis)) {
      redis.defineCommand("postureRefund", { numberOfKeys: 1, lua: REFUND_SCRIPT });
    }
    if (redis && !("postureDataWrite" in redis)) {
      redis.defineCommand("postureDataWrite", { lua: DATA_WRITE_SCRIPT });
    }
  }

  /** Whether epochs are shared with other processes (Redis), or this process's own. */
  get sharedEpochs(): boolean {
    return this.redis !== null;
  }

  epochKey(orgId: string): string {
    return `${this.keyPrefix}:epoch:${orgId}`;
  }

  async hit(policyName: TRatePolicyName, key: string, o: TConsumeOptions = {}): Promise<TGateDecision> {
    const policy = RATE_POLICIES[policyName];
    const cost = o.cost ?? 1;
    const windowMs = policy.durationSec * 1000;
    const counterKey = `${this.keyPrefix}:${policy.name}:${key}`;
    const sent = o.defer ? 0 : cost;
    const shared = await this.hitRedis(counterKey, windowMs, sent, o.epoch);
    const charge: TRateCharge | undefined =
      cost > 0
        ? { key: counterKey, cost, shared: shared !== null, ...(o.defer ? { deferred: { windowMs } } : {}) }
        : undefined;
    let count: number;
    let ttlMs: number;
    let epoch: number | null;
    let dataEpoch: TDataEpoch | null = null;
    if (shared) {
      let data: string;
      [count, ttlMs, epoch, data] = shared;
      if (data) dataEpoch = data;
    } else {
      const now = Date.now();
      ({ count, ttlMs } = this.memory.hit(counterKey, windowMs, sent, now));
      // A replica cut off from Redis cannot see other replicas' revocations or writes: no epoch,
      // no cache.
      epoch = o.epoch && !this.redis ? this.localEpoch(o.epoch.orgId, o.epoch.atLeast) : null;
      if (o.epoch?.data && !this.redis) dataEpoch = this.localData.read(o.epoch.orgId, now);
    }
    // A read (cost 0) asks whether one more request would pass; a deferred cost counts as spent.
    const counted = o.defer ? count + cost : count;
    const allowed = cost === 0 ? count < policy.points : counted <= policy.points;
    if (!allowed) metrics.rateLimitRefusals.inc({ policy: policy.name });
    return {
      allowed,
      policy,
      remaining: Math.max(0, policy.points - counted),
      resetSec: Math.max(1, Math.ceil(ttlMs / 1000)),
      epoch: epoch === -1 ? null : epoch,
      dataEpoch,
      ...(charge && allowed ? { charge } : {}),
    };
  }

  /**
   * Gives back what an allowed decision charged (a conditional GET answered 304 is not counted)
   * and returns the decision as the response should report it. No second round trip on the way
   * in: the command is sent (to the counter that charged it) before the response is written and
   * is not awaited — ioredis keeps one connection's commands in order, so the client's next
   * request through this process is counted after it. A refund Redis does not take is lost: the
   * client stays charged, never the other way round.
   */
  refund(decision: TRateDecision): TRateDecision {
    const { charge, ...rest } = decision;
    if (!charge) return decision;
    if (charge.deferred) {
      // Never counted: nothing to give back.
    } else if (charge.shared) {
      const redis = this.redis as TWindowRedis | null;
      if (redis) void this.bounded(() => redis.postureRefund(charge.key, charge.cost));
    } else {
      this.memory.refund(charge.key, charge.cost, Date.now());
    }
    return { ...rest, remaining: Math.min(rest.policy.points, rest.remaining + charge.cost) };
  }

  /**
   * Counts a deferred charge (a conditional GET that was not answered 304), sent as the response
   * leaves and not awaited, like a refund; where it was checked in memory, it is counted there.
   */
  settle(decision: TRateDecision): TRateDecision {
    const { charge, ...rest } = decision;
    if (!charge?.deferred) return decision;
    const { windowMs } = charge.deferred;
    const redis = this.redis as TWindowRedis | null;
    if (charge.shared && redis)
      void this.bounded(() => redis.postureWindow(1, charge.key, windowMs, charge.cost));
    else this.memory.hit(charge.key, windowMs, charge.cost, Date.now());
    return rest;
  }

  private async hitRedis(
    counterKey: string,
    windowMs: number,
    cost: number,
    epoch: TConsumeOptions["epoch"],
  ): Promise<[number, number, number, string] | null> {
    const redis = this.redis as TWindowRedis | null;
    if (!redis || Date.now() < this.skipRedisUntil) return null;
    return this.bounded(() => {
      if (!epoch) return redis.postureWindow(1, counterKey, windowMs, cost);
      const credential = this.epochKey(epoch.orgId);
      if (!epoch.data)
        return redis.postureWindow(2, counterKey, credential, windowMs, cost, epoch.atLeast ?? -1);
      const own = dataEpochKeys(this.keyPrefix, epoch.orgId);
      const all = dataEpochKeys(this.keyPrefix, ALL_ORGANIZATIONS);
      const now = Date.now();
      return redis.postureWindow(
        6,
        counterKey,
        credential,
        own.epoch,
        own.writing,
        all.epoch,
        all.writing,
        windowMs,
        cost,
        epoch.atLeast ?? -1,
        now,
        seedEpoch(now),
      );
    });
  }

  // The data epochs' store (data-epochs.ts): Redis when there is one, else this process's memory.
  // A Redis that fails or does not answer in time throws, so the writer can say so.

  begin(orgIds: readonly string[], token: string, expiresAt: number): Promise<void> {
    return this.dataWrite(orgIds, token, expiresAt, "begin");
  }

  renew(orgIds: readonly string[], token: string, expiresAt: number): Promise<void> {
    return this.dataWrite(orgIds, token, expiresAt, "renew");
  }

  end(orgIds: readonly string[], token: string): Promise<void> {
    return this.dataWrite(orgIds, token, 0, "end");
  }

  unlist(orgIds: readonly string[], token: string): Promise<void> {
    return this.dataWrite(orgIds, token, 0, "unlist");
  }

  private async dataWrite(
    orgIds: readonly string[],
    token: string,
    expiresAt: number,
    mode: "begin" | "renew" | "end" | "unlist",
  ): Promise<void> {
    const redis = this.redis as TWindowRedis | null;
    if (!redis) {
      if (mode === "end") return this.localData.end(orgIds, token);
      if (mode === "unlist") return this.localData.unlist(orgIds, token);
      return mode === "begin"
        ? this.localData.begin(orgIds, token, expiresAt)
        : this.localData.renew(orgIds, token, expiresAt);
    }
    const keys = orgIds.flatMap((id) => {
      const k = dataEpochKeys(this.keyPrefix, id);
      return [k.epoch, k.writing];
    });
    // Sent even during a cool-off, like a credential epoch's publication: a write matters more.
    const done = await this.bounded(() =>
      redis.postureDataWrite(keys.length, ...keys, token, expiresAt, seedEpoch(Date.now()), mode),
    );
    if (done === null) throw new Error(`data epochs: Redis did not take the write's ${mode}`);
  }

  /**
   * The Redis call's answer, or null when it fails or does not come within `timeoutMs` (then
   * Redis is skipped for `cooldownMs`). A late answer is dropped; the call is not cancelled
   * (Redis may still apply it: a request may then be counted in both places, never in neither).
   */
  private bounded<T>(call: () => Promise<T>): Promise<T | null> {
    return new Promise((resolve) => {
      let settled = false;
      const finish = (value: T | null, err?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) this.onRedisError(err);
        resolve(value);
      };
      // The verdict waits for one more turn of the event loop: when this process itself was busy
      // (a GC pause, a large response being serialised) the answer may already sit in the socket,
      // and I/O is read before setImmediate runs. Only a Redis that really did not answer times out.
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (settled) return;
            this.skipRedisUntil = Date.now() + this.cooldownMs;
            finish(null, new Error(`Redis did not answer within ${this.timeoutMs} ms`));
          }),
        this.timeoutMs,
      );
      let pending: Promise<T>;
      try {
        pending = call();
      } catch (err) {
        finish(null, err as Error);
        return;
      }
      pending.then(
        (value) => finish(value),
        (err: Error) => finish(null, err),
      );
    });
  }

  private localEpoch(orgId: string, atLeast = -1): number | null {
    const current = this.localEpochs.get(orgId) ?? -1;
    if (atLeast > current) {
      this.localEpochs.set(orgId, atLeast);
      return atLeast;
    }
    return current === -1 ? null : current;
  }

  /**
   * Publishes an organization's credential epoch (read from PostgreSQL after a revocation
   * committed): every replica's next request for that organization sees its cached credentials
   * are stale. Never lowers a published value.
   */
  async publishEpoch(orgId: string, epoch: number): Promise<void> {
    const redis = this.redis as TWindowRedis | null;
    if (!redis) {
      this.localEpoch(orgId, epoch);
      return;
    }
    // Bounded like every other call (and sent even during a cool-off: a revocation matters more
    // than the milliseconds). On failure the change is still committed; replicas that cannot
    // reach Redis do not cache anyway, and the next cache miss anywhere publishes the epoch it
    // reads from PostgreSQL.
    await this.bounded(() =>
      redis.postureWindow(2, `${this.keyPrefix}:publish`, this.epochKey(orgId), 1000, 0, epoch),
    );
  }

  async consume(policyName: TRatePolicyName, key: string): Promise<TRateDecision> {
    const { epoch: _epoch, dataEpoch: _data, ...decision } = await this.hit(policyName, key);
    return decision;
  }

  /** Consumes and throws 429 when over the limit. */
  async enforce(policyName: TRatePolicyName, key: string): Promise<TRateDecision> {
    const d = await this.consume(policyName, key);
    if (!d.allowed) throw rateLimitedError(d);
    return d;
  }
}
