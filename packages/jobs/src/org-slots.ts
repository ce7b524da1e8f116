import type { Redis } from "ioredis";

/**
 * Per-organization slots of one queue, counted in Redis so every worker process shares them
 * (BullMQ's open-source edition has no groups). An organization's slots are a sorted set of the
 * job ids holding one, scored by when the slot lapses: a holder renews it while it runs, so a
 * worker that dies (SIGKILL, lost host) frees its slot after `ttlMs` without anyone's help.
 * A job taken over after a crash, or retried, holds the slot under its same id: never twice.
 */
export type TOrgSlots = {
  /** A held slot, or false when the organization already holds `cap` of them. */
  acquire: (orgId: string, jobId: string) => Promise<TOrgSlot | false>;
};
export type TOrgSlot = { release: () => Promise<void> };

// Clock of the Redis server, the one every worker shares.
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// KEYS[1]: the organization's set. ARGV: job id, cap, ttl ms. 1 when the slot is held.
const ACQUIRE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
  return 1
end
return 0`;

// Renews only a slot still held (one that lapsed may have gone to another job meanwhile).
const RENEW = `${NOW}
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
  return 1
end
return 0`;

export function createOrgSlots(
  redis: Redis,
  opts: { key: (orgId: string) => string; cap: number; ttlMs: number },
): TOrgSlots {
  return {
    async acquire(orgId, jobId) {
      const key = opts.key(orgId);
      const held = await redis.eval(ACQUIRE, 1, key, jobId, opts.cap, opts.ttlMs);
      if (held !== 1) return false;
      const renew = setInterval(
        () => void redis.eval(RENEW, 1, key, jobId, opts.ttlMs).catch(() => {}),
        Math.max(100, Math.floor(opts.ttlMs / 3)),
      );
      renew.unref();
      return {
        async release() {
          clearInterval(renew);
          await redis.zrem(key, jobId);
        },
      };
    },
  };
}
