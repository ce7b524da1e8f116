import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSourceWriter, type TPermissionImage, type TWriteFile } from "@posture/connectors";
import { connectors, demoOverlayStore, findings, organizations, scans } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import type { TScanResult } from "@posture/posture";
import { runScanJob } from "./index";
import { scanOnlyDeps, storeAndFindingsOf } from "./testing";

// Remediation in the demo sandbox (issue 19): a write through the demo connector's writer lands in
// demo_overlays, every scan reads the synthetic tenant through it (scans/adapter.ts), so the
// next scan — incremental or full — sees the change, and undo brings the finding back.

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.drop();
});

type TConnector = typeof connectors.$inferSelect;

async function demoConnector(name: string): Promise<TConnector> {
  const [org] = await db.db.insert(organizations).values({ name, plan: "business" }).returning();
  if (!org) throw new Error("no org");
  const [c] = await db.db
    .insert(connectors)
    .values({
      orgId: org.id,
      type: "google_workspace",
      displayName: name,
      mode: "demo",
      config: { fileCount: 400, revision: 0 },
      writeAccess: true,
    })
    .returning();
  if (!c) throw new Error("no connector");
  return c;
}

async function scan(c: TConnector, full = false): Promise<TScanResult> {
  const [row] = await db.db
    .insert(scans)
    .values({
      orgId: c.orgId,
      connectorId: c.id,
      connectorName: c.displayName,
      trigger: "manual",
      ...(full ? { kind: "full" as const, fullReason: "requested" as const } : {}),
    })
    .returning();
  if (!row) throw new Error("no scan");
  return runScanJob(scanOnlyDeps(db.db), row.id, 1);
}

const writerOf = (c: TConnector) =>
  createSourceWriter({
    type: c.type,
    mode: "demo",
    connectorId: c.id,
    createdAt: c.createdAt,
    credentials: undefined,
    config: c.config,
    demoOverlay: demoOverlayStore(db.db, c.id),
  });

const findingsOf = (c: TConnector, fingerprint: string) =>
  db.db
    .select({ id: findings.id, status: findings.status })
    .from(findings)
    .where(and(eq(findings.connectorId, c.id), eq(findings.fingerprint, fingerprint)));

describe("remediation in the demo sandbox", () => {
  it("a removed public link resolves its finding on the next incremental and full scans; undo reopens it", async () => {
    const c = await demoConnector("Sandbox");
    expect(await scan(c)).toMatchObject({ status: "COMPLETE", kind: "full" });

    const [open] = await db.db
      .select()
      .from(findings)
      .where(
        and(eq(findings.connectorId, c.id), eq(findings.ruleId, "public_link"), eq(findings.status, "OPEN")),
      )
      .limit(1);
    if (!open) throw new Error("the demo tenant has no public link");
    const details = open.details as { ownerEmail: string; permissionIds: string[] };
    const file: TWriteFile = { id: open.resourceId, driveId: null, ownerEmail: details.ownerEmail };
    const writer = writerOf(c);

    // Apply: every public link of the file (what a remove_public_link step does).
    const images: TPermissionImage[] = [];
    for (const id of details.permissionIds) {
      const image = await writer.readPermission(file, id);
      if (!image) throw new Error(`permission ${id} not readable`);
      images.push(image);
      expect(await writer.deletePermission(file, id)).toBe("applied");
    }
    const applied = await scan(c);
    expect(applied).toMatchObject({ status: "COMPLETE", kind: "incremental" });
    expect(applied.findingsResolved).toBeGreaterThanOrEqual(1);
    expect(await findingsOf(c, open.fingerprint)).toEqual([{ id: open.id, status: "RESOLVED" }]);
    // A full read of the tenant agrees with the incremental one, to the row.
    const incremental = await storeAndFindingsOf(db.db, c.id);
    expect(await scan(c, true)).toMatchObject({ kind: "full", findingsNew: 0, findingsResolved: 0 });
    expect(await storeAndFindingsOf(db.db, c.id)).toEqual(incremental);
    expect((await findingsOf(c, open.fingerprint)).map((f) => f.status)).toEqual(["RESOLVED"]);

    // A second apply finds nothing to do (a retry never acts twice).
    for (const id of details.permissionIds)
      expect(await writer.deletePermission(file, id)).toBe("already_gone");

    // Undo: the links come back, the next incremental scan reopens the finding, a full one agrees.
    for (const image of images) expect(await writer.restorePermission(file, image)).toEqual({ id: image.id });
    const undone = await scan(c);
    expect(undone).toMatchObject({ status: "COMPLETE", kind: "incremental" });
    expect((await findingsOf(c, open.fingerprint)).filter((f) => f.status === "OPEN")).toHaveLength(1);
    const reopened = await storeAndFindingsOf(db.db, c.id);
    expect(await scan(c, true)).toMatchObject({ kind: "full", findingsNew: 0, findingsResolved: 0 });
    expect(await storeAndFindingsOf(db.db, c.id)).toEqual(reopened);
  });

  it("keeps the overlay in demo_overlays: another writer sees it, a revoked grant stays revoked, and each connector has its own", async () => {
    const c = await demoConnector("Overlay");
    const other = await demoConnector("Other");
    const store = demoOverlayStore(db.db, c.id);
    const first = writerOf(c);
    // The catalog's first grant always exists (demo/apps.ts).
    const grant = { id: "grant-0", clientId: "", userEmail: "" };
    expect(await first.readGrant(grant)).not.toBeNull();
    expect(await first.revokeGrant(grant)).toBe("applied");
    expect(await writerOf(c).revokeGrant(grant)).toBe("already_gone");
    expect(await writerOf(other).readGrant(grant)).not.toBeNull();
    const entries = await store.load();
    expect(entries.get("grant:grant-0")).toMatchObject({ op: "revoked", i: 0, v: expect.any(Number) });
    expect((await demoOverlayStore(db.db, other.id).load()).size).toBe(0);
    // A Google grant cannot be given back: the writer has no restoreGrant.
    expect(first.restoreGrant).toBeUndefined();

    // The scan reads through it: the revoked grant is not stored.
    await scan(c);
    const stored = await storeAndFindingsOf(db.db, c.id);
    expect(stored.grants.map((g) => (g as { id: string }).id)).not.toContain("grant-0");
    await scan(other);
    const theirs = await storeAndFindingsOf(db.db, other.id);
    expect(theirs.grants.map((g) => (g as { id: string }).id)).toContain("grant-0");
  });
});
