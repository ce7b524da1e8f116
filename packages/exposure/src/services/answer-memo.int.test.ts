import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectors, findings, organizations, scans, workspaceSnapshots } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { exposureStateKey, memoised } from "./answer-memo";

// The kept answer is served while nothing it reads has moved, and computed again after each kind
// of committed change: a finding resolved or reopened, a store changed, a scan completed.

let db: TestDb;
let orgId: string;
let otherOrgId: string;
let connectorId: string;
let findingId: string;

beforeAll(async () => {
  db = await createTestDb();
  const [org, other] = await db.db
    .insert(organizations)
    .values([
      { name: "Memo Co", plan: "business" },
      { name: "Elsewhere Co", plan: "business" },
    ])
    .returning({ id: organizations.id });
  if (!org || !other) throw new Error("no org");
  orgId = org.id;
  otherOrgId = other.id;
  const [c] = await db.db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: "Memo", mode: "demo" })
    .returning({ id: connectors.id });
  if (!c) throw new Error("no connector");
  connectorId = c.id;
  await db.db.insert(workspaceSnapshots).values({
    connectorId,
    orgId,
    scanId: null,
    takenAt: new Date("2026-12-01T00:00:00Z"),
    users: 3,
    files: 10,
    drives: 1,
    permissions: 12,
    shares: 2,
    grants: 0,
  });
  const [f] = await db.db
    .insert(findings)
    .values({
      orgId,
      connectorId,
      connectorType: "google_workspace",
      fingerprint: "fp-memo",
      ruleId: "org_wide_link",
      category: "internal_exposure",
      severity: "HIGH",
      severityRank: 3,
      title: "Organization-wide link",
      resourceId: "file-1",
      resourceName: "Payroll.xlsx",
      resourceType: "file",
    })
    .returning({ id: findings.id });
  if (!f) throw new Error("no finding");
  findingId = f.id;
});
afterAll(async () => {
  await db?.drop();
});

describe("the AI exposure answer kept per organization", () => {
  it("is served while nothing moves, and computed again after each committed change", async () => {
    let computed = 0;
    const read = async () =>
      memoised(`${orgId}:test`, await exposureStateKey(db.db, { orgId }), async () => ++computed);

    expect(await read()).toBe(1);
    expect(await read()).toBe(1);

    // A finding resolved, then reopened (the counts' triggers move the key in the same transaction).
    await db.db.update(findings).set({ status: "RESOLVED" }).where(eq(findings.id, findingId));
    expect(await read()).toBe(2);
    await db.db.update(findings).set({ status: "OPEN" }).where(eq(findings.id, findingId));
    expect(await read()).toBe(3);
    expect(await read()).toBe(3);

    // The store changed (a remediation's write updates the snapshot row: its version moves).
    await db.db
      .update(workspaceSnapshots)
      .set({ shares: 1 })
      .where(eq(workspaceSnapshots.connectorId, connectorId));
    expect(await read()).toBe(4);

    // A scan completed.
    await db.db.insert(scans).values({
      orgId,
      connectorId,
      connectorName: "Memo",
      trigger: "manual",
      status: "COMPLETE",
      completedAt: new Date(),
    });
    expect(await read()).toBe(5);

    // Another organization's changes leave this one's answer alone.
    await db.db
      .insert(connectors)
      .values({ orgId: otherOrgId, type: "microsoft_365", displayName: "Elsewhere", mode: "demo" });
    expect(await read()).toBe(5);
  });

  it("forgets a failed computation, so the next read tries again", async () => {
    const key = await exposureStateKey(db.db, { orgId });
    await expect(
      memoised(`${orgId}:failing`, key, () => Promise.reject(new Error("db down"))),
    ).rejects.toThrow("db down");
    expect(await memoised(`${orgId}:failing`, key, async () => "recovered")).toBe("recovered");
  });
});
