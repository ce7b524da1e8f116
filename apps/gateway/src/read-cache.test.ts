import { gunzipSync, brotliDecompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { preferredEncoding } from "./middleware/read-cache";
import { ReadCache } from "./read-cache";

const answer = (epoch: string, body: string, storedAt = 0) => ({
  epoch,
  storedAt,
  body: Buffer.from(body),
  tag: '"t"',
  headers: [["content-type", "application/json"]] as const,
});

describe("ReadCache", () => {
  it("serves an answer only at the epoch it was stored at, and only within its TTL", () => {
    const cache = new ReadCache({ maxBytes: 1 << 20, ttlMs: 1_000 });
    cache.set("k", answer("1:1", "{}", 0));
    expect(cache.get("k", "1:1", 999)?.body.toString()).toBe("{}");
    expect(cache.get("k", "2:1", 999)).toBeUndefined();
    // A stale entry is dropped, not kept for a later epoch.
    expect(cache.get("k", "1:1", 999)).toBeUndefined();
    cache.set("k", answer("1:1", "{}", 0));
    expect(cache.get("k", "1:1", 1_000)).toBeUndefined();
    expect(cache.count).toBe(0);
    expect(cache.size).toBe(0);
  });

  it("stays within its bytes, least recently used out first, and refuses one answer too large", () => {
    const body = "x".repeat(1_000);
    const cache = new ReadCache({ maxBytes: 16 * 1_300, ttlMs: 60_000 });
    for (let i = 0; i < 16; i++) cache.set(`k${i}`, answer("e", body));
    expect(cache.get("k0", "e", 1)).toBeDefined(); // k0 now the most recently used
    for (let i = 16; i < 20; i++) cache.set(`k${i}`, answer("e", body));
    expect(cache.size).toBeLessThanOrEqual(16 * 1_300);
    expect(cache.get("k0", "e", 1)).toBeDefined();
    expect(cache.get("k1", "e", 1)).toBeUndefined();
    cache.set("huge", answer("e", "y".repeat(1_100)));
    expect(cache.get("huge", "e", 1)).toBeUndefined();
  });

  it("compresses once per encoding and counts the variants in its bound", () => {
    const cache = new ReadCache({ maxBytes: 1 << 20, ttlMs: 60_000 });
    const json = JSON.stringify({ rows: Array.from({ length: 100 }, (_, i) => ({ i, name: `file ${i}` })) });
    cache.set("k", answer("e", json));
    const entry = cache.get("k", "e", 1);
    if (!entry) throw new Error("not kept");
    const before = cache.size;
    const br = cache.encoded("k", entry, "br");
    expect(cache.encoded("k", entry, "br")).toBe(br);
    expect(brotliDecompressSync(br).toString()).toBe(json);
    expect(gunzipSync(cache.encoded("k", entry, "gzip")).toString()).toBe(json);
    expect(cache.size).toBeGreaterThan(before);
  });

  it("is off with no bytes to keep", () => {
    const cache = new ReadCache({ maxBytes: 0, ttlMs: 60_000 });
    expect(cache.enabled).toBe(false);
    cache.set("k", answer("e", "{}"));
    expect(cache.count).toBe(0);
  });
});

describe("preferredEncoding (as the compression middleware negotiates)", () => {
  it("takes the highest q, brotli on a tie, and nothing refused", () => {
    expect(preferredEncoding("gzip, deflate, br")).toBe("br");
    expect(preferredEncoding("gzip")).toBe("gzip");
    expect(preferredEncoding("br;q=0.5, gzip;q=0.8")).toBe("gzip");
    expect(preferredEncoding("br;q=0, gzip;q=0")).toBeUndefined();
    expect(preferredEncoding("identity")).toBeUndefined();
    expect(preferredEncoding("*")).toBe("br");
    expect(preferredEncoding(undefined)).toBeUndefined();
  });
});
