import { parseRetryAfter } from "@posture/platform";
import { type THttpOptions, type TQuery, type TTokenProvider } from "../http/client";
import { SourceHttpError } from "../http/errors";
import { backoffDelay, DEFAULT_RETRY_POLICY, realSleep, type TRetryPolicy } from "../http/retry";
import { SourceAuthError, SourceUnavailableError } from "../types";

// GitHub's REST API as the connector calls it: the headers GitHub asks every client to send, its
// two kinds of rate limit told apart from a refusal and waited out as GitHub's documentation
// says ("Rate limits for the REST API" › "Exceeding the rate limit"): `retry-after` when sent;
// else, when `x-ratelimit-remaining` is 0, until `x-ratelimit-reset`; else at least a minute.
// 5xx and network errors back off like the other sources; a 401 gets one fresh token (an
// installation token lasts an hour and can end early); lists follow `Link: rel="next"`.

export const GITHUB_API_URL = "https://api.github.com";
export const GITHUB_API_VERSION = "2022-11-28";
const USER_AGENT = "posture-connector";

export type TGithubHttpOptions = THttpOptions & {
  /** Epoch ms, for `x-ratelimit-reset`; the tests' clock. */
  now?: () => number;
  /** The longest rate-limit wait accepted; beyond it the source is unavailable (default 15 min). */
  maxRateLimitWaitMs?: number;
  /** How many rate-limit waits one request may take (default 5). */
  maxRateLimitWaits?: number;
};

/** A final GitHub error answer: the status, GitHub's message and, on a 403, the permissions it wanted. */
export class GithubApiError extends SourceHttpError {
  constructor(
    message: string,
    status: number,
    /** `x-accepted-github-permissions`, e.g. "members=read". */
    readonly acceptedPermissions: string | null,
  ) {
    super(message, status);
    this.name = "GithubApiError";
  }
}

const SECONDARY_DEFAULT_MS = 60_000;

/** How long to wait before retrying a rate-limited answer; null when the answer is no rate limit. */
export async function rateLimitWait(response: Response, nowMs: number): Promise<number | null> {
  if (response.status !== 403 && response.status !== 429) return null;
  const retryAfter = parseRetryAfter(response.headers.get("retry-after"), nowMs);
  if (retryAfter !== null) return retryAfter;
  if (response.headers.get("x-ratelimit-remaining") === "0") {
    const reset = Number(response.headers.get("x-ratelimit-reset"));
    if (Number.isFinite(reset)) return Math.max(1000, reset * 1000 - nowMs + 1000);
  }
  if (response.status === 429) return SECONDARY_DEFAULT_MS;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { message?: unknown } | null;
  return typeof body?.message === "string" && /rate limit/i.test(body.message) ? SECONDARY_DEFAULT_MS : null;
}

export type TGithubRequest = {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  body?: unknown;
};

/**
 * Sends one request until it gets an answer worth reading: rate limits waited out, 5xx and network
 * errors retried with back-off, one fresh token after a 401. Returns the final response unread.
 */
