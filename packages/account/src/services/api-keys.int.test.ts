import { apiKeys, auditLog, memberships, organizations, users } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import type { TActor } from "@posture/platform";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, createApiKeyFor, revokeKey } from "./api-keys";

// A key and its audit row commit together: the failure is injected at the audit write (an actor
// without an e-mail is refused by audit_log), after the change.

let db: TestDb;

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.drop();
});

async function member(): Promise<{ orgId: string; actor: TActor }> {
  const [org] = await db.db.insert(organizations).values({ name: "Keys Co", plan: "business" }).returning();
  const email = `owner-${Math.random().toString(36).slice(2)}@example.test`;
  const [user] = await db.db.insert(users).values({ email, passwordHash: "x" }).returning();
  if (!org || !user) throw new Error("no fixture");
  await db.db.insert(memberships).values({ orgId: org.id, userId: user.id, role: "OWNER" });
  return { orgId: org.id, actor: { kind: "session", userId: user.id, email } };
}

const audits = (orgId: string) => db.db.select().from(auditLog).where(eq(auditLog.orgId, orgId));

describe("API keys and their audit rows", () => {
  it("a failed audit write leaves no key; a successful create has both", async () => {
    const { orgId, actor } = await member();
    const refused = { ...actor, email: null } as unknown as TActor;
    await expect(createApiKey(db.db, { orgId, actor: refused, name: "ci" })).rejects.toThrow();
    expect(await db.db.select().from(apiKeys).where(eq(apiKeys.orgId, orgId))).toEqual([]);
    expect(await audits(orgId)).toEqual([]);

    const key = await createApiKey(db.db, { orgId, actor, name: "ci" });
    expect(await audits(orgId)).toMatchObject([
      { action: "API_KEY_CREATED", userId: actor.userId, userEmail: actor.email },
    ]);

    await expect(revokeKey(db.db, { orgId, actor: refused, keyId: key.id })).rejects.toThrow();
    const [row] = await db.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(row?.revokedAt).toBeNull();
  });

  it("an operator-issued key acts for its user and is audited as the system", async () => {
    const { orgId, actor } = await member();
    const key = await createApiKeyFor(db.db, { orgId, userId: actor.userId ?? "", name: "cli" });
    const [row] = await db.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(row?.createdByUserId).toBe(actor.userId);
    const [entry] = await db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, "API_KEY_CREATED")));
    expect(entry).toMatchObject({
      userId: null,
      userEmail: "system",
      metadata: { ownerUserId: actor.userId },
    });
  });

  it("refuses a key for someone who is not a member, as a 404", async () => {
    const { orgId } = await member();
    const other = await member();
    await expect(
      createApiKeyFor(db.db, { orgId, userId: other.actor.userId ?? "", name: "x" }),
    ).rejects.toMatchObject({ code: "not_found" });
  });
});
