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
 * Opaque keyset cursor: the sort key of the last item returned (timestamp plus a tiebreak id),
 * so items sharing a timestamp are neither skipped nor repeated across pages.
 */
export type TCursor = { at: Date; id: string };

export function encodeCursor(c: TCursor): string {
  return Buffer.from(JSON.stringify([c.at.toISOString(), c.id])).toString("base64url");
}

export function decodeCursor(raw: string): TCursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (Array.isArray(parsed) && typeof parsed[0] === "string" && typeof parsed[1] === "string") {
      const at = new Date(parsed[0]);
      if (!Number.isNaN(at.getTime())) return { at, id: parsed[1] };
    }
  } catch {
    // fall through
  }
  // A bare ISO timestamp is accepted too: "events older than it".
  const at = new Date(raw);
  if (!Number.isNaN(at.getTime())) return { at, id: "" };
  throw new AppError("invalid_input", "Invalid cursor", { details: [{ path: "before", message: "not a cursor or timestamp" }] });
}
