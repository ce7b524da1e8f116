/**
 * Settles with `work`, or rejects with `onTimeout()` after `ms`. The work is not cancelled; a
 * late rejection from it is swallowed so it cannot surface as an unhandled rejection.
 */
export function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  work.catch(() => {});
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

class JobRunTimeoutError extends Error {
  constructor(name: string, ms: number) {
    super(`job ${name} exceeded its ${ms} ms bound`);
    this.name = "JobRunTimeoutError";
  }
}

/** One run of job `name`'s handler, held to its definition's `timeoutMs` when it has one. */
export function withinJobBound<T>(name: string, timeoutMs: number | undefined, work: Promise<T>): Promise<T> {
  return timeoutMs ? withTimeout(work, timeoutMs, () => new JobRunTimeoutError(name, timeoutMs)) : work;
}
