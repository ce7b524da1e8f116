import { parseRetryAfter } from "@posture/platform";
import { sendWithRetry, type THttpOptions, type TTokenProvider } from "../http/client";
import { apiErrorMessage } from "../http/errors";
import { SourceAuthError, SourceUnavailableError } from "../types";
import { SourceWriteError } from "../write";

// One Google write (or the read before it), sent through the connectors' retrying transport and
// answered in the writer's terms: the JSON body of a 2xx, a `notFound` the caller decides about,
// or the error the TSourceWriter contract names (write.ts). The transport rides out 429, 5xx and
// Google's 403 rate limits with back-off and Retry-After; what it could not ride out is reported
// with the last throttled answer's reason and Retry-After, never retried here a second time.

export const SOURCE = "Google Workspace";

type TMethod = "GET" | "POST" | "PATCH" | "DELETE";
export type TQuery = Record<string, string | number | boolean | undefined>;

/** Google's JSON error body (`{error: {code, message, errors: [{reason, location}], status}}`). */
type TGoogleErrorBody = {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    errors?: Array<{ reason?: string; message?: string; location?: string }>;
    details?: Array<{ reason?: string }>;
  };
};

/** A 404, with what Google said was not found (`fileId`, `permissionId`, …) when it said so. */
export type TNotFound = { notFound: true; location: string | null; message: string };

export type TWriteAnswer<T> = { body: T } | TNotFound;

/** Google's words for a scope the token lacks (403), or a scope the delegation does not grant. */
const SCOPE_NOT_DELEGATED = "not authorized for any of the scopes requested";

function reasonOf(body: unknown): string | null {
  const error = (body as TGoogleErrorBody | null)?.error;
  return error?.errors?.find((e) => typeof e.reason === "string")?.reason ?? null;
}

function locationOf(body: unknown): string | null {
  const error = (body as TGoogleErrorBody | null)?.error;
  return error?.errors?.find((e) => typeof e.location === "string")?.location ?? null;
}

function isScopeRefusal(body: unknown): boolean {
  const error = (body as TGoogleErrorBody | null)?.error;
  return (
    reasonOf(body) === "insufficientPermissions" ||
    (error?.details ?? []).some((d) => d.reason === "ACCESS_TOKEN_SCOPE_INSUFFICIENT") ||
    /insufficient authentication scopes/i.test(error?.message ?? "")
  );
}

const RATE_LIMIT_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded"]);

/** What the transport last saw of a throttling or failing answer, read before it retried. */
type TLastThrottle = { status: number; reason: string | null; message: string; retryAfterMs: number | null };

export type TWriteTarget = {
  baseUrl: string;
  tokens: TTokenProvider;
  /** The scope the request's token carries, named in the error when Google says it is missing. */
  scope: string;
  /** Whom the request acts as, for messages. */
  subject: string;
};

export async function googleWrite<T>(
  target: TWriteTarget,
  method: TMethod,
  path: string,
  query: TQuery,
  body: unknown,
  http: THttpOptions = {},
): Promise<TWriteAnswer<T>> {
  const url = new URL(target.baseUrl.replace(/\/$/, "") + path);
  for (const [key, value] of Object.entries(query))
    if (value !== undefined) url.searchParams.set(key, String(value));
  let last: TLastThrottle | null = null;
  const doFetch = http.fetch ?? fetch;
  // The transport reads (and discards) a retryable answer; this keeps its reason and Retry-After.
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await doFetch(input, init);
    if (response.status === 429 || response.status >= 500 || response.status === 403) {
      const answer: unknown = await response
        .clone()
        .json()
        .catch(() => null);
      const reason = reasonOf(answer);
      if (response.status !== 403 || (reason && RATE_LIMIT_REASONS.has(reason)))
        last = {
          status: response.status,
          reason,
          message: apiErrorMessage(answer, response.statusText),
          retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
        };
    } else last = null;
    return response;
  };
  const transport = { ...http, fetch: recordingFetch };
  const build = async () => ({
    url: url.toString(),
    init: {
      method,
      headers: {
        authorization: `Bearer ${await target.tokens.getToken()}`,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    },
  });

  let response: Response;
  try {
    response = await sendWithRetry(SOURCE, build, transport);
    if (response.status === 401) {
      // A cached token can be revoked or expire early; one fresh token decides.
      await response.body?.cancel();
      target.tokens.invalidate();
      response = await sendWithRetry(SOURCE, build, transport);
    }
  } catch (error) {
    throw mapTransportError(error, last, target);
  }

  const text = await response.text();
  let answer: unknown = null;
  try {
    answer = text === "" ? null : (JSON.parse(text) as unknown);
  } catch {
    answer = null;
  }
  if (response.ok) return { body: answer as T };
  const message = `${SOURCE}: ${apiErrorMessage(answer, response.statusText)} (HTTP ${response.status})`;
  if (response.status === 401) throw new SourceAuthError(message);
  if (response.status === 404)
    return { notFound: true, location: locationOf(answer), message: apiErrorMessage(answer, "Not Found") };
  if (response.status === 403 && isScopeRefusal(answer))
    throw new SourceWriteError(
      403,
      "insufficientPermissions",
      `${message}: this change needs the ${target.scope} scope, which the connection was not granted`,
    );
  throw new SourceWriteError(response.status, reasonOf(answer) ?? `http_${response.status}`, message);
}

function mapTransportError(error: unknown, last: TLastThrottle | null, target: TWriteTarget): unknown {
  if (error instanceof SourceAuthError) {
    // The token endpoint refuses a scope the domain-wide delegation does not list.
    if (error.message.includes(SCOPE_NOT_DELEGATED))
      return new SourceWriteError(
        403,
        "insufficientPermissions",
        `${error.message} This change needs the ${target.scope} scope in the service account's ` +
          `domain-wide delegation (acting as ${target.subject}).`,
      );
    return error;
  }
  if (!(error instanceof SourceUnavailableError) || !last) return error;
  const throttled = last.status === 429 || last.status === 403;
  if (throttled || (last.status === 503 && last.retryAfterMs !== null))
    return new SourceWriteError(
      throttled ? 429 : 503,
      last.reason ?? (throttled ? "rateLimitExceeded" : "backendError"),
      `${SOURCE}: ${last.message} (still HTTP ${last.status} after the client's retries)`,
      last.retryAfterMs ?? undefined,
    );
  return error;
}
