import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { demoOverlays, findings, queryRows, workspaceGroups, type Db } from "@posture/db";
import { EVERYONE_CLAIM_REASON, NEW_LINK_REASON, NO_RESTRICT_REASON } from "@posture/connectors";
import { fingerprintOf } from "@posture/posture";
import { waitFor } from "@posture/webhooks/testing";
import { useTestGateway } from "../../testing";
import { call, makeSandbox, settled, startScenario } from "../sandbox/harness";

// Issue 30, item 5 and the sandbox half of item 6, from outside over HTTP on a sandbox's demo
// tenant: the scenario shares a sensitive file org-wide, the demo's All Staff group gets another
// file; the rules' internal-exposure findings on them are planned by their ids, approved by a
// second admin (four eyes), applied: the permissions are gone at the (demo) source
// and in the store, the findings resolved; undo puts both back. Then the link is restricted
// (made link-only) instead, and undone.

type TStep = {
  action: string;
  status: string;
  reversible: boolean;
  findingIds: string[];
  people: string[];
  before: Record<string, unknown>;
  after: Record<string, unknown> | null;
  resource: { fileId: string; permissionId: string };
};
type TRemediation = {
  id: string;
  status: string;
  steps: TStep[];
  skipped: Array<{ findingId: string | null; reason: string }>;
  predicted: { score: number; scoreDelta: number };
};

const gw = useTestGateway();

/** The open finding the rules made for this rule and file on the connector's scan. */
async function ruleFinding(db: Db, connectorId: string, ruleId: string, fileId: string): Promise<string> {
  const [found] = await db
    .select({ id: findings.id })
    .from(findings)
    .where(
      and(eq(findings.connectorId, connectorId), eq(findings.fingerprint, fingerprintOf(ruleId, fileId))),
    );
  if (!found) throw new Error(`no ${ruleId} finding for ${fileId}`);
  return found.id;
}

