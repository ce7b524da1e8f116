import { z } from "zod";

// One output style for dates: ISO 8601 UTC strings with milliseconds (`2026-01-02T03:04:05.000Z`).

export function iso(d: Date): string;
export function iso(d: Date | null | undefined): string | null;
export function iso(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}

/** A date-only `YYYY-MM-DD` in UTC (partner trends). */
export const isoDate = (d: Date): string => d.toISOString().slice(0, 10);

/** The output schema of every timestamp: the ISO string iso() produces. */
export const ZTimestamp = z.iso.datetime();
