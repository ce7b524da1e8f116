/** How many bodies the client keeps for conditional GETs, and how large one may be. */
export type ConditionalCacheOptions = {
  /** Distinct URLs remembered, least recently used evicted first (default 100). */
  maxEntries?: number;
  /** A body larger than this is not kept (default 1 MB). */
  maxBodyBytes?: number;
};

type TEntry = { etag: string; body: ArrayBuffer; contentType: string };

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * Wraps `fetch` with conditional GETs: the last JSON body of each URL is kept with its `ETag`
 * (bounded: `maxEntries` URLs, LRU); the next GET of that URL sends `If-None-Match`, and a
 * `304 Not Modified` is answered from the kept body as a 200 carrying the 304's own headers
 * (request id, rate-limit state). The service does not count a 304 against the rate limit, so a
 * client polling a list that has not changed spends nothing. A GET that already carries
 * `If-None-Match` is the caller's own business and passes through untouched.
 */
export function conditionalFetch(
  inner: (request: Request) => Promise<Response>,
  options: ConditionalCacheOptions = {},
): (request: Request) => Promise<Response> {
  const maxEntries = Math.max(1, Math.floor(options.maxEntries ?? 100));
  const maxBodyBytes = options.maxBodyBytes ?? 1_000_000;
  const entries = new Map<string, TEntry>();

  const remember = (key: string, entry: TEntry) => {
    entries.delete(key);
    entries.set(key, entry);
    while (entries.size > maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
  };

  return async (request) => {
    if (request.method !== "GET" || request.headers.has("if-none-match")) return inner(request);
    const key = request.url;
    const entry = entries.get(key);
    if (entry) request.headers.set("If-None-Match", entry.etag);
    const response = await inner(request);
    if (response.status === 304 && entry) {
      remember(key, entry);
      const headers = new Headers(response.headers);
      headers.set("Content-Type", entry.contentType);
      headers.delete("Content-Length");
      return new Response(entry.body.slice(0), { status: 200, statusText: "OK", headers });
    }
    const etag = response.headers.get("etag");
    const contentType = response.headers.get("content-type") ?? "";
    if (response.status === 200 && etag && JSON_TYPE.test(contentType)) {
      const body = await response.clone().arrayBuffer();
      if (body.byteLength <= maxBodyBytes) remember(key, { etag, body, contentType });
      else entries.delete(key);
    } else {
      entries.delete(key);
    }
    return response;
  };
}
