import {
  createTRPCClient,
  httpBatchLink,
  httpLink,
  splitLink,
  TRPCClientError,
  type TRPCClient,
} from "@trpc/client";
import type { AppRouter } from "@posture/gateway";
import { conditionalFetch, type TConditionalOptions } from "./conditional";
import { MAX_BATCH_ITEMS, MAX_URL_LENGTH } from "./limits";
import { SessionCookies } from "./session-cookies";

type THeaders = Record<string, string>;
type TMaybePromise<T> = T | Promise<T>;

export type TPostureClientOptions = {
  /**
   * The service (`https://posture.example.com`, or `/` from a page the service serves) or its
   * tRPC endpoint (`…/trpc`): `/trpc` is added when the URL does not end with it.
   */
  url: string | URL;
  /** The `fetch` to use instead of the global one (tests, instrumentation, a proxy agent). */
  fetch?: typeof globalThis.fetch;
  /** Extra headers on every request (`X-Request-Id`, tracing); read once per HTTP request. */
  headers?: THeaders | (() => TMaybePromise<THeaders>);
  /**
   * Outside a browser only. The `Cookie` header to send: `svc_session=…` or an incoming request's
   * whole Cookie header (server-side rendering), or a function returning it per request. Without
   * it the client keeps the session that `auth.signIn` sets, as a browser would, and forgets it on
   * `auth.signOut`. In a browser the browser sends its own cookie (`credentials: "include"`).
   */
  cookie?: string | (() => TMaybePromise<string | undefined>);
  /**
   * Opt-in conditional queries: `true` (100 URLs, bodies up to 1 MB) or the bounds. The last body
   * of each query URL is kept with its ETag; the same query again sends `If-None-Match`, and the
   * gateway's 304 (not counted against the rate limit) resolves to the kept body. Off by default:
   * a UI with its own query cache (TanStack Query) may not want a second copy of every answer.
   */
  conditional?: boolean | TConditionalOptions;
};

export type TPostureClient = TRPCClient<AppRouter>;

/** The error a call rejects with; `data.error` is the contract's code (`forbidden`, `not_found`…). */
export type TPostureClientError = TRPCClientError<AppRouter>;

const inBrowser = () => typeof (globalThis as { document?: unknown }).document !== "undefined";

/** `…/trpc` for a service URL, the URL itself for an endpoint URL; relative URLs stay relative. */
export function trpcEndpoint(url: string | URL): string {
  const base = String(url).replace(/\/+$/, "");
  return base.endsWith("/trpc") ? base : `${base}/trpc`;
}

/**
 * A tRPC client of the whole API, signed in with the session cookie.
 *
 * Queries made in the same tick go in one GET (at most 10 calls and 8,000 characters of URL: the
 * gateway's limits, `limits.ts`); mutations go one per POST, so that a batch of writes can never
 * pass the 100 kB body limit together. Every call counts against the session's rate limit, batched
 * or not.
 *
 * CSRF: the gateway refuses a cookie-authenticated write whose `Origin` (or `Sec-Fetch-Site`)
 * names another site. Browsers set those headers themselves, so a page served by the service (or
 * from an origin listed in `ALLOWED_ORIGINS`) passes; a server-side client sends neither and
 * passes. There is no token to send. Cross-origin pages also need the service behind the same
 * origin: it sends no CORS headers.
 */
export function createPostureClient(opts: TPostureClientOptions): TPostureClient {
  const browser = inBrowser();
  if (browser && opts.cookie !== undefined)
    throw new TypeError("createPostureClient: `cookie` is for server-side use; browsers send their own");
  const jar = !browser && opts.cookie === undefined ? new SessionCookies() : null;
  const baseFetch = opts.fetch ?? globalThis.fetch;

  const cookieHeader = async (): Promise<string | undefined> => {
    if (jar) return jar.header();
    return typeof opts.cookie === "function" ? await opts.cookie() : opts.cookie;
  };

  const sessionFetch = async (
    input: Parameters<typeof globalThis.fetch>[0],
    init?: RequestInit,
  ): Promise<Response> => {
    const headers = new Headers(init?.headers);
    if (!browser) {
      const cookie = await cookieHeader();
      if (cookie) headers.set("cookie", cookie);
    }
    const res = await baseFetch(input, { ...init, headers, credentials: "include" });
    jar?.store(res.headers.getSetCookie());
    return res;
  };

  const url = trpcEndpoint(opts.url);
  const headers = async (): Promise<THeaders> =>
    typeof opts.headers === "function" ? await opts.headers() : (opts.headers ?? {});
  const link = { url, fetch: sessionFetch, headers };
  const queryFetch = opts.conditional
    ? conditionalFetch(sessionFetch, opts.conditional === true ? {} : opts.conditional)
    : sessionFetch;

  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "query",
        true: httpBatchLink({
          ...link,
          fetch: queryFetch,
          maxItems: MAX_BATCH_ITEMS,
          maxURLLength: MAX_URL_LENGTH,
        }),
        false: httpLink(link),
      }),
    ],
  });
}

/**
 * The contract's error code of a failed call (`unauthenticated`, `forbidden`…), if it has one:
 * from the procedure's error (`data.error`), or from the gateway's own refusal of the request
 * before any procedure ran (CSRF, rate limit, batch too large), whose body is the contract's
 * `{error, message}` rather than tRPC's envelope.
 */
export function errorCodeOf(err: unknown): string | undefined {
  if (!(err instanceof TRPCClientError)) return undefined;
  const fromProcedure = (err.data as { error?: unknown } | null | undefined)?.error;
  if (typeof fromProcedure === "string") return fromProcedure;
  const body = (err.meta as { responseJSON?: unknown } | undefined)?.responseJSON;
  const fromGateway = (body as { error?: unknown } | null | undefined)?.error;
  return typeof fromGateway === "string" ? fromGateway : undefined;
}
