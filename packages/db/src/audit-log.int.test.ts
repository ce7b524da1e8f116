import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, organizations } from "./schema";
import { queryRows } from "./client";
import { createTestDb, type TestDb } from "./testing";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t.drop();
});

async function newOrg(name: string) {
  const [org] = await t.db.insert(organizations).values({ name }).returning();
  if (!org) throw new Error("insert failed");
  return org;
}

// drizzle wraps driver errors ("Failed query: …"); the database's own message is the cause.
async function expectRefused(p: PromiseLike<unknown>) {
  const err = await Promise.resolve(p).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  const cause = (err as Error).cause as Error | undefined;
  expect(cause?.message ?? (err as Error).message).toMatch(/append-only/);
}

async function verify(orgId: string): Promise<number | null> {
  const rows = await queryRows<{ broken: string | null }>(
    t.db,
    sql`select audit_log_verify(${orgId}) as broken`,
  );
  const broken = rows[0]?.broken;
  return broken == null ? null : Number(broken);
}

describe("audit_log", () => {
  it("chains rows per organization with gapless sequence numbers", async () => {
    const a = await newOrg("a");
    const b = await newOrg("b");
    for (let i = 0; i < 3; i++) {
      await t.db
        .insert(auditLog)
        .values({ orgId: a.id, action: "X", target: `t${i}`, userEmail: "x@a.test" });
      await t.db
        .insert(auditLog)
        .values({ orgId: b.id, action: "Y", target: `t${i}`, userEmail: "y@b.test" });
    }
    const rows = await t.db.select().from(auditLog).where(eq(auditLog.orgId, a.id)).orderBy(auditLog.seq);
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(rows[0]?.prevHash).toBe("0".repeat(64));
    expect(rows[1]?.prevHash).toBe(rows[0]?.hash);
    expect(rows[2]?.prevHash).toBe(rows[1]?.hash);
    expect(rows[0]?.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await verify(a.id)).toBeNull();
    expect(await verify(b.id)).toBeNull();
  });

  it("keeps the chain gapless under concurrent writers", async () => {
    const org = await newOrg("concurrent");
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.db.insert(auditLog).values({ orgId: org.id, action: "C", target: `n${i}`, userEmail: "c@c.test" }),
      ),
    );
    const rows = await t.db.select().from(auditLog).where(eq(auditLog.orgId, org.id)).orderBy(auditLog.seq);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await verify(org.id)).toBeNull();
  });

  it("refuses UPDATE, DELETE and TRUNCATE", async () => {
    const org = await newOrg("immutable");
    await t.db.insert(auditLog).values({ orgId: org.id, action: "A", target: "t", userEmail: "a@a.test" });
    await expectRefused(t.db.update(auditLog).set({ target: "forged" }).where(eq(auditLog.orgId, org.id)));
    await expectRefused(t.db.delete(auditLog).where(eq(auditLog.orgId, org.id)));
    await expectRefused(t.db.execute(sql`truncate audit_log`));
  });

  it("detects a row altered behind the triggers' back", async () => {
    const org = await newOrg("tampered");
    for (const target of ["one", "two", "three"]) {
      await t.db.insert(auditLog).values({ orgId: org.id, action: "A", target, userEmail: "a@a.test" });
    }
    // An attacker with table-owner rights disables the guard and rewrites history.
    await t.db.execute(sql`alter table audit_log disable trigger audit_log_no_update_delete`);
    await t.db.execute(sql`update audit_log set target = 'forged' where org_id = ${org.id} and seq = 2`);
    await t.db.execute(sql`alter table audit_log enable trigger audit_log_no_update_delete`);
    expect(await verify(org.id)).toBe(2);
  });
});
