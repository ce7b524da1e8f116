// One error type for every layer below the transport, one table from code to HTTP status.
export const ERROR_STATUS = {
  invalid_input: 400,
  integration_not_configured: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  plan_upgrade_required: 402,
  plan_limit_reached: 402,
  forbidden: 403,
  session_required: 403,
  /** Four eyes: only an OWNER may weaken a control (turn four eyes off, raise a cap…) while it is on. */
  owner_required: 403,
  partner_required: 403,
  /** An API key whose scopes do not cover the call (a `read` key on anything but a GET). */
  insufficient_scope: 403,
  csrf_rejected: 403,
  /** A sandbox operation (scenarios, reset) in an organization that is not a sandbox. */
  sandbox_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  ticket_exists: 409,
  invalid_transition: 409,
  /** Four eyes: the planner may not approve their own remediation. */
  self_approval: 409,
  conflict: 409,
  /** An undo of a remediation none of whose applied steps can be put back. */
  nothing_to_undo: 409,
  /** A real (non-demo) source in a sandbox organization: its sources are demo sources. */
  sandbox_demo_only: 409,
  expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  upstream_unavailable: 502,
  service_unavailable: 503,
} as const;

export type TErrorCode = keyof typeof ERROR_STATUS;

export type TErrorBody = { error: TErrorCode; message: string } & Record<string, unknown>;

export class AppError extends Error {
  readonly code: TErrorCode;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: TErrorCode,
    message: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.extra = extra;
    this.headers = headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): TErrorBody {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

export const notFound = (what = "Resource") => new AppError("not_found", `${what} not found`);

/**
 * The org-scoped "get or 404": the first row of a query that already filtered on the caller's
 * organization, or 404 — the same answer for a missing id and another organization's id.
 */
export function firstOr404<T>(rows: readonly T[], what = "Resource"): T {
  const [row] = rows;
  if (row === undefined) throw notFound(what);
  return row;
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
