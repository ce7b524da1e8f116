import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDb, organizations, queryRows } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { recordAudit } from "./audit";
import {
  auditKeyMatches,
  deriveAuditKey,
  sealUnkeyedAuditChains,
  setAuditKey,
  verifyAuditChain,
} from "./audit-chain";

let db: TestDb;
const key = deriveAuditKey(randomBytes(32));
beforeAll(async () => {
  db = await createTestDb();
});
afterEach(() => setAuditKey(null));
afterAll(async () => {
  await db?.drop();
});

async function newOrg() {
  const [org] = await db.db
    .insert(organizations)
    .values({ name: `Org ${randomBytes(3).toString("hex")}` })
    .returning();
  if (!org) throw new Error("org insert failed");
  return org.id;
}

const record = (orgId: string, target: string) =>
  recordAudit(db.db, {
    orgId,
    action: "API_KEY_CREATED",
    target,
    userEmail: "admin@example.test",
    metadata: { n: 1, a: [1, "x"] },
  });

/** What an attacker with the owner's database rights does: triggers off, rewrite, plain chain recomputed. */
async function asOwnerRewrite(
  orgId: string,
  fromSeq: number,
  change: { target?: string; toPlain?: boolean },
) {
  await db.db.execute(sql`alter table audit_log disable trigger user`);
  try {
    if (change.target !== undefined) {
      await db.db.execute(
        sql`update audit_log set target = ${change.target} where org_id = ${orgId} and seq = ${fromSeq}`,
      );
    }
    const rows = await queryRows<{ seq: string }>(
      db.db,
      sql`select seq::text as seq from audit_log where org_id = ${orgId} and seq >= ${fromSeq} order by seq`,
    );
    for (const { seq } of rows) {
      await db.db.execute(sql`
        update audit_log a set
          prev_hash = coalesce((select p.hash from audit_log p where p.org_id = a.org_id and p.seq = a.seq - 1), repeat('0', 64)),
          chain = case when ${change.toPlain ?? false} then 'sha256' else a.chain end
        where a.org_id = ${orgId} and a.seq = ${Number(seq)}`);
      await db.db.execute(sql`
        update audit_log set hash = audit_log_row_hash(prev_hash, seq, org_id, action, target, user_id, user_email, metadata, created_at)
        where org_id = ${orgId} and seq = ${Number(seq)}`);
    }
  } finally {
    await db.db.execute(sql`alter table audit_log enable trigger user`);
  }
}

describe("keyed audit chain", () => {
  it("verifies an intact chain written by the application, and fails without the right key", async () => {
    setAuditKey(key);
    const orgId = await newOrg();
    for (const t of ["a", "b", "c"]) await record(orgId, t);
    // Concurrent writers still produce one gapless chain.
    await Promise.all(Array.from({ length: 8 }, (_, i) => record(orgId, `p${i}`)));
    expect(await verifyAuditChain(db.db, orgId, key)).toEqual({
      ok: true,
      rows: 11,
      unkeyedRows: 0,
      firstBadSeq: null,
      reason: null,
    });
    expect((await verifyAuditChain(db.db, orgId, deriveAuditKey(randomBytes(32)))).ok).toBe(false);
  });

  it("detects a row altered with the triggers disabled, even with the plain SHA chain recomputed", async () => {
    setAuditKey(key);
    const orgId = await newOrg();
    for (const t of ["a", "b", "c", "d"]) await record(orgId, t);
    await asOwnerRewrite(orgId, 2, { target: "forged" });
    expect(await verifyAuditChain(db.db, orgId, key)).toMatchObject({
      ok: false,
      firstBadSeq: 2,
      reason: "MAC does not match",
    });
  });

  it("detects a keyed chain rewritten as a plain one", async () => {
    setAuditKey(key);
    const orgId = await newOrg();
    for (const t of ["a", "b", "c"]) await record(orgId, t);
    await asOwnerRewrite(orgId, 2, { target: "forged", toPlain: true });
    expect(await verifyAuditChain(db.db, orgId, key)).toMatchObject({
      ok: false,
      firstBadSeq: 2,
      reason: "unkeyed row after keyed rows",
    });
    // Even the whole chain turned plain: it no longer ends with a keyed row.
    await asOwnerRewrite(orgId, 1, { toPlain: true });
    expect(await verifyAuditChain(db.db, orgId, key, { requireKeyedTail: true })).toMatchObject({
      ok: false,
      reason: "the chain does not end with a keyed row",
    });
  });

  it("covers rows from before the keyed chain once sealed, and detects their alteration", async () => {
    const orgId = await newOrg();
    await record(orgId, "legacy-1"); // no key: the trigger's plain chain, as before migration 0006
    await record(orgId, "legacy-2");
    expect(await sealUnkeyedAuditChains(db.db, key)).toBeGreaterThanOrEqual(1);
    setAuditKey(key);
    await record(orgId, "after");
    expect(await verifyAuditChain(db.db, orgId, key, { requireKeyedTail: true })).toMatchObject({
      ok: true,
      rows: 4,
      unkeyedRows: 2,
    });
    expect(await sealUnkeyedAuditChains(db.db, key)).toBe(0);

    // Rewriting an old row and recomputing the plain chain up to the seal breaks the seal's link.
    await db.db.execute(sql`alter table audit_log disable trigger user`);
    await db.db.execute(sql`update audit_log set target = 'forged' where org_id = ${orgId} and seq = 1`);
    await db.db.execute(
      sql`update audit_log set hash = audit_log_row_hash(prev_hash, seq, org_id, action, target, user_id, user_email, metadata, created_at) where org_id = ${orgId} and seq = 1`,
    );
    await db.db.execute(
      sql`update audit_log a set prev_hash = (select p.hash from audit_log p where p.org_id = a.org_id and p.seq = 1) where org_id = ${orgId} and seq = 2`,
    );
    await db.db.execute(
      sql`update audit_log set hash = audit_log_row_hash(prev_hash, seq, org_id, action, target, user_id, user_email, metadata, created_at) where org_id = ${orgId} and seq = 2`,
    );
    await db.db.execute(sql`alter table audit_log enable trigger user`);
    expect(await verifyAuditChain(db.db, orgId, key)).toMatchObject({
      ok: false,
      firstBadSeq: 3,
      reason: "broken link to the previous row",
    });
  });
});

