import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, organizations } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import type { TActor } from "@posture/platform";
import { getExposureSettings, updateExposureSettings } from "./settings";

// The threshold's change and its audit row commit together or not at all. The failure is injected
// at the audit insert itself: an actor without an e-mail is refused by audit_log (user_email is
// NOT NULL), as any failure of that write would be.

let db: TestDb;
const actor: TActor = { kind: "session", userId: "usr_admin", email: "admin@example.test" };
const refusedActor = { kind: "session", userId: "usr_admin", email: null } as unknown as TActor;

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.drop();
});

async function newOrg(): Promise<string> {
  const [org] = await db.db
    .insert(organizations)
    .values({ name: "Threshold Co", plan: "starter" })
    .returning({ id: organizations.id });
  if (!org) throw new Error("no org");
  return org.id;
}

const audited = (orgId: string) =>
  db.db
    .select({ target: auditLog.target, metadata: auditLog.metadata })
    .from(auditLog)
    .where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, "EXPOSURE_SETTINGS_CHANGED")));

describe("exposure settings", () => {
  it("a failed audit write leaves the threshold unchanged; a good one records from and to", async () => {
    const orgId = await newOrg();
    await expect(
      updateExposureSettings(db.db, { orgId, actor: refusedActor, broadGroupThreshold: 250 }),
    ).rejects.toThrow();
    expect(await getExposureSettings(db.db, { orgId })).toEqual({ broadGroupThreshold: 1000 });
    expect(await audited(orgId)).toEqual([]);

    expect(await updateExposureSettings(db.db, { orgId, actor, broadGroupThreshold: 250 })).toEqual({
      broadGroupThreshold: 250,
    });
    expect(await audited(orgId)).toEqual([
      { target: orgId, metadata: { broadGroupThreshold: { from: 1000, to: 250 } } },
    ]);
    // Nothing asked, or the same value: nothing written.
    expect(await updateExposureSettings(db.db, { orgId, actor })).toEqual({ broadGroupThreshold: 250 });
    expect(await updateExposureSettings(db.db, { orgId, actor, broadGroupThreshold: 250 })).toEqual({
      broadGroupThreshold: 250,
    });
    expect(await audited(orgId)).toHaveLength(1);
  });

  it("an unknown organization is a 404", async () => {
    await expect(getExposureSettings(db.db, { orgId: "org_missing" })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(
      updateExposureSettings(db.db, { orgId: "org_missing", actor, broadGroupThreshold: 5 }),
    ).rejects.toMatchObject({ code: "not_found" });
  });
});
