/**
 * The one Retry-After reader for outbound calls (source APIs, issue trackers): delta-seconds or
 * an HTTP-date, as milliseconds from `now` (never negative); null when absent or unreadable.
 * Callers cap the result: one hostile header must not stall a job.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: Date | number = Date.now(),
): number | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  if (trimmed === "") return null;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP-date names its weekday and month; bare numbers Date.parse would read as years are not dates.
  if (!/[a-z]/i.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - (typeof now === "number" ? now : now.getTime()));
}
