import { describe, expect, it } from "vitest";
import { json, useScriptedServer } from "./testing/scripted-server";

// Conditional GETs against a scripted server that answers 304 exactly when If-None-Match names
// the current version of each URL.
const { state, client } = useScriptedServer();
const seen = state.seen;

let version = 1;
function versioned() {
  state.fallback = (req, res) => {
    const url = new URL(req.url, "http://x");
    const tag = `"${url.pathname}-${url.search}-v${version}"`;
    if (req.headers["if-none-match"] === tag) {
      res.writeHead(304, {
        etag: tag,
        "x-request-id": `r${seen.length}`,
        ratelimit: '"authenticated";r=59;t=60',
      });
      res.end();
      return;
    }
    json(res, 200, { connectors: [{ id: `${url.pathname}${url.search}`, version }] }, { etag: tag });
  };
}

describe("conditional GETs", () => {
  it("sends If-None-Match of the last body and resolves a 304 to that body", async () => {
    version = 1;
    versioned();
    const api = client();
    const first = await api.get("/connectors");
    expect(first).toEqual({ connectors: [{ id: "/api/connectors", version: 1 }] });
    expect(seen[0]?.headers["if-none-match"]).toBeUndefined();
    const second = await api.get("/connectors");
    expect(seen[1]?.headers["if-none-match"]).toBe('"/api/connectors--v1"');
    expect(second).toEqual(first);
    // The 304's own headers reach the caller (raw response).
    const raw = await api.raw.GET("/connectors");
    expect(raw.response.status).toBe(200);
    expect(raw.response.headers.get("x-request-id")).toBe("r3");
    expect(raw.response.headers.get("ratelimit")).toBe('"authenticated";r=59;t=60');
    expect(raw.data).toEqual(first);

    version = 2;
    const changed = await api.get("/connectors");
    expect(changed).toEqual({ connectors: [{ id: "/api/connectors", version: 2 }] });
    expect(seen[3]?.headers["if-none-match"]).toBe('"/api/connectors--v1"');
    expect(await api.get("/connectors")).toEqual(changed);
    expect(seen[4]?.headers["if-none-match"]).toBe('"/api/connectors--v2"');
  });

  it("keeps one body per URL (query included), at most maxEntries, least recently used out first", async () => {
    version = 1;
    versioned();
    const api = client({ cache: { maxEntries: 2 } });
    const get = (limit: number) => api.get("/findings", { params: { query: { limit } } });
    await get(1);
    await get(2);
    await get(1); // revalidated: now the most recently used
    expect(seen[2]?.headers["if-none-match"]).toBe('"/api/findings-?limit=1-v1"');
    await get(3); // evicts limit=2
    await get(2);
    expect(seen[4]?.headers["if-none-match"]).toBeUndefined();
    await get(1);
    expect(seen[5]?.headers["if-none-match"]).toBeUndefined(); // evicted by limit=2 coming back
    await get(2);
    expect(seen[6]?.headers["if-none-match"]).toBe('"/api/findings-?limit=2-v1"');
  });

  it("keeps nothing when turned off, for bodies over the size cap, or without an ETag", async () => {
    version = 1;
    versioned();
    const off = client({ cache: false });
    await off.get("/connectors");
    await off.get("/connectors");
    expect(seen[1]?.headers["if-none-match"]).toBeUndefined();
    const small = client({ cache: { maxBodyBytes: 10 } });
    await small.get("/connectors");
    await small.get("/connectors");
    expect(seen[3]?.headers["if-none-match"]).toBeUndefined();
    state.fallback = (_req, res) => json(res, 200, { connectors: [] });
    const untagged = client();
    await untagged.get("/connectors");
    await untagged.get("/connectors");
    expect(seen[5]?.headers["if-none-match"]).toBeUndefined();
  });
});