describe("a process without the key", () => {
  it("cannot append to a keyed chain: the write fails and the chain stays intact", async () => {
    setAuditKey(key);
    const orgId = await newOrg();
    await record(orgId, "keyed");
    setAuditKey(null);
    await expect(record(orgId, "unkeyed")).rejects.toThrow(/audit key not set/);
    expect(await verifyAuditChain(db.db, orgId, key, { requireKeyedTail: true })).toMatchObject({
      ok: true,
      rows: 1,
    });
    // A chain that was never keyed still takes plain rows (rows from before the keyed chain).
    const plainOrg = await newOrg();
    await record(plainOrg, "plain");
    expect(await verifyAuditChain(db.db, plainOrg, key)).toMatchObject({ ok: true, unkeyedRows: 1 });
  });

  it("finds out that its key is not the chains' before writing", async () => {
    setAuditKey(key);
    await record(await newOrg(), "latest");
    expect(await auditKeyMatches(db.db, key)).toBe(true);
    expect(await auditKeyMatches(db.db, deriveAuditKey(randomBytes(32)))).toBe(false);
  });
});

describe("the application's database role", () => {
  const role = `posture_gw_${randomBytes(4).toString("hex")}`;
  let app: ReturnType<typeof createDb> | undefined;

  afterAll(async () => {
    await app?.close();
    await db.db.execute(sql.raw(`drop role if exists ${role}`));
  });

  it("can write audit rows but cannot disable the triggers, update or delete audit rows", async () => {
    await db.db.execute(sql.raw(`create role ${role} login in role posture_app`));
    const url = new URL(db.url);
    url.username = role;
    url.password = "";
    app = createDb({ databaseUrl: url.toString(), poolSize: 2 });
    setAuditKey(key);
    const orgId = await newOrg();
    await recordAudit(app.db, { orgId, action: "SIGN_IN", target: "x", userEmail: "u@example.test" });
    expect((await verifyAuditChain(app.db, orgId, key)).ok).toBe(true);

    const appDb = app.db;
    const refused = async (statement: string) => {
      const err = await appDb.execute(sql.raw(statement)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      const e = err as { code?: string; cause?: { code?: string } };
      return e.cause?.code ?? e.code;
    };
    expect(await refused("alter table audit_log disable trigger all")).toBe("42501"); // must be owner
    expect(await refused("alter table audit_log disable trigger audit_log_no_update_delete")).toBe("42501");
    expect(await refused(`update audit_log set target = 'forged' where org_id = '${orgId}'`)).toBe("42501");
    expect(await refused(`delete from audit_log where org_id = '${orgId}'`)).toBe("42501");
    expect(await refused("truncate audit_log")).toBe("42501");
    expect(await refused("drop trigger audit_log_chain on audit_log")).toBe("42501");
    expect(
      await refused(
        "create or replace function audit_log_refuse_change() returns trigger language plpgsql as $$ begin return new; end $$",
      ),
    ).toBe("42501");
    // Ordinary tables stay writable.
    await appDb.execute(sql`update organizations set name = 'renamed' where id = ${orgId}`);
  });
});
