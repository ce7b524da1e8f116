// ISO weeks, UTC. A week is named by its Monday (`2026-11-16`) in storage and by its ISO label
// (`2026-W47`) on the wire.

const DAY_MS = 86_400_000;
export const WEEK_MS = 7 * DAY_MS;

/** The Monday 00:00 UTC of the ISO week holding `at`. */
export function weekStart(at: Date): Date {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const offset = (day.getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return new Date(day.getTime() - offset * DAY_MS);
}

/** `2026-11-16` for the week holding `at`. */
export function weekKey(at: Date): string {
  return weekStart(at).toISOString().slice(0, 10);
}

/** `2026-W47`: the ISO week-numbering year is the year of the week's Thursday. */
export function isoWeekLabel(at: Date): string {
  const thursday = new Date(weekStart(at).getTime() + 3 * DAY_MS);
  const year = thursday.getUTCFullYear();
  const firstThursday = weekStart(new Date(Date.UTC(year, 0, 4))).getTime() + 3 * DAY_MS;
  const week = 1 + Math.round((thursday.getTime() - firstThursday) / WEEK_MS);
  return `${year}-W${String(week).padStart(2, "0")}`;
}

/** The Mondays of the `count` weeks ending with the week holding `now`, oldest first. */
export function recentWeeks(now: Date, count: number): string[] {
  const last = weekStart(now).getTime();
  return Array.from({ length: count }, (_, i) =>
    new Date(last - (count - 1 - i) * WEEK_MS).toISOString().slice(0, 10),
  );
}

export function labelOfKey(key: string): string {
  return isoWeekLabel(new Date(`${key}T00:00:00Z`));
}
