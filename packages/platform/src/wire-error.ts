import { TRPCError } from "@trpc/server";
import { AppError, ERROR_STATUS, type TErrorBody, type TErrorCode } from "./errors";

export type TWireError = { status: number; body: TErrorBody; headers: Record<string, string> };

type TIssue = { path: PropertyKey[]; message: string };

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
      details: cause.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    });
  }
  if (err instanceof TRPCError) {
    const mapped = TRPC_TO_CODE[err.code];
    if (mapped) return make(mapped.code, mapped.message);
  }
  return make("internal_error", "Internal server error");
}

/** Whether an error is the service's own fault (to be logged with its stack). */
export function isServerFault(wire: TWireError): boolean {
  return wire.status >= 500;
}
