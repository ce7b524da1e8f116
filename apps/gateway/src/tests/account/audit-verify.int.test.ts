import { queryRows } from "@posture/db";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { activeOrganization, requester } from "./helpers";

const gw = useTestGateway();
let req: ReturnType<typeof requester>;
beforeAll(async () => {
  req = requester(gw);
});

type TVerify = {
  ok: boolean;
  entries: number;
  unkeyedEntries: number;
  brokenAt: null | { seq: number; id: string | null; createdAt: string | null; reason: string };
  verifiedAt: string;
};
type TEntry = { id: string; action: string; createdAt: string };

const verify = async (o: { key?: string; cookie?: string }) => {
  const res = await req("GET", "/api/audit/verify", o);
  return { res, body: res.body as TVerify };
};

/** The oldest-first entries of the organization, as GET /api/audit shows them. */
async function entriesOf(key: string): Promise<TEntry[]> {
  const res = await req("GET", "/api/audit?limit=100", { key });
  expect(res.status).toBe(200);
  return [...(res.body as { entries: TEntry[] }).entries].reverse();
}

/** What the database's owner can do: switch the append-only triggers off and change history. */
async function asOwner(statement: ReturnType<typeof sql>) {
  await gw.db.db.execute(sql`alter table audit_log disable trigger user`);
  try {
    await gw.db.db.execute(statement);
  } finally {
    await gw.db.db.execute(sql`alter table audit_log enable trigger user`);
  }
}

describe("GET /api/audit/verify", () => {
  it("reports an intact chain, over a key or a session, and writes nothing", async () => {
    const owner = await activeOrganization(gw);
    const before = await entriesOf(owner.key);
    expect(before).toHaveLength(5);

    const byKey = await verify({ key: owner.key });
    expect(byKey.res.status).toBe(200);
    expect(byKey.body).toEqual({
      ok: true,
      entries: 5,
      unkeyedEntries: 0,
      brokenAt: null,
      verifiedAt: expect.any(String),
    });
    expect(Math.abs(new Date(byKey.body.verifiedAt).getTime() - Date.now())).toBeLessThan(60_000);

    const bySession = await verify({ cookie: owner.cookie });
    expect(bySession.res.status).toBe(200);
    expect(bySession.body).toMatchObject({ ok: true, entries: 5 });
    expect(await entriesOf(owner.key)).toEqual(before);

    // A new organization's empty chain is intact.
    const fresh = await gw.createActor({ role: "OWNER" });
    expect((await verify({ key: fresh.key })).body).toMatchObject({ ok: true, entries: 0, brokenAt: null });
  });

  it("names the first entry altered around the triggers", async () => {
    const owner = await activeOrganization(gw);
    const entries = await entriesOf(owner.key);
    await asOwner(sql`update audit_log set target = 'forged' where org_id = ${owner.orgId} and seq = 3`);
    const { res, body } = await verify({ key: owner.key });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({
      ok: false,
      entries: 5,
      brokenAt: {
        seq: 3,
        id: entries[2]?.id,
        createdAt: entries[2]?.createdAt,
        reason: "MAC does not match",
      },
    });
  });

  it("notices an entry removed, and one rewritten with the plain hash chain recomputed", async () => {
    const removed = await activeOrganization(gw);
    const entries = await entriesOf(removed.key);
    await asOwner(sql`delete from audit_log where org_id = ${removed.orgId} and seq = 2`);
    expect((await verify({ key: removed.key })).body).toMatchObject({
      ok: false,
      brokenAt: { seq: 3, id: entries[2]?.id, reason: "sequence gap" },
    });

    // Rewritten, then every later row's hash recomputed as the database trigger would (no key).
    const rewritten = await activeOrganization(gw);
    await asOwner(sql`update audit_log set target = 'forged' where org_id = ${rewritten.orgId} and seq = 4`);
    const rows = await queryRows<{ seq: number }>(
      gw.db.db,
      sql`select seq::int as seq from audit_log where org_id = ${rewritten.orgId} and seq >= 4 order by seq`,
    );
    for (const { seq } of rows) {
      await asOwner(sql`
        update audit_log a set
          prev_hash = (select p.hash from audit_log p where p.org_id = a.org_id and p.seq = a.seq - 1),
          chain = 'sha256',
          hash = audit_log_row_hash((select p.hash from audit_log p where p.org_id = a.org_id and p.seq = a.seq - 1),
            seq, org_id, action, target, user_id, user_email, metadata, created_at)
        where a.org_id = ${rewritten.orgId} and a.seq = ${seq}`);
    }
    expect((await verify({ key: rewritten.key })).body).toMatchObject({
      ok: false,
      brokenAt: { seq: 4, reason: "unkeyed row after keyed rows" },
    });
  });

  it("is ADMIN+ only and verifies only the caller's organization", async () => {
    const owner = await activeOrganization(gw);
    await asOwner(sql`update audit_log set target = 'forged' where org_id = ${owner.orgId} and seq = 1`);

    const admin = await gw.createUser(owner.orgId, "ADMIN");
    const adminKey = await gw.createApiKey(owner.orgId, admin.id);
    expect((await verify({ key: adminKey.key })).body).toMatchObject({ ok: false, brokenAt: { seq: 1 } });

    const member = await gw.createUser(owner.orgId, "member");
    const memberKey = await gw.createApiKey(owner.orgId, member.id);
    expect((await verify({ key: memberKey.key })).res).toMatchObject({
      status: 403,
      body: { error: "forbidden" },
    });
    const memberSession = await gw.createSession(owner.orgId, member.id);
    expect((await verify({ cookie: memberSession })).res.status).toBe(403);
    expect((await verify({})).res.status).toBe(401);

    // Another organization's intact chain is its own.
    const stranger = await activeOrganization(gw);
    expect((await verify({ key: stranger.key })).body).toMatchObject({ ok: true, entries: 5 });
  });
});
