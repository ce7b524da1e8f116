import { randomBytes } from "node:crypto";
import { auditLog, organizations, webhookSubscriptions } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import type { TActor } from "@posture/platform";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSubscription, deleteSubscription } from "./subscriptions";

// A subscription and its audit row commit together: the failure is injected at the audit write
// (an actor without an e-mail is refused by audit_log), after the change.

let db: TestDb;
const actor: TActor = { kind: "session", userId: "usr_admin", email: "admin@example.test" };
const refusedActor = { ...actor, email: null } as unknown as TActor;
const deps = { encryptionKey: randomBytes(32), allowPrivateTargets: true };

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.drop();
});

async function newOrg(): Promise<string> {
  const [org] = await db.db.insert(organizations).values({ name: "Hooks Co", plan: "business" }).returning();
  if (!org) throw new Error("no org");
  return org.id;
}

const subscriptions = (orgId: string) =>
  db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.orgId, orgId));
const audits = (orgId: string, action: "WEBHOOK_CREATED" | "WEBHOOK_DELETED") =>
  db.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, action)));

describe("webhook subscriptions and their audit rows", () => {
  const hook = { url: "http://127.0.0.1:9/hook", events: ["scan.completed" as const] };

  it("a failed audit write leaves no subscription; a successful create has both", async () => {
    const orgId = await newOrg();
    await expect(createSubscription(db.db, { orgId, actor: refusedActor, ...hook }, deps)).rejects.toThrow();
    expect(await subscriptions(orgId)).toEqual([]);
    expect(await audits(orgId, "WEBHOOK_CREATED")).toEqual([]);

    const created = await createSubscription(db.db, { orgId, actor, ...hook }, deps);
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await subscriptions(orgId)).toHaveLength(1);
    expect(await audits(orgId, "WEBHOOK_CREATED")).toMatchObject([
      { target: created.id, userEmail: actor.email },
    ]);
  });

  it("a failed audit write on delete keeps the subscription", async () => {
    const orgId = await newOrg();
    const created = await createSubscription(db.db, { orgId, actor, ...hook }, deps);
    await expect(deleteSubscription(db.db, { orgId, actor: refusedActor, id: created.id })).rejects.toThrow();
    expect(await subscriptions(orgId)).toHaveLength(1);
    expect(await audits(orgId, "WEBHOOK_DELETED")).toEqual([]);

    await deleteSubscription(db.db, { orgId, actor, id: created.id });
    expect(await subscriptions(orgId)).toEqual([]);
    expect(await audits(orgId, "WEBHOOK_DELETED")).toHaveLength(1);
  });
});
