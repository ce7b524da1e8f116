import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDemoAdapter, describeDemoWorkspace, type TSourceGroup } from "@posture/connectors";
import { connectors, findings, workspaceFiles, workspaceGroups, workspaceUsers } from "@posture/db";
import { createRuleEngine } from "@posture/posture";
import { useTestGateway } from "../../testing";

const gw = useTestGateway();

type TFindingDetails = {
  permissionIds: string[];
  reach: { people: number; orgWide: boolean };
  links?: Array<{ permissionId: string; role: string; discoverable: boolean; expiresAt: string | null }>;
  grants?: Array<{ permissionId: string; role: string; everyone: string }>;
  groups?: Array<{ permissionId: string; email: string; role: string; memberCount: number }>;
};

async function internalFindings(connectorId: string) {
  const rows = await gw.db.db
    .select({
      ruleId: findings.ruleId,
      resourceId: findings.resourceId,
      severity: findings.severity,
      details: findings.details,
    })
    .from(findings)
    .where(
      and(
        eq(findings.connectorId, connectorId),
        eq(findings.category, "internal_exposure"),
        eq(findings.status, "OPEN"),
      ),
    );
  return rows
    .map((r) => ({ ...r, details: r.details as TFindingDetails }))
    .sort((a, b) => `${a.ruleId}:${a.resourceId}`.localeCompare(`${b.ruleId}:${b.resourceId}`));
}

async function fileReach(connectorId: string) {
  const rows = await gw.db.db
    .select({
      id: workspaceFiles.externalId,
      people: workspaceFiles.reachPeople,
      orgWide: workspaceFiles.reachOrgWide,
    })
    .from(workspaceFiles)
    .where(eq(workspaceFiles.connectorId, connectorId));
  return new Map(rows.map((r) => [r.id, { people: r.people, orgWide: r.orgWide }]));
}

/** The internal-exposure findings of the connector's demo tenant, by the pure rule engine. */
async function expectedFindings(connectorId: string) {
  const [connector] = await gw.db.db.select().from(connectors).where(eq(connectors.id, connectorId));
  if (!connector) throw new Error("no connector");
  const opts = {
    seed: connectorId,
    type: "microsoft_365" as const,
    fileCount: 2000,
    epoch: connector.createdAt,
  };
  const adapter = createDemoAdapter(opts);
  const groups: TSourceGroup[] = [];
  for await (const g of adapter.groups?.() ?? []) groups.push(g);
  const engine = createRuleEngine({
    internalDomains: describeDemoWorkspace(opts).internalDomains,
    trustedDomains: [],
    now: new Date(),
    groups,
  });
  for await (const u of adapter.users()) engine.addUser(u);
  const out: Array<[string, string, string]> = [];
  for await (const f of adapter.files())
    for (const d of engine.addFile(f))
      if (d.category === "internal_exposure") out.push([d.ruleId, d.resourceId, d.severity]);
  return out.sort((x, y) => `${x[0]}:${x[1]}`.localeCompare(`${y[0]}:${y[1]}`));
}

describe("internal exposure over HTTP", () => {
  it("finds org-wide links, everyone grants and broad group grants with reach; an incremental rescan agrees", async () => {
    const a = await gw.createActor({ plan: "business", role: "OWNER" });
    const created = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: { type: "microsoft_365", displayName: "Demo 365", mode: "demo", config: { fileCount: 2000 } },
    });
    expect(created.status).toBe(201);
    const connectorId = (created.body as { id: string }).id;
    const first = await gw.request("POST", `/api/connectors/${connectorId}/sync`, { cookie: a.cookie });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "COMPLETE" });

    const found = await internalFindings(connectorId);
    const byRule = (rule: string) => found.filter((f) => f.ruleId === rule);
    const links = byRule("org_wide_link");
    const everyone = byRule("org_wide_grant");
    const groups = byRule("broad_group_grant");
    // Exactly what the rule engine finds on the same synthetic tenant (seeded by the connector).
    expect(found.map((f) => [f.ruleId, f.resourceId, f.severity])).toEqual(
      await expectedFindings(connectorId),
    );
    for (const list of [links, everyone, groups]) expect(list.length).toBeGreaterThan(0);

    // The tenant's people: its active users; an org-wide finding's reach is exactly that.
    const active = await gw.db.db
      .select({ id: workspaceUsers.id })
      .from(workspaceUsers)
      .where(and(eq(workspaceUsers.connectorId, connectorId), eq(workspaceUsers.status, "active")));
    const reach = await fileReach(connectorId);
    for (const f of [...links, ...everyone]) {
      expect(f.details.reach).toEqual({ people: active.length, orgWide: true });
      expect(reach.get(f.resourceId)).toEqual(f.details.reach);
    }
    for (const f of everyone)
      expect(f.details.grants?.map((g) => g.permissionId)).toEqual(f.details.permissionIds);
    for (const f of links)
      expect(f.details.links?.map((l) => l.permissionId)).toEqual(f.details.permissionIds);
    // Broad groups: the demo's All Staff / Company Announcements, by their stored sizes.
    const stored = await gw.db.db
      .select()
      .from(workspaceGroups)
      .where(eq(workspaceGroups.connectorId, connectorId));
    const size = new Map(stored.map((g) => [g.email, g.memberCount]));
    for (const f of groups) {
      expect(reach.get(f.resourceId)).toEqual(f.details.reach);
      for (const g of f.details.groups ?? []) expect(g.memberCount).toBe(size.get(g.email));
      // Not org-wide: the owner and the group's members at least (only the count is known).
      if (!f.details.reach.orgWide)
        expect(f.details.reach.people).toBeGreaterThan(
          Math.max(...(f.details.groups ?? []).map((g) => g.memberCount)),
        );
    }

    // Inventory: the org-wide files, each with its reach; and the filter by reach.
    const inv = await gw.request("GET", "/api/inventory?type=files&orgWide=true&limit=200", {
      cookie: a.cookie,
    });
    expect(inv.status).toBe(200);
    const page = inv.body as { total: number; rows: Array<{ reach: { people: number; orgWide: boolean } }> };
    expect(page.total).toBe([...reach.values()].filter((r) => r.orgWide).length);
    for (const row of page.rows) expect(row.reach).toEqual({ people: active.length, orgWide: true });
    const wide = await gw.request("GET", `/api/inventory?type=files&minReach=${active.length}&limit=1`, {
      cookie: a.cookie,
    });
    expect((wide.body as { total: number }).total).toBe(
      [...reach.values()].filter((r) => r.people >= active.length).length,
    );
    const bad = await gw.request("GET", "/api/inventory?type=files&minReach=-1", { cookie: a.cookie });
    expect(bad.status).toBe(400);

    // An incremental rescan at the same revision: the same findings, the same reach.
    const again = await gw.request("POST", `/api/connectors/${connectorId}/sync`, { cookie: a.cookie });
    expect(again.body).toMatchObject({
      status: "COMPLETE",
      kind: "incremental",
      findingsNew: 0,
      findingsResolved: 0,
    });
    expect(await internalFindings(connectorId)).toEqual(found);
    expect(await fileReach(connectorId)).toEqual(reach);
  });
});
