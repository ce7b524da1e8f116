import createFetchClient, {
  type Client,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware,
} from "openapi-fetch";
import { conditionalFetch, type ConditionalCacheOptions } from "./conditional.js";
import { ApiError } from "./errors.js";
import { paginate, type PaginatedPath, type PageItem } from "./paginate.js";
import { retryingFetch, type RetryOptions, type RetryWait } from "./retry.js";
import type { paths } from "./schema.js";
import type { HttpMethod, InitParam, MediaType, PathsWithMethod } from "./types.js";

export const SDK_VERSION = "0.1.0";

export type ClientOptions = {
  /** The service's address, e.g. `https://posture.example.org`; `/api` is added unless it ends in it. */
  baseUrl: string;
  /** `svc_ak_…`, sent as `Authorization: Bearer`. */
  apiKey: string;
  /** A fetch of your own (a proxy agent, a test double); default: the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries of a 429 or 503 (default 2; 0 turns them off). */
  retries?: number;
  /** The longest server-requested wait that is waited out (default 60 000 ms). */
  maxRetryDelayMs?: number;
  /** First back-off when the server gives no hint (default 500 ms). */
  retryBaseDelayMs?: number;
  /** Called before each retry's wait, e.g. to log `waiting 57 s (429)`; default: nothing. */
  onRetry?: (wait: RetryWait) => void;
  /** Generates the Idempotency-Key of each write (default: a random UUID); return null to send none. */
  idempotencyKey?: (request: Request) => string | null;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /**
   * Conditional GETs (default on: 100 URLs, bodies up to 1 MB): the last JSON body of each URL
   * is kept with its ETag, the next GET sends `If-None-Match`, and a 304 — not counted against
   * the rate limit — resolves to the kept body. `false` turns it off.
   */
  cache?: ConditionalCacheOptions | false;
};

/** What a call resolves to: the 2xx body, typed from the OpenAPI document. */
export type ResponseData<Path extends keyof paths, Method extends HttpMethod> = NonNullable<
  FetchResponse<paths[Path][Method] & Record<string | number, unknown>, object, MediaType>["data"]
>;

type Call<Method extends HttpMethod> = <
  Path extends PathsWithMethod<paths, Method>,
  Init extends MaybeOptionalInit<paths[Path], Method>,
>(
  path: Path,
  ...init: InitParam<Init>
) => Promise<ResponseData<Path, Method>>;

/** A download, not read: `stream` is the body as the server sends it. */
export type Download = {
  stream: ReadableStream<Uint8Array>;
  contentType: string | null;
  /** From Content-Disposition, when the server names the file. */
  filename: string | null;
  /** Content-Length, when known. */
  size: number | null;
  response: Response;
};

export type PostureClient = {
  get: Call<"get">;
  post: Call<"post">;
  put: Call<"put">;
  patch: Call<"patch">;
  delete: Call<"delete">;
  /** GET a file (PDF, ZIP, CSV, NDJSON) as a web ReadableStream, never buffered. */
  download: <Path extends PathsWithMethod<paths, "get">, Init extends MaybeOptionalInit<paths[Path], "get">>(
    path: Path,
    ...init: InitParam<Init>
  ) => Promise<Download>;
  /** Every item of a list, page after page (offset, cursor or page numbered: see README). */
  paginate: <Path extends PaginatedPath, Init extends MaybeOptionalInit<paths[Path], "get">>(
    path: Path,
    ...init: InitParam<Init>
  ) => AsyncGenerator<PageItem<Path>, void, undefined>;
  /** The openapi-fetch client underneath: `{data, error, response}` results, same retries and keys. */
  raw: Client<paths>;
};

const WRITES = new Set(["POST", "PATCH", "PUT", "DELETE"]);

/** `…/api` as the document's server says; a bare origin gets `/api` added. */
export function apiBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  return trimmed.endsWith("/api") ? trimmed : `${trimmed}/api`;
}

function filenameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(disposition)?.[1];
  if (star) return decodeURIComponent(star.trim().replace(/^"|"$/g, ""));
  return /filename\s*=\s*"?([^";]+)"?/i.exec(disposition)?.[1] ?? null;
}

export function createClient(options: ClientOptions): PostureClient {
  const inner = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retry: RetryOptions = {
    retries: Math.max(0, Math.floor(options.retries ?? 2)),
    maxDelayMs: options.maxRetryDelayMs ?? 60_000,
    baseDelayMs: options.retryBaseDelayMs ?? 500,
    onRetry: options.onRetry,
  };
  const keyFor = options.idempotencyKey ?? (() => crypto.randomUUID());
  const raw = createFetchClient<paths>({
    baseUrl: apiBaseUrl(options.baseUrl),
    fetch:
      options.cache === false
        ? retryingFetch(inner, retry)
        : conditionalFetch(retryingFetch(inner, retry), options.cache),
    headers: {
      "User-Agent": `posture-sdk/${SDK_VERSION}`,
      ...options.headers,
      Authorization: `Bearer ${options.apiKey}`,
    },
  });
  // The key is set once, before the retrying fetch, so every attempt of one call carries the same.
  const idempotency: Middleware = {
    onRequest({ request }) {
      if (!WRITES.has(request.method) || request.headers.has("idempotency-key")) return undefined;
      const key = keyFor(request);
      if (key !== null) request.headers.set("Idempotency-Key", key);
      return request;
    },
  };
  raw.use(idempotency);

  type TAny = (
    path: string,
    init?: Record<string, unknown>,
  ) => Promise<FetchResponse<never, object, MediaType>>;
  const call =
    (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE") =>
    async (path: string, init?: Record<string, unknown>): Promise<unknown> => {
      const { data, error, response } = await (raw[method] as unknown as TAny)(path, init);
      if (error !== undefined || !response.ok) throw new ApiError({ response, body: error, method });
      return data;
    };

  const download = async (path: string, init?: Record<string, unknown>): Promise<Download> => {
    const { data, error, response } = await (raw.GET as unknown as TAny)(path, {
      ...init,
      parseAs: "stream",
    });
    if (error !== undefined || !response.ok) throw new ApiError({ response, body: error, method: "GET" });
    const stream = (data as ReadableStream<Uint8Array> | null) ?? new Blob([]).stream();
    const length = response.headers.get("content-length");
    return {
      stream,
      contentType: response.headers.get("content-type"),
      filename: filenameOf(response.headers.get("content-disposition")),
      size: length === null ? null : Number(length),
      response,
    };
  };

  const get = call("GET");
  return {
    get: get as PostureClient["get"],
    post: call("POST") as PostureClient["post"],
    put: call("PUT") as PostureClient["put"],
    patch: call("PATCH") as PostureClient["patch"],
    delete: call("DELETE") as PostureClient["delete"],
    download: download as PostureClient["download"],
    paginate: ((path: string, init?: Record<string, unknown>) =>
      paginate((p, i) => get(p, i), path, init)) as PostureClient["paginate"],
    raw,
  };
}
