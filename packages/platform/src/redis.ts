import { Redis } from "ioredis";

/**
 * A Redis client for request-path use: commands fail fast while the server is away
 * (no offline queue, short timeouts) so nothing waiting on Redis can hang a request,
 * and it keeps reconnecting in the background so service recovers when Redis returns.
 */
export function createRedis(url: string, onError: (err: Error) => void = () => {}): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    retryStrategy: (times) => Math.min(200 * times, 2_000),
  });
  redis.on("error", onError);
  return redis;
}

/** Resolves once connected, or after `ms` regardless: start-up must not hang on a missing Redis. */
export function waitForRedis(redis: Redis, ms = 2_000): Promise<boolean> {
  if (redis.status === "ready") return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    redis.once("ready", onReady);
  });
}
