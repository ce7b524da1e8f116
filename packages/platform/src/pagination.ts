import { z } from "zod";
import { AppError } from "./errors";

const int = (min: number, max?: number) => {
  const base = z.coerce.number().int().min(min);
  return max === undefined ? base : base.max(max);
};

export const pageInput = (defaultLimit: number, maxLimit: number) =>
  z.object({ page: int(1).default(1), limit: int(1, maxLimit).default(defaultLimit) });

export const offsetInput = (defaultLimit: number, maxLimit: number) =>
  z.object({ limit: int(1, maxLimit).default(defaultLimit), offset: int(0).default(0) });

export const cursorInput = (defaultLimit: number, maxLimit: number) =>
  z.object({ limit: int(1, maxLimit).default(defaultLimit), before: z.string().min(1).max(512).optional() });

export const ZPageMeta = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
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

const isTimestamp = (s: string) =>
  s.length <= 40 && !Number.isNaN(new Date(s.replace(" ", "T").replace(/\+00$/, "Z")).getTime());

export function decodeCursor(raw: string): TCursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (
      Array.isArray(parsed) &&
      typeof parsed[0] === "string" &&
      typeof parsed[1] === "string" &&
      isTimestamp(parsed[0])
    ) {
      return { at: parsed[0], id: parsed[1] };
    }
  } catch {
    // not one of ours: maybe a plain timestamp
  }
  // A bare ISO timestamp is accepted too: "events older than it" (every id sorts above "").
  if (isTimestamp(raw)) return { at: raw, id: "" };
  throw new AppError("invalid_input", "Invalid cursor", {
    details: [{ path: "before", message: "not a cursor or ISO timestamp" }],
  });
}
