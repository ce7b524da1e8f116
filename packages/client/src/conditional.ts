type TFetch = (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) => Promise<Response>;

/** Conditional queries (opt-in): how many bodies the client keeps, and how large one may be. */
export type TConditionalOptions = {
  /** Distinct query URLs remembered, least recently used evicted first (default 100). */
  maxEntries?: number;
  /** A body larger than this is not kept (default 1 MB). */
  maxBodyBytes?: number;
};

type TEntry = { etag: string; body: ArrayBuffer; contentType: string };

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * Wraps the queries' `fetch` with conditional GETs: the last JSON body of each query URL (a
 * batch's URL names every call and input in it) is kept with its `ETag`, bounded by `maxEntries`
 * (LRU); the next identical GET sends `If-None-Match`, and the gateway's `304 Not Modified` — not
 * counted against the rate limit — is answered from the kept body as a 200 with the 304's headers.
 * Kept per client: `auth.signOut` on the same client does not clear it, but a kept body only ever
 * answers a request whose current answer the server says is byte for byte the same.
 */
export function conditionalFetch(inner: TFetch, options: TConditionalOptions = {}): TFetch {
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

  return async (input, init) => {
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    const key = input instanceof Request ? input.url : String(input);
    const headers = new Headers(init?.headers);
    if (method !== "GET" || headers.has("if-none-match")) return inner(input, init);
    const entry = entries.get(key);
    if (entry) headers.set("If-None-Match", entry.etag);
    const response = await inner(input, { ...init, headers });
    if (response.status === 304 && entry) {
      remember(key, entry);
      const out = new Headers(response.headers);
      out.set("Content-Type", entry.contentType);
      out.delete("Content-Length");
      return new Response(entry.body.slice(0), { status: 200, statusText: "OK", headers: out });
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
