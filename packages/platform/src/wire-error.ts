import { TRPCError } from "@trpc/server";
import { AppError, ERROR_STATUS, type TErrorBody, type TErrorCode } from "./errors";

export type TWireError = {
  status: number;
  body: TErrorBody;
  headers: Record<string, string>;
  /** A 4xx that still deserves its stack in the log (the database, not validation, refused it). */
  suspicious?: true;
};

type TIssue = { path: PropertyKey[]; message: string; code?: string; keys?: unknown };

/**
 * One detail per problem, each naming its field: zod reports the unknown keys of a strict object
 * in one issue at the object's path, which would name the object rather than the field.
 */
function issueDetails(issues: TIssue[]): Array<{ path: string; message: string }> {
  return issues.flatMap((i) => {
    const at = i.path.map(String);
    if (i.code === "unrecognized_keys" && Array.isArray(i.keys) && i.keys.length > 0)
      return i.keys.map((key) => ({ path: [...at, String(key)].join("."), message: "unknown field" }));
    return [{ path: at.join("."), message: i.message }];
  });
}

function isZodLike(e: unknown): e is { issues: TIssue[] } {
  return typeof e === "object" && e !== null && Array.isArray((e as { issues?: unknown }).issues);
}

const TRPC_TO_CODE: Partial<Record<TRPCError["code"], { code: TErrorCode; message: string }>> = {
  PARSE_ERROR: { code: "invalid_input", message: "Request body is not valid JSON" },
  BAD_REQUEST: { code: "invalid_input", message: "Invalid input" },
  NOT_FOUND: { code: "not_found", message: "Not found" },
  UNAUTHORIZED: { code: "unauthenticated", message: "Authentication required" },
  FORBIDDEN: { code: "forbidden", message: "Forbidden" },
  PAYLOAD_TOO_LARGE: { code: "payload_too_large", message: "Request body too large" },
  UNSUPPORTED_MEDIA_TYPE: {
    code: "unsupported_media_type",
    message: "Content-Type must be application/json",
  },
  METHOD_NOT_SUPPORTED: { code: "method_not_allowed", message: "Method not allowed" },
  TOO_MANY_REQUESTS: { code: "rate_limited", message: "Rate limit exceeded" },
  CONFLICT: { code: "conflict", message: "Conflict" },
};

function make(
  code: TErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
  headers = {},
): TWireError {
  return { status: ERROR_STATUS[code], body: { error: code, message, ...extra }, headers };
}

// Node socket errors and node-postgres's own messages when the server cannot be reached, does not
// answer, or the connection dies; PostgreSQL SQLSTATEs for a server that is shutting down, starting, refusing
// connections, or that cancelled a statement past statement_timeout.
const UNAVAILABLE_ERRNO = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
// "Query read timeout": the client gave up on a server that does not answer (node-postgres's
// query_timeout, or QueryTimeoutError from @posture/db's bounded pool); "Database busy": a
// request gave up waiting behind background work on the embedded database (DatabaseBusyError).
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Query read timeout|Database busy)/;
const UNAVAILABLE_SQLSTATE = /^(08|57P0[1-4]$|53300$|57014$)/;
// Class 22 (data exception) and 54001 (statement too complex): the input, not the server, is
// at fault. The input limits stop such values at the edge; this maps whatever still gets through.
const INPUT_SQLSTATE = /^(22|54001$)/;

type TCauseLike = { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };

/** The error and its causes (drizzle, tRPC and AggregateError wrap the driver's error). */
function causes(err: unknown): TCauseLike[] {
  const out: TCauseLike[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 8) {
    const e = queue.shift();
    if (e === null || typeof e !== "object") continue;
    const c = e as TCauseLike;
    out.push(c);
    queue.push(c.cause);
    if (Array.isArray(c.errors)) queue.push(...c.errors.slice(0, 4));
  }
  return out;
}

/** A dependency (the database, mostly) is unreachable or refused the work: 503, not 500. */
export function isUnavailable(err: unknown): boolean {
  return causes(err).some((c) => {
    const code = typeof c.code === "string" ? c.code : "";
    const message = typeof c.message === "string" ? c.message : "";
    return (
      UNAVAILABLE_ERRNO.has(code) ||
      (/^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_SQLSTATE.test(code)) ||
      UNAVAILABLE_MESSAGE.test(message)
    );
  });
}

/** A request that gave up behind background work on the embedded database (@posture/db's DatabaseBusyError). */
const isDatabaseBusy = (err: unknown): boolean =>
  causes(err).some((c) => typeof c.message === "string" && c.message.startsWith("Database busy"));

function isInputRejectedByDatabase(err: unknown): boolean {
  return causes(err).some(
    (c) => typeof c.code === "string" && /^[0-9A-Z]{5}$/.test(c.code) && INPUT_SQLSTATE.test(c.code),
  );
}

/**
 * The one mapping from anything thrown to the contract's error body. Unknown errors become a
 * bare 500: no message, stack or SQL from inside ever reaches the wire.
 */
export function toWireError(err: unknown): TWireError {
  const cause = err instanceof TRPCError ? err.cause : err;
  if (cause instanceof AppError)
    return { status: cause.status, body: cause.toBody(), headers: cause.headers };
  if (isZodLike(cause)) {
    return make("invalid_input", "Input validation failed", {
      details: issueDetails(cause.issues),
    });
  }
  if (err instanceof TRPCError) {
    const mapped = TRPC_TO_CODE[err.code];
    if (mapped) return make(mapped.code, mapped.message);
  }
  if (isDatabaseBusy(err)) {
    return make(
      "service_unavailable",
      "The embedded database is busy with background work (a scan or a job) and this request would have waited behind it; retry shortly",
      {},
      { "Retry-After": "2" },
    );
  }
  if (isUnavailable(err)) {
    return make(
      "service_unavailable",
      "A required service is temporarily unavailable; retry shortly",
      {},
      {
        "Retry-After": "1",
      },
    );
  }
  if (isInputRejectedByDatabase(err)) {
    return {
      ...make("invalid_input", "A value in the request is out of range or malformed"),
      suspicious: true,
    };
  }
  return make("internal_error", "Internal server error");
}

/** Whether an error is (or may hide) the service's own fault: logged with its stack. */
export function isServerFault(wire: TWireError): boolean {
  return wire.status >= 500 || wire.suspicious === true;
}
