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
