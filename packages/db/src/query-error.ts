/** What a log line says of an error thrown by a query (or anything else). */
export type TQueryErrorFields = {
  /** The error's own message, first line only: drizzle's "Failed query: <sql>", never its params. */
  err: string;
  /** Why: the driver's error under drizzle's (PostgreSQL's message and SQLSTATE, e.g. 55P03, 57014). */
  cause?: { message: string; code?: string };
};

type TErrorLike = { message?: unknown; code?: unknown; cause?: unknown; query?: unknown };

const firstLine = (s: string) => s.split("\n", 1)[0]?.slice(0, 500) ?? "";

/**
 * Drizzle wraps every failed query's error in its own, whose message is the SQL and its
 * parameters; the reason (a lock or statement timeout, a lost connection) is the cause. A log
 * line needs the reason, and must not carry the parameters (tenant data): the cause nearest the
 * driver that has a code, else the innermost one.
 */
export function queryErrorFields(err: unknown): TQueryErrorFields {
  const top = err as TErrorLike | null;
  const message =
    top && typeof top === "object" && typeof top.message === "string" ? top.message : String(err);
  const out: TQueryErrorFields = { err: firstLine(message) };
  let found: TErrorLike | undefined;
  let c: unknown = top && typeof top === "object" ? top.cause : undefined;
  for (let depth = 0; c && typeof c === "object" && depth < 8; depth++) {
    const e = c as TErrorLike;
    if (typeof e.message !== "string") break;
    found = e;
    if (typeof e.code === "string") break;
    c = e.cause;
  }
  if (found && typeof found.message === "string")
    out.cause = {
      message: firstLine(found.message),
      ...(typeof found.code === "string" ? { code: found.code } : {}),
    };
  return out;
}

/** The reason to record (a scan's error): a failed query's cause, not its SQL; else the message. */
export function errorReason(err: unknown): string {
  const f = queryErrorFields(err);
  const isQuery = typeof (err as TErrorLike | null)?.query === "string";
  return isQuery && f.cause ? f.cause.message : f.err;
}
