const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits before the 2nd, 3rd, … attempt: about 71 hours in all, so a receiver may be down ~3 days. */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  30 * SECOND,
  2 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  1 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  24 * HOUR,
  24 * HOUR,
];

export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;

/** Milliseconds to wait after the given number of failed attempts, or null to give up. */
export type TBackoff = (failedAttempts: number) => number | null;

/** ±20% jitter so receivers coming back up are not hit by every sender at the same instant. */
export function scheduleBackoff(schedule: readonly number[], random: () => number = Math.random): TBackoff {
  return (failedAttempts) => {
    const base = schedule[failedAttempts - 1];
    if (base === undefined) return null;
    return Math.round(base * (0.8 + 0.4 * random()));
  };
}

export const defaultBackoff: TBackoff = scheduleBackoff(RETRY_SCHEDULE_MS);