describe("internal exposure remediated at a sandbox's demo source", () => {
  it("plans, applies and undoes an org-wide link's and a broad group's removal, then restricts the link", async () => {
    const { sandbox, key, cookie } = await makeSandbox(gw);
    const db = gw.db.db;
    const second = await gw.createUser(sandbox.id, "ADMIN");
    const secondCookie = await gw.createSession(sandbox.id, second.id);
    const ok = async (method: string, path: string, as: string, body?: unknown, status = 200) => {
      const res = await call(gw, method, path, { cookie: as }, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
      return res.body;
    };
    await ok("PATCH", "/api/remediation-settings", cookie, { fourEyes: true });
    const connector = (await ok(
      "POST",
      "/api/connectors",
      cookie,
      { type: "google_workspace", displayName: "Sandbox", mode: "demo", demo: { files: 600 } },
      201,
    )) as { id: string };
    await ok("POST", `/api/connectors/${connector.id}/sync`, cookie);

    // The scenario: a sensitive file shared with everyone in the organization, searchable.
    const run = await settled(gw, key, (await startScenario(gw, key, "org_wide_link_created")).id);
    expect(run.scans).toMatchObject([{ connectorId: connector.id, kind: "incremental", status: "COMPLETE" }]);
    const change = run.change as {
      fileId: string;
      fileName: string;
      owner: string;
      permissionId: string;
      domain: string;
      discoverable: boolean;
      sensitive: boolean;
    };
    expect(change).toMatchObject({ discoverable: true, sensitive: true });
    expect(change.permissionId).toMatch(/^[0-9a-z]+-sbx[0-9a-f]{8}$/);

    // All Staff (the demo directory's largest group) is given another file, as its owner would share it.
    const storedPermission = async (fileId: string, permissionId: string) =>
      (
        await queryRows<{ sharing_type: string; target: string; role: string }>(
          db,
          sql`
          SELECT p.sharing_type, p.target, p.role FROM workspace_permissions p
          JOIN workspace_files f ON f.connector_id = p.connector_id AND f.id = p.file_id
          WHERE f.connector_id = ${connector.id} AND f.external_id = ${fileId} AND p.external_id = ${permissionId}`,
        )
      )[0] ?? null;
    expect(await storedPermission(change.fileId, change.permissionId)).toEqual({
      sharing_type: "internal",
      target: change.domain,
      role: "reader",
    });
    const [other] = await queryRows<{ file_id: string; name: string; owner_id: string }>(
      db,
      sql`
        SELECT f.external_id AS file_id, f.name, p.external_id AS owner_id FROM workspace_files f
        JOIN workspace_permissions p ON p.connector_id = f.connector_id AND p.file_id = f.id
        WHERE f.connector_id = ${connector.id} AND f.external_id <> ${change.fileId}
          AND f.drive_external_id IS NULL AND p.external_id ~ '^[0-9a-z]{1,8}-[0-9]+$'
          AND NOT EXISTS (SELECT 1 FROM findings x WHERE x.connector_id = f.connector_id
            AND x.resource_id = f.external_id AND x.category = 'internal_exposure')
        ORDER BY f.external_id LIMIT 1`,
    );
    if (!other) throw new Error("no second file");
    const index = parseInt(other.owner_id.split("-")[0] ?? "", 36);
    const groupId = `${index.toString(36)}-allstaff`;
    const group = { id: groupId, type: "group", role: "writer", emailAddress: `all-staff@${change.domain}` };
    await db.insert(demoOverlays).values({
      connectorId: connector.id,
      key: `perm:${other.file_id}:${groupId}`,
      change: { op: "added", permission: group, i: index, v: Date.now() + 1_000 },
    });
    await ok("POST", `/api/connectors/${connector.id}/sync`, cookie);
    expect(await storedPermission(other.file_id, groupId)).toEqual({
      sharing_type: "internal",
      target: group.emailAddress,
      role: "writer",
    });

    // The demo directory's All Staff, as the scan stored it (a broad group in this tenant).
    const [allStaff] = await db
      .select({ members: workspaceGroups.memberCount })
      .from(workspaceGroups)
      .where(
        and(eq(workspaceGroups.connectorId, connector.id), eq(workspaceGroups.email, group.emailAddress)),
      );
    if (!allStaff) throw new Error("the demo directory has no All Staff group");
    const members = allStaff.members;
    // Their findings, as the rules made them on the scan.
    const orgFinding = await ruleFinding(db, connector.id, "org_wide_link", change.fileId);
    const groupFinding = await ruleFinding(db, connector.id, "broad_group_grant", other.file_id);
    const statusOf = async (id: string) =>
      ((await ok("GET", `/api/findings/${id}`, cookie)) as { status: string }).status;
    const overlayOf = async (fileId: string, permissionId: string) =>
      (
        await db
          .select({ change: demoOverlays.change })
          .from(demoOverlays)
          .where(
            and(
              eq(demoOverlays.connectorId, connector.id),
              eq(demoOverlays.key, `perm:${fileId}:${permissionId}`),
            ),
          )
      )[0]?.change as { op: string; permission?: { link?: unknown } } | undefined;

    // Plan the two findings (the quick win `org_wide_links` would take every org-wide link of the
    // demo tenant's own oversharing too).
    const plan = (await ok(
      "POST",
      "/api/remediations",
      cookie,
      { findingIds: [orgFinding, groupFinding] },
      201,
    )) as TRemediation;
    expect(plan.status).toBe("PLANNED");
    const byAction = Object.fromEntries(plan.steps.map((s) => [s.action, s]));
    expect(Object.keys(byAction).sort()).toEqual(["remove_group_grant", "remove_org_wide_link"]);
    expect(byAction.remove_org_wide_link).toMatchObject({
      resource: { fileId: change.fileId, permissionId: change.permissionId },
      before: { type: "domain", role: "reader", target: change.domain, discoverable: true, expiresAt: null },
      after: null,
      reversible: true,
      findingIds: [orgFinding],
      people: [`everyone in ${(sandbox as unknown as { name: string }).name}`],
    });
    expect(byAction.remove_group_grant).toMatchObject({
      resource: { fileId: other.file_id, permissionId: groupId },
      before: { type: "group", role: "writer", target: group.emailAddress, memberCount: members },
      reversible: true,
      findingIds: [groupFinding],
      people: [`${group.emailAddress} (${members.toLocaleString("en-US")} members)`],
    });
    const simulated = (await ok("POST", "/api/posture/simulate", cookie, {
      findingIds: [orgFinding, groupFinding],
    })) as { score: number };
    expect(plan.predicted.score).toBe(simulated.score);

    const self = await call(gw, "POST", `/api/remediations/${plan.id}/approve`, { cookie });
    expect(self.status).toBe(409);
    await ok("POST", `/api/remediations/${plan.id}/approve`, secondCookie);
    const settle = (id: string, want: string) =>
      waitFor(async () => {
        const r = (await ok("GET", `/api/remediations/${id}`, cookie)) as TRemediation;
        return r.status === want ? r : null;
      }, 60_000);
    const applyOf = async (id: string) => {
      const res = await gw.request("POST", `/api/remediations/${id}/apply`, {
        cookie,
        headers: { "idempotency-key": `internal-${id}` },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
    };
    await applyOf(plan.id);
    const applied = await settle(plan.id, "APPLIED");
    expect(applied.steps.map((s) => s.status)).toEqual(["APPLIED", "APPLIED"]);
    // Gone at the source (the overlay the demo tenant is read through) and in the store.
    expect((await overlayOf(change.fileId, change.permissionId))?.op).toBe("removed");
    expect((await overlayOf(other.file_id, groupId))?.op).toBe("removed");
    expect(await storedPermission(change.fileId, change.permissionId)).toBeNull();
    expect(await storedPermission(other.file_id, groupId)).toBeNull();
    expect(await statusOf(orgFinding)).toBe("RESOLVED");
    expect(await statusOf(groupFinding)).toBe("RESOLVED");

    // Undo, asked by one admin and confirmed by another: both come back, at the source and in the store.
    const asked = await call(gw, "POST", `/api/remediations/${plan.id}/undo`, { cookie });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const confirmed = await call(gw, "POST", `/api/remediations/${plan.id}/undo`, { cookie: secondCookie });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(202);
    const reverted = await settle(plan.id, "REVERTED");
    expect(reverted.steps.map((s) => s.status)).toEqual(["REVERTED", "REVERTED"]);
    expect(await overlayOf(change.fileId, change.permissionId)).toMatchObject({
      op: "added",
      permission: { link: { expiresAt: null, discoverable: true } },
    });
    expect((await overlayOf(other.file_id, groupId))?.op).toBe("added");
    expect(await storedPermission(change.fileId, change.permissionId)).toEqual({
      sharing_type: "internal",
      target: change.domain,
      role: "reader",
    });
    expect(await storedPermission(other.file_id, groupId)).toMatchObject({ target: group.emailAddress });
    expect(await statusOf(orgFinding)).toBe("OPEN");
    expect(await statusOf(groupFinding)).toBe("OPEN");

    // Restrict instead: the link becomes link-only; the finding stays open (the link still opens it).
    const restrict = (await ok(
      "POST",
      "/api/remediations",
      cookie,
      { findingIds: [orgFinding], orgWideLinks: "restrict" },
      201,
    )) as TRemediation;
    expect(restrict.steps).toMatchObject([
      {
        action: "restrict_org_wide_link",
        before: { discoverable: true },
        after: { discoverable: false },
        reversible: true,
        findingIds: [],
      },
    ]);
    expect(restrict.skipped).toMatchObject([
      { findingId: orgFinding, reason: expect.stringMatching(/^Restricted, not removed/) },
    ]);
    expect(restrict.predicted.scoreDelta).toBe(0);
    await ok("POST", `/api/remediations/${restrict.id}/approve`, secondCookie);
    await applyOf(restrict.id);
    await settle(restrict.id, "APPLIED");
    expect(await overlayOf(change.fileId, change.permissionId)).toMatchObject({
      op: "added",
      permission: { link: { expiresAt: null, discoverable: false } },
    });
    expect(await storedPermission(change.fileId, change.permissionId)).toMatchObject({
      target: change.domain,
    });
    expect(await statusOf(orgFinding)).toBe("OPEN");
    await call(gw, "POST", `/api/remediations/${restrict.id}/undo`, { cookie });
    await call(gw, "POST", `/api/remediations/${restrict.id}/undo`, { cookie: secondCookie });
    await settle(restrict.id, "REVERTED");
    expect(await overlayOf(change.fileId, change.permissionId)).toMatchObject({
      permission: { link: { discoverable: true } },
    });
  }, 180_000);

  it("on Microsoft 365: an Everyone grant and an org link go, neither can come back, and restrict is refused", async () => {
    const orgName = "Contoso Ltd";
    const owner = await gw.createActor({
      orgId: (await gw.createOrg({ name: orgName, plan: "business" })).id,
    });
    const db: Db = gw.db.db;
    const ok = async (method: string, path: string, body?: unknown, status = 200) => {
      const res = await call(gw, method, path, { cookie: owner.cookie }, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
      return res.body;
    };
    const connector = (await ok(
      "POST",
      "/api/connectors",
      { type: "microsoft_365", displayName: "Contoso", mode: "demo", demo: { files: 600 } },
      201,
    )) as { id: string };
    await ok("POST", `/api/connectors/${connector.id}/sync`);
    const [file] = await queryRows<{ file_id: string; name: string; perm_id: string; owner: string }>(
      db,
      sql`
        SELECT f.external_id AS file_id, f.name, p.external_id AS perm_id, f.owner_email AS owner FROM workspace_files f
        JOIN workspace_permissions p ON p.connector_id = f.connector_id AND p.file_id = f.id
        WHERE f.connector_id = ${connector.id} AND p.external_id ~ '^[0-9a-z]{1,8}-[0-9]+$'
          AND NOT EXISTS (SELECT 1 FROM findings x WHERE x.connector_id = f.connector_id
            AND x.resource_id = f.external_id AND x.category = 'internal_exposure')
        ORDER BY f.external_id LIMIT 1`,
    );
    if (!file) throw new Error("no file");
    const index = parseInt(file.perm_id.split("-")[0] ?? "", 36);
    const domain = file.owner.split("@")[1] ?? "";
    const everyoneId = `${index.toString(36)}-everyone`;
    const linkId = `${index.toString(36)}-orglink`;
    const added = [
      { id: everyoneId, type: "domain", role: "reader", domain, everyone: "all" },
      { id: linkId, type: "domain", role: "reader", domain, link: { expiresAt: null, discoverable: false } },
    ];
    for (const [k, permission] of added.entries())
      await db.insert(demoOverlays).values({
        connectorId: connector.id,
        key: `perm:${file.file_id}:${permission.id}`,
        change: { op: "added", permission, i: index, v: Date.now() + 1_000 + k },
      });
    await ok("POST", `/api/connectors/${connector.id}/sync`);
    const grantFinding = await ruleFinding(db, connector.id, "org_wide_grant", file.file_id);
    const linkFinding = await ruleFinding(db, connector.id, "org_wide_link", file.file_id);

    // Restricting a Microsoft link is no change Graph offers: nothing to plan, and why.
    const refused = await call(
      gw,
      "POST",
      "/api/remediations",
      { cookie: owner.cookie },
      { findingIds: [linkFinding], orgWideLinks: "restrict" },
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: "invalid_input",
      message: `Nothing to do: ${NO_RESTRICT_REASON}`,
    });

    const plan = (await ok(
      "POST",
      "/api/remediations",
      { findingIds: [grantFinding, linkFinding] },
      201,
    )) as TRemediation;
    expect(
      plan.steps.map((s) => ({
        action: s.action,
        reversible: s.reversible,
        irreversibleReason: (s as unknown as { irreversibleReason: string | null }).irreversibleReason,
        people: s.people,
        findingIds: s.findingIds,
      })),
    ).toEqual([
      {
        action: "remove_everyone_grant",
        reversible: false,
        irreversibleReason: EVERYONE_CLAIM_REASON,
        people: [`everyone in ${orgName}, guests included`],
        findingIds: [grantFinding],
      },
      {
        action: "remove_org_wide_link",
        reversible: false,
        irreversibleReason: NEW_LINK_REASON,
        people: [`everyone in ${orgName}`],
        findingIds: [linkFinding],
      },
    ]);
    await ok("POST", `/api/remediations/${plan.id}/approve`);
    const res = await gw.request("POST", `/api/remediations/${plan.id}/apply`, {
      cookie: owner.cookie,
      headers: { "idempotency-key": `internal-ms-${plan.id}` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const applied = await waitFor(async () => {
      const r = (await ok("GET", `/api/remediations/${plan.id}`)) as TRemediation;
      return r.status === "APPLIED" ? r : null;
    }, 60_000);
    expect(applied.steps.map((s) => s.status)).toEqual(["APPLIED", "APPLIED"]);
    const left = await queryRows<{ id: string }>(
      db,
      sql`
        SELECT p.external_id AS id FROM workspace_permissions p
        JOIN workspace_files f ON f.connector_id = p.connector_id AND f.id = p.file_id
        WHERE f.connector_id = ${connector.id} AND f.external_id = ${file.file_id}
          AND p.external_id = ANY(${`{${everyoneId},${linkId}}`}::text[])`,
    );
    expect(left).toEqual([]);
    const overlay = await db
      .select({ key: demoOverlays.key, change: demoOverlays.change })
      .from(demoOverlays)
      .where(eq(demoOverlays.connectorId, connector.id));
    expect(
      overlay
        .filter((o) => o.key.endsWith(everyoneId) || o.key.endsWith(linkId))
        .map((o) => (o.change as { op: string }).op),
    ).toEqual(["removed", "removed"]);
    for (const id of [grantFinding, linkFinding])
      expect(((await ok("GET", `/api/findings/${id}`)) as { status: string }).status).toBe("RESOLVED");
    // Nothing of it can be put back: undo is refused before anything moves.
    const undo = await call(gw, "POST", `/api/remediations/${plan.id}/undo`, { cookie: owner.cookie });
    expect(undo.status).toBe(409);
    expect((undo.body as { error: string }).error).toBe("nothing_to_undo");
  }, 120_000);
});
