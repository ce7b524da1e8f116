import type { components } from "./schema.js";

/** The contract's error body: `{error, message, ...}`; unknown fields are kept, never relied on. */
export type ErrorBody = components["schemas"]["Error"];
export type ErrorCode = ErrorBody["error"];

/**
 * Any answer outside 2xx. `code` is the contract's error code (`not_found`, `rate_limited`, …), or
 * `"unknown"` when the body is not the contract's (a proxy's HTML page, say); `requestId` is the
 * gateway's `X-Request-Id`, worth quoting in a support request.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  readonly code: ErrorCode | "unknown";
  readonly requestId: string | null;
  readonly details: ErrorBody["details"];
  readonly upgrade: ErrorBody["upgrade"];
  /** Seconds, from `Retry-After` (429, 503), when the server sent one. */
  readonly retryAfter: number | null;
  readonly body: unknown;
  readonly headers: Headers;
  readonly method: string;
  readonly url: string;

  constructor(p: { response: Response; body: unknown; method: string }) {
    const body = isErrorBody(p.body) ? p.body : null;
    const status = p.response.status;
    super(body?.message ?? `HTTP ${status} from ${p.method} ${p.response.url}`);
    this.status = status;
    this.code = body?.error ?? "unknown";
    this.requestId = p.response.headers.get("x-request-id");
    this.details = body?.details;
    this.upgrade = body?.upgrade;
    this.retryAfter = parseRetryAfter(p.response.headers.get("retry-after"), Date.now());
    this.body = p.body;
    this.headers = p.response.headers;
    this.method = p.method;
    this.url = p.response.url;
  }
}

function isErrorBody(v: unknown): v is ErrorBody {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as { error?: unknown }).error === "string" &&
    typeof (v as { message?: unknown }).message === "string"
  );
}

/** `Retry-After` as seconds: whole seconds, or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export type WebhookVerificationReason =
  | "missing_header"
  | "invalid_signature"
  | "timestamp_out_of_tolerance"
  | "invalid_timestamp"
  | "invalid_payload";

/** A delivery that must not be trusted; `reason` says which check refused it. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}
