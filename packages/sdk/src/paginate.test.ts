import { describe, expect, expectTypeOf, it } from "vitest";
import { json, useScriptedServer } from "./testing/scripted-server";

const { state, client } = useScriptedServer();
const seen = state.seen;

describe("paginate", () => {
  it("walks offset pages by nextOffset, keeping the caller's filters", async () => {
    const all = Array.from({ length: 5 }, (_, i) => ({ id: `f${i}` }));
    state.fallback = (req, res) => {
      const q = new URL(req.url, "http://x").searchParams;
      const offset = Number(q.get("offset") ?? 0);
      const limit = Number(q.get("limit"));
      const next = offset + limit < all.length ? offset + limit : null;
      json(res, 200, {
        findings: all.slice(offset, offset + limit),
        total: 5,
        limit,
        offset,
        nextOffset: next,
      });
    };
    const ids: string[] = [];
    for await (const f of client().paginate("/findings", {
      params: { query: { limit: 2, severity: "HIGH" } },
    })) {
      expectTypeOf(f.severity).toEqualTypeOf<"CRITICAL" | "HIGH" | "MEDIUM" | "LOW">();
      ids.push(f.id);
    }
    expect(ids).toEqual(["f0", "f1", "f2", "f3", "f4"]);
    expect(seen.map((s) => s.url)).toEqual([
      "/api/findings?limit=2&severity=HIGH",
      "/api/findings?limit=2&severity=HIGH&offset=2",
      "/api/findings?limit=2&severity=HIGH&offset=4",
    ]);
  });

  it("walks cursor pages by nextCursor (as `before`)", async () => {
    state.script = [
      (_req, res) => json(res, 200, { items: [{ id: "a" }, { id: "b" }], nextCursor: "c1" }),
      (_req, res) => json(res, 200, { items: [{ id: "c" }], nextCursor: null }),
    ];
    const ids: string[] = [];
    for await (const item of client().paginate("/timeline", { params: { query: { limit: 2 } } }))
      ids.push(item.id);
    expect(ids).toEqual(["a", "b", "c"]);
    expect(seen[1]?.url).toBe("/api/timeline?limit=2&before=c1");
  });

  it("walks numbered pages up to totalPages, and stops fetching when the loop breaks", async () => {
    state.fallback = (req, res) => {
      const page = Number(new URL(req.url, "http://x").searchParams.get("page") ?? 1);
      json(res, 200, { entries: [{ id: `e${page}` }], page, limit: 1, total: 3, totalPages: 3 });
    };
    const ids: string[] = [];
    for await (const e of client().paginate("/audit", { params: { query: { limit: 1 } } })) ids.push(e.id);
    expect(ids).toEqual(["e1", "e2", "e3"]);
    expect(seen.map((s) => s.url)).toEqual([
      "/api/audit?limit=1",
      "/api/audit?limit=1&page=2",
      "/api/audit?limit=1&page=3",
    ]);

    seen.length = 0;
    for await (const e of client().paginate("/audit")) if (e.id === "e1") break;
    expect(seen).toHaveLength(1);
  });
});