export async function sendGithub(
  request: TGithubRequest,
  tokens: TTokenProvider,
  http: TGithubHttpOptions = {},
): Promise<Response> {
  const policy: TRetryPolicy = { ...DEFAULT_RETRY_POLICY, ...http.retry };
  const doFetch = http.fetch ?? fetch;
  const sleep = http.sleep ?? realSleep;
  const now = http.now ?? Date.now;
  const maxWait = http.maxRateLimitWaitMs ?? 15 * 60_000;
  const maxWaits = http.maxRateLimitWaits ?? 5;
  let failures = 0;
  let waits = 0;
  let refreshed = false;
  let lastProblem = "no attempt made";
  for (;;) {
    let response: Response | null = null;
    try {
      response = await doFetch(request.url, {
        method: request.method,
        headers: {
          authorization: `Bearer ${await tokens.getToken()}`,
          accept: "application/vnd.github+json",
          "x-github-api-version": GITHUB_API_VERSION,
          "user-agent": USER_AGENT,
          ...(request.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(http.timeoutMs ?? 30_000),
      });
    } catch (error) {
      if (error instanceof SourceAuthError) throw error;
      lastProblem = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    if (response) {
      if (response.status === 401 && !refreshed) {
        await response.body?.cancel();
        tokens.invalidate();
        refreshed = true;
        continue;
      }
      const wait = await rateLimitWait(response, now());
      if (wait !== null) {
        const reset = response.headers.get("x-ratelimit-reset");
        await response.body?.cancel();
        if (wait > maxWait || ++waits > maxWaits)
          throw new SourceUnavailableError(
            `GitHub rate limit: ${request.method} ${new URL(request.url).pathname} may not be retried for ${Math.ceil(wait / 1000)} s${reset ? ` (reset at ${new Date(Number(reset) * 1000).toISOString()})` : ""}`,
          );
        await sleep(wait);
        continue;
      }
      if (response.status < 500) return response;
      lastProblem = `HTTP ${response.status}`;
      await response.body?.cancel();
    }
    if (++failures >= policy.maxAttempts)
      throw new SourceUnavailableError(
        `GitHub unavailable after ${policy.maxAttempts} attempts (${lastProblem})`,
      );
    await sleep(backoffDelay(failures, policy, null, http.random));
  }
}

/** A final response: 2xx → its JSON; 401 → SourceAuthError; else a GithubApiError with GitHub's message. */
export async function readGithub<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => null)) as { message?: unknown } | null;
  if (response.ok) return body as T;
  const message = `GitHub: ${typeof body?.message === "string" ? body.message : response.statusText} (HTTP ${response.status})`;
  if (response.status === 401) throw new SourceAuthError(message);
  throw new GithubApiError(message, response.status, response.headers.get("x-accepted-github-permissions"));
}

/** The `rel="next"` target of a Link header (RFC 8288), or null on the last page. */
export function nextLink(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(",")) {
    const match = /^\s*<([^>]+)>\s*;\s*rel="([^"]+)"/.exec(part);
    if (match?.[2]?.split(/\s+/).includes("next")) return match[1] ?? null;
  }
  return null;
}

export type TGithubClient = {
  get: <T>(path: string, query?: TQuery) => Promise<T>;
  /** Every item of a paged list, 100 a page, following `Link: rel="next"`; `pick` unwraps an envelope. */
  list: <T>(path: string, query?: TQuery, pick?: (body: unknown) => T[]) => AsyncGenerator<T>;
  /** One write (PUT, PATCH, DELETE, POST): the final status and its JSON body (null when there is none). */
  send: (
    method: "PUT" | "PATCH" | "DELETE" | "POST",
    path: string,
    body?: unknown,
  ) => Promise<{ status: number; body: unknown }>;
};

export function createGithubClient(opts: {
  baseUrl?: string;
  tokens: TTokenProvider;
  http?: TGithubHttpOptions;
}): TGithubClient {
  const base = new URL(opts.baseUrl ?? GITHUB_API_URL);
  const urlOf = (path: string, query: TQuery = {}) => {
    const url = new URL(base.pathname.replace(/\/$/, "") + path, base);
    for (const [key, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(key, String(value));
    return url.toString();
  };
  const get = async <T>(url: string): Promise<{ body: T; next: string | null }> => {
    const response = await sendGithub({ method: "GET", url }, opts.tokens, opts.http);
    const next = nextLink(response.headers.get("link"));
    return { body: await readGithub<T>(response), next };
  };
  return {
    get: async <T>(path: string, query?: TQuery) => (await get<T>(urlOf(path, query))).body,
    list: async function* <T>(path: string, query: TQuery = {}, pick?: (body: unknown) => T[]) {
      let url: string | null = urlOf(path, { ...query, per_page: 100 });
      while (url) {
        // The next link comes from the answer; following one to another host would hand it our token.
        if (new URL(url).origin !== base.origin)
          throw new SourceHttpError(`Refusing to follow a link off ${base.origin}`, 400);
        const page: { body: unknown; next: string | null } = await get<unknown>(url);
        yield* pick ? pick(page.body) : (page.body as T[]);
        url = page.next;
      }
    },
    send: async (method, path, body) => {
      const response = await sendGithub(
        { method, url: urlOf(path), ...(body === undefined ? {} : { body }) },
        opts.tokens,
        opts.http,
      );
      if (response.status === 204) return { status: 204, body: null };
      return { status: response.status, body: await readGithub<unknown>(response) };
    },
  };
}
