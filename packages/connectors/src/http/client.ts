import { parseRetryAfter } from "@posture/platform";
import { SourceAuthError, SourceUnavailableError } from "../types";
import { apiErrorMessage, SourceHttpError } from "./errors";
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  realSleep,
  RETRYABLE_STATUS,
  type TRetryPolicy,
  type TSleep,
} from "./retry";

export type TTokenProvider = {
  getToken: () => Promise<string>;
  /** Forget a cached token the API just refused, so the next call fetches a fresh one. */
  invalidate: () => void;
};

/** Transport knobs shared by every adapter; tests inject sleep and fetch, production uses defaults. */
export type THttpOptions = {
  fetch?: typeof fetch;
  timeoutMs?: number;
  retry?: Partial<TRetryPolicy>;
  sleep?: TSleep;
  random?: () => number;
};

export type TQuery = Record<string, string | number | boolean | undefined>;

/**
 * Per-request options. `headers`: extra request headers an API asks for on some calls (Graph's
 * `ConsistencyLevel: eventual` for advanced queries such as `$count`); they never replace the
 * client's own `authorization`, `accept` or `content-type`.
 */
export type TRequestOptions = { headers?: Readonly<Record<string, string>> };

export type TJsonClient = {
  /** GET a path relative to the base URL, or an absolute URL on the same origin (a next-page link). */
  get: <T>(pathOrUrl: string, query?: TQuery, options?: TRequestOptions) => Promise<T>;
  /** POST (an action) with an optional JSON body, read like `get`. */
  post: <T>(pathOrUrl: string, query?: TQuery, body?: unknown, options?: TRequestOptions) => Promise<T>;
  /**
   * The authorized request itself, retried and with one fresh token after a 401, its final
   * response unread: for APIs whose answers need more than `readJson` (headers, error codes).
   */
  send: (
    method: "GET" | "POST",
    pathOrUrl: string,
    query?: TQuery,
    body?: unknown,
    options?: TRequestOptions,
  ) => Promise<Response>;
};

const DEFAULT_TIMEOUT_MS = 30_000;

type TRequest = { url: string; init: RequestInit };

/**
 * Sends a request until it gets a non-retryable answer: network errors, timeouts and
 * 429/5xx are retried with back-off; exhausting the attempts is a SourceUnavailableError.
 */
export async function sendWithRetry(
  source: string,
  build: () => Promise<TRequest> | TRequest,
  http: THttpOptions = {},
): Promise<Response> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...http.retry };
  const doFetch = http.fetch ?? fetch;
  const sleep = http.sleep ?? realSleep;
  const timeoutMs = http.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let lastProblem = "no attempt made";

  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
    const { url, init } = await build();
    let retryAfterMs: number | null = null;
    try {
      const response = await doFetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      if (!RETRYABLE_STATUS.has(response.status) && !(await isRateLimit403(response))) return response;
      retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
      const body: unknown = await response.json().catch(() => null);
      lastProblem = `HTTP ${response.status}: ${apiErrorMessage(body, response.statusText)}`;
    } catch (error) {
      if (error instanceof SourceAuthError) throw error;
      lastProblem = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    if (attempt < policy.maxAttempts) await sleep(backoffDelay(attempt, policy, retryAfterMs, http.random));
  }
  throw new SourceUnavailableError(
    `${source} unavailable after ${policy.maxAttempts} attempts (${lastProblem})`,
  );
}

// Google APIs signal quota exhaustion as 403 with these reasons; they clear with back-off, unlike a real denial.
const RATE_LIMIT_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded"]);

async function isRateLimit403(response: Response): Promise<boolean> {
  if (response.status !== 403) return false;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null);
  const errors = (body as { error?: { errors?: Array<{ reason?: unknown }> } } | null)?.error?.errors;
  return (
    Array.isArray(errors) &&
    errors.some((e) => typeof e.reason === "string" && RATE_LIMIT_REASONS.has(e.reason))
  );
}

/** Reads a final (non-retryable) response: 2xx → JSON, 401/403 → SourceAuthError, else SourceHttpError. */
export async function readJson<T>(source: string, response: Response): Promise<T> {
  const body: unknown = await response.json().catch(() => null);
  if (response.ok) return body as T;
  const message = `${source}: ${apiErrorMessage(body, response.statusText)} (HTTP ${response.status})`;
  if (response.status === 401 || response.status === 403) throw new SourceAuthError(message);
  throw new SourceHttpError(message, response.status);
}

function buildUrl(baseUrl: string, pathOrUrl: string, query: TQuery | undefined): string {
  const base = new URL(baseUrl);
  const url = /^https?:\/\//.test(pathOrUrl)
    ? new URL(pathOrUrl)
    : new URL(base.pathname.replace(/\/$/, "") + pathOrUrl, base);
  // Next-page links come from the response body; following one to another host would hand it our token.
  if (url.origin !== base.origin)
    throw new SourceHttpError(`Refusing to follow a link off ${base.origin}`, 400);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.toString();
}

/** The headers the client sets itself: an option naming one (in any case) is left out. */
const OWN_HEADERS = new Set(["authorization", "accept", "content-type"]);

function extraHeaders(options: TRequestOptions | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(options?.headers ?? {}).filter(([name]) => !OWN_HEADERS.has(name.toLowerCase())),
  );
}

export function createJsonClient(opts: {
  source: string;
  baseUrl: string;
  tokens: TTokenProvider;
  http?: THttpOptions;
}): TJsonClient {
  const { source, baseUrl, tokens, http } = opts;
  const send: TJsonClient["send"] = async (method, pathOrUrl, query, body, options) => {
    const url = buildUrl(baseUrl, pathOrUrl, query);
    const build = async (): Promise<TRequest> => ({
      url,
      init: {
        method,
        headers: {
          ...extraHeaders(options),
          authorization: `Bearer ${await tokens.getToken()}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      },
    });
    let response = await sendWithRetry(source, build, http);
    if (response.status === 401) {
      // A cached token can be revoked or expire early; one fresh token decides whether access is really gone.
      await response.body?.cancel();
      tokens.invalidate();
      response = await sendWithRetry(source, build, http);
    }
    return response;
  };
  return {
    send,
    get: async <T>(pathOrUrl: string, query?: TQuery, options?: TRequestOptions) =>
      readJson<T>(source, await send("GET", pathOrUrl, query, undefined, options)),
    post: async <T>(pathOrUrl: string, query?: TQuery, body?: unknown, options?: TRequestOptions) =>
      readJson<T>(source, await send("POST", pathOrUrl, query, body, options)),
  };
}
