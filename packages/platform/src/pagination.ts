import { z } from "zod";
import { AppError } from "./errors";

const int = (min: number, max?: number) => {
  const base = z.number().int().min(min);
  return max === undefined ? base : base.max(max);
};

export const pageInput = (defaultLimit: number, maxLimit: number) =>
  z.strictObject({ page: int(1).default(1), limit: int(1, maxLimit).default(defaultLimit) });

export const offsetInput = (defaultLimit: number, maxLimit: number) =>
  z.strictObject({ limit: int(1, maxLimit).default(defaultLimit), offset: int(0).default(0) });

export const cursorInput = (defaultLimit: number, maxLimit: number) =>
  z.strictObject({
    limit: int(1, maxLimit).default(defaultLimit),
    before: z.string().min(1).max(512).optional(),
  });

export const ZPageMeta = z.object({
  page: z.number().int().nonnegative(),
  limit: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  totalPages: z.number().int().nonnegative(),
});

export function pageMeta(total: number, page: number, limit: number): z.infer<typeof ZPageMeta> {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}

/**
 * Opaque keyset cursor: the sort key of the last item returned (the database's own timestamp text,
 * at full microsecond precision, plus a tiebreak id), so items sharing a timestamp are neither
 * skipped nor repeated across pages.
 */
export type TCursor = { at: string; id: string };

export function encodeCursor(c: TCursor): string {
  return Buffer.from(JSON.stringify([c.at, c.id])).toString("base64url");
}

// ISO 8601 as clients write it and as PostgreSQL prints timestamptz ("2026-01-02 03:04:05.123456+00").
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;
// The range a cursor may name: anything outside is not a position in any list we serve, and
// PostgreSQL would refuse part of it.
const MIN_CURSOR_MS = Date.UTC(1970, 0, 1);
const MAX_CURSOR_MS = Date.UTC(9999, 11, 31);
// Ids are UUIDs or similar keys; a cursor's tiebreak id never holds anything else.
const CURSOR_ID = /^[A-Za-z0-9_:.|-]{0,128}$/;

/** A strict ISO 8601 timestamp within 1970..9999, with every field in its calendar range. */
export function isCursorTimestamp(s: string): boolean {
  const m = TIMESTAMP.exec(s);
  if (!m) return false;
  const [, y, mo, d, h, mi, sec] = m.map((x) => (x === undefined ? 0 : Number(x)));
  if (mo === undefined || d === undefined || h === undefined || mi === undefined || sec === undefined)
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) return false;
  const iso = s.replace(" ", "T").replace(/([+-]\d{2})$/, "$1:00");
  const ms = new Date(/(Z|[+-]\d{2}:?\d{2})$/.test(iso) ? iso : `${iso}Z`).getTime();
  // Date rolls 2026-02-31 over to March: a day that does not exist in its month is refused.
  if (Number.isNaN(ms) || new Date(Date.UTC(y ?? 0, mo - 1, d)).getUTCDate() !== d) return false;
  return ms >= MIN_CURSOR_MS && ms <= MAX_CURSOR_MS;
}

const invalidCursor = () =>
  new AppError("invalid_input", "Invalid cursor", {
    details: [{ path: "before", message: "not a cursor or an ISO 8601 timestamp between 1970 and 9999" }],
  });

export function decodeCursor(raw: string): TCursor {
  if (isCursorTimestamp(raw)) return { at: raw, id: "" };
  // A bare ISO timestamp is accepted too: "events older than it" (every id sorts above "").
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(raw)) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  if (
    Array.isArray(parsed) &&
    parsed.length === 2 &&
    typeof parsed[0] === "string" &&
    typeof parsed[1] === "string" &&
    isCursorTimestamp(parsed[0]) &&
    CURSOR_ID.test(parsed[1])
  ) {
    return { at: parsed[0], id: parsed[1] };
  }
  throw invalidCursor();
}

// The two list envelopes. Offset pages: `{rows | <name>, total, limit, offset}` (plus
// `nextOffset`, null on the last page); cursor pages: `{items, nextCursor}`.

export const ZOffsetMeta = z.object({
  total: z.number().int().nonnegative(),
  limit: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  nextOffset: z.number().int().nonnegative().nullable(),
});

export type TOffsetMeta = z.infer<typeof ZOffsetMeta>;

export function offsetMeta(total: number, limit: number, offset: number): TOffsetMeta {
  return { total, limit, offset, nextOffset: offset + limit < total ? offset + limit : null };
}

/** `{rows, total, limit, offset, nextOffset}`; pass `name` for another key (`findings`). */
export function offsetPage<T, K extends string = "rows">(
  rows: T[],
  page: { total: number; limit: number; offset: number },
  name: K = "rows" as K,
): { [P in K]: T[] } & TOffsetMeta {
  return { [name]: rows, ...offsetMeta(page.total, page.limit, page.offset) } as {
    [P in K]: T[];
  } & TOffsetMeta;
}

/** `{items, nextCursor}`: `nextCursor` is null at the end. */
export function cursorPage<T>(
  items: T[],
  nextCursor: string | null,
): { items: T[]; nextCursor: string | null } {
  return { items, nextCursor };
}
