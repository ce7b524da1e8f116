import { describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";

type TRule = { id: string; name: string; enabled: boolean; match: Record<string, unknown>; action?: string };

const gw = useTestGateway();

describe("security policies and prevention rules", () => {
  it("start from a default set that ADMINs manage, and deletions survive later scans", async () => {
    const a = await gw.createActor({ plan: "business", role: "ADMIN" });
    const list = async (path: string) =>
      ((await gw.request("GET", path, { cookie: a.cookie })).body as { rules: TRule[] }).rules;

    const defaults = await list("/api/policies");
    expect(defaults.length).toBeGreaterThanOrEqual(3);
    expect((await list("/api/prevention-rules")).map((r) => r.action)).toEqual(["ALERT_ONLY"]);

    const [first, second] = defaults;
    const del = await gw.request("DELETE", `/api/policies/${first?.id ?? ""}`, { cookie: a.cookie });
    expect(del.status).toBe(200);
    const patched = await gw.request("PATCH", `/api/policies/${second?.id ?? ""}`, {
      cookie: a.cookie,
      body: { enabled: false },
    });
    expect(patched.body).toMatchObject({ id: second?.id, enabled: false });
    const created = await gw.request("POST", "/api/policies", {
      cookie: a.cookie,
      body: { name: "No public links at all", match: { categories: ["public_exposure"] } },
    });
    expect(created.status).toBe(201);

    // A scan ensures the defaults exist: the deleted one must not come back.
    const connector = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: { type: "google_workspace", displayName: "P", mode: "demo", config: { fileCount: 50 } },
    });
    const id = (connector.body as { id: string }).id;
    expect((await gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie })).status).toBe(200);
    const after = await list("/api/policies");
    expect(after.map((r) => r.id)).not.toContain(first?.id);
    expect(after).toHaveLength(defaults.length);

    const bad = await gw.request("POST", "/api/policies", {
      cookie: a.cookie,
      body: { name: "x", match: {} },
    });
    expect(bad.status).toBe(400);
    const foreign = await gw.createActor({ plan: "business", role: "ADMIN" });
    expect(
      (await gw.request("DELETE", `/api/policies/${second?.id ?? ""}`, { cookie: foreign.cookie })).status,
    ).toBe(404);

    const audit = await gw.request("GET", "/api/audit?action=POLICY_CHANGED", { cookie: a.cookie });
    expect((audit.body as { total: number }).total).toBe(3);
  });
});
