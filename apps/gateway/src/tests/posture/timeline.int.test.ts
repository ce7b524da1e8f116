import { describe, expect, it } from "vitest";
import { auditLog, connectors, findings, oauthGrants } from "@posture/db";
import { useTestGateway } from "../../testing";

type TItem = { id: string; kind: string; severity: string; title: string; at: string };
type TPage = { items: TItem[]; nextCursor: string | null };

const gw = useTestGateway();

async function walk(key: string, limit: number, extra = ""): Promise<TItem[]> {
  const seen: TItem[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const qs: string = `limit=${limit}${cursor ? `&before=${encodeURIComponent(cursor)}` : ""}${extra}`;
    const res = await gw.request("GET", `/api/timeline?${qs}`, { key });
    expect(res.status).toBe(200);
    const page = res.body as TPage;
    expect(page.items.length).toBeLessThanOrEqual(limit);
    seen.push(...page.items);
    if (!page.nextCursor) return seen;
    cursor = page.nextCursor;
  }
  throw new Error("timeline never ended");
}

describe("GET /api/timeline", () => {
  it("walks items sharing one timestamp across pages without skipping or repeating", async () => {
    const a = await gw.createActor({ plan: "business" });
    const [connector] = await gw.db.db
      .insert(connectors)
      .values({ orgId: a.orgId, type: "google_workspace", displayName: "D", mode: "demo" })
      .returning();
    const same = new Date("2026-03-01T12:00:00.123456Z");
    const older = new Date("2026-02-01T00:00:00Z");
    for (let i = 0; i < 13; i++) {
      await gw.db.db.insert(auditLog).values({
        orgId: a.orgId,
        action: "SIGN_IN",
        target: `t${i}`,
        userEmail: "x@y.test",
        createdAt: same,
      });
    }
    await gw.db.db.insert(findings).values(
      Array.from({ length: 9 }, (_, i) => ({
        orgId: a.orgId,
        connectorId: connector?.id ?? "",
        connectorType: "google_workspace",
        fingerprint: `fp${i}`,
        ruleId: "public_link",
        category: "public_exposure",
        severity: i % 2 ? ("HIGH" as const) : ("LOW" as const),
        severityRank: i % 2 ? 3 : 1,
        title: `Finding ${i}`,
        resourceId: `r${i}`,
        resourceName: `file ${i}`,
        resourceType: "file",
        detectedAt: i < 6 ? same : older,
      })),
    );
    await gw.db.db.insert(oauthGrants).values({
      orgId: a.orgId,
      connectorId: connector?.id ?? "",
      externalId: "app1",
      label: "Shady AI",
      kind: "ai_agent",
      publisher: "unknown",
      isKnownPublisher: false,
      scopes: ["drive"],
      userEmail: "x@y.test",
      grantedAt: same,
    });

    const all = await walk(a.key, 4);
    // The fixtures above, plus whatever the harness itself audited for this organization.
    const ids = all.map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(all.filter((i) => i.kind === "audit" && i.title.startsWith("SIGN_IN t"))).toHaveLength(13);
    expect(all.filter((i) => i.kind === "finding")).toHaveLength(9);
    expect(all.filter((i) => i.kind === "oauth_grant")).toHaveLength(1);
    for (let i = 1; i < all.length; i++) {
      const prev = all[i - 1] as TItem;
      const cur = all[i] as TItem;
      expect(prev.at >= cur.at).toBe(true);
    }
    // The same walk with a different page size sees exactly the same sequence.
    expect((await walk(a.key, 7)).map((i) => i.id)).toEqual(ids);

    const significant = await walk(a.key, 50, "&significant=true");
    expect(
      significant.every((i) => i.severity === "HIGH" || i.severity === "CRITICAL" || i.kind === "audit"),
    ).toBe(true);
    expect(significant.filter((i) => i.kind === "finding")).toHaveLength(4);
    expect(significant.some((i) => i.kind === "oauth_grant")).toBe(true);
    expect(significant.some((i) => i.title.startsWith("SIGN_IN t"))).toBe(false);
  });

  it("accepts a plain ISO timestamp as `before` and rejects garbage", async () => {
    const a = await gw.createActor({ plan: "business" });
    await gw.db.db.insert(auditLog).values([
      {
        orgId: a.orgId,
        action: "SIGN_IN",
        target: "old",
        userEmail: "x@y.test",
        createdAt: new Date("2020-01-01T00:00:00Z"),
      },
      {
        orgId: a.orgId,
        action: "SIGN_IN",
        target: "new",
        userEmail: "x@y.test",
        createdAt: new Date("2024-01-01T00:00:00Z"),
      },
    ]);
    const res = await gw.request("GET", `/api/timeline?before=2023-01-01T00:00:00Z`, { key: a.key });
    expect(res.status).toBe(200);
    expect((res.body as TPage).items.map((i) => i.title)).toEqual(["SIGN_IN old by x@y.test"]);
    const bad = await gw.request("GET", `/api/timeline?before=not-a-cursor`, { key: a.key });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: "invalid_input" });
    expect((await gw.request("GET", `/api/timeline?limit=101`, { key: a.key })).status).toBe(400);
  });

  it("shows audit entries to ADMIN+ only: members' sessions and keys see the rest of the feed", async () => {
    const owner = await gw.createActor({ plan: "business", role: "OWNER" });
    const member = await gw.createActor({ plan: "business", role: "member", orgId: owner.orgId });
    const admin = await gw.createActor({ plan: "business", role: "ADMIN", orgId: owner.orgId });
    const [connector] = await gw.db.db
      .insert(connectors)
      .values({ orgId: owner.orgId, type: "google_workspace", displayName: "D", mode: "demo" })
      .returning();
    await gw.db.db.insert(auditLog).values({
      orgId: owner.orgId,
      action: "API_KEY_CREATED",
      target: "key_secret_target",
      userEmail: "boss@private.test",
    });
    await gw.db.db.insert(oauthGrants).values({
      orgId: owner.orgId,
      connectorId: connector?.id ?? "",
      externalId: "app-m",
      label: "Visible App",
      kind: "oauth_app",
      publisher: "Acme",
      isKnownPublisher: true,
      scopes: ["drive"],
      userEmail: "grantee@example.test",
      grantedAt: new Date(),
    });

    for (const viewer of [admin.key, admin.cookie, owner.key]) {
      const auth = viewer.startsWith("svc_ak_") ? { key: viewer } : { cookie: viewer };
      const res = await gw.request("GET", "/api/timeline?limit=100", auth);
      expect(res.status).toBe(200);
      expect(
        (res.body as TPage).items.some((i) => i.kind === "audit" && i.title.includes("key_secret_target")),
      ).toBe(true);
    }
    for (const auth of [{ key: member.key }, { cookie: member.cookie }]) {
      for (const extra of ["", "&significant=true"]) {
        const res = await gw.request("GET", `/api/timeline?limit=100${extra}`, auth);
        expect(res.status).toBe(200);
        const items = (res.body as TPage).items;
        expect(items.filter((i) => i.kind === "audit")).toEqual([]);
        expect(res.text).not.toContain("key_secret_target");
        expect(res.text).not.toContain("boss@private.test");
        if (!extra) expect(items.some((i) => i.kind === "oauth_grant")).toBe(true);
      }
    }
  });
});
