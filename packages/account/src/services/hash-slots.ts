import { AppError } from "@posture/platform";

/**
 * A counting semaphore for memory-hard hashing. Each argon2id hash holds 19 MiB while it runs on
 * libuv's thread pool (shared with DNS lookups and file I/O), so at most `slots` run at once and at
 * most `maxWaiting` more wait; beyond that the caller is turned away (429) instead of queueing
 * without bound. Memory for hashing is thus bounded by `slots × 19 MiB` whatever the load.
 */
export function createHashSlots(slots: number, maxWaiting: number) {
  let running = 0;
  const waiting: Array<() => void> = [];

  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  return async function withSlot<T>(work: () => Promise<T>): Promise<T> {
    if (running < slots) running++;
    else {
      if (waiting.length >= maxWaiting) {
        throw new AppError(
          "rate_limited",
          "Too many sign-ins in progress; retry shortly",
          { retryAfter: 1 },
          {
            "Retry-After": "1",
          },
        );
      }
      // The slot is handed over by release(): `running` stays the same.
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    try {
      return await work();
    } finally {
      release();
    }
  };
}
