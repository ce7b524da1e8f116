import { createTestDb, type TestDb } from "@posture/db/testing";
import { queryRows } from "@posture/db";
import { API_KEY_PATTERN } from "@posture/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainsOf, cli, ENCRYPTION_KEY, fails, ok, type TRun } from "./cli-testing";

// `pnpm cli demo:seed` into an empty database, and audit:verify over what it seeded. The seed (its
// eight weeks of history: most of this file's time) runs once, and both tests read its database:
// the first what the seed printed and wrote, the second the demo organizations' chains beside the
// one it tampers with.

let fresh: TestDb;
let e: Record<string, string>;
let seeded: TRun;
beforeAll(async () => {
  fresh = await createTestDb();
  e = { DATABASE_URL: fresh.url, ENCRYPTION_KEY };
  // About 26 s on a quiet machine; a full run on two busy cores (load 11) took over 60 s.
  seeded = await cli(["demo:seed", "--json"], e, 170_000);
}, 180_000);
afterAll(async () => {
  await fresh.drop();
});

describe("pnpm cli demo:seed", { timeout: 120_000 }, () => {
  it("seeds an empty database once and prints what it made", async () => {
    // What ok(["demo:seed"]) checks, on the run made before the tests.
    expect(seeded, seeded.stderr).toMatchObject({ code: 0 });
    expect(seeded.stdout.trim().split("\n")).toHaveLength(1);
    const seed = JSON.parse(seeded.stdout) as Record<string, unknown>;
    expect(seed).toMatchObject({
      organizations: expect.arrayContaining([
        expect.objectContaining({ name: "Acme Corp", plan: "business" }),
        expect.objectContaining({ name: "Globex", plan: "team" }),
        expect.objectContaining({ name: "Northwind MSP", plan: "enterprise" }),
      ]),
      users: expect.arrayContaining([expect.objectContaining({ orgName: "Acme Corp", role: "OWNER" })]),
      apiKey: { key: expect.stringMatching(API_KEY_PATTERN), orgName: "Acme Corp" },
    });
    // The seed's audit rows (its API key) are keyed with the server's key.
    expect(await chainsOf(fresh)).toEqual(expect.arrayContaining([{ ok: true, keyed: true }]));
    expect((await chainsOf(fresh)).every((c) => c.ok)).toBe(true);
    expect(await fails(["demo:seed"], e)).toMatchObject({
      error: { error: "conflict" },
    });
  }, 120_000);
});

describe("pnpm cli audit:verify", { timeout: 180_000 }, () => {
  it("reports each organization's chain, and exits 3 naming the first broken entry", async () => {
    // The database demo:seed seeded (above).
    expect(seeded.code, seeded.stderr).toBe(0);
    const org = await ok(["org:create", "--name", "Tampered", "--plan", "business"], e);
    const orgId = String(org.id);
    const user = await ok(
      [
        "user:create",
        "--org",
        orgId,
        "--email",
        "t@tampered.test",
        "--password",
        "password1",
        "--role",
        "OWNER",
      ],
      e,
    );
    for (const name of ["a", "b", "c"]) {
      await ok(["key:create", "--org", orgId, "--user", String(user.id), "--name", name], e);
    }
    const intact = await ok(["audit:verify", "--org", orgId], e);
    expect(intact).toEqual({
      ok: true,
      organizations: [
        { id: orgId, name: "Tampered", ok: true, entries: 3, unkeyedEntries: 0, brokenAt: null },
      ],
      verifiedAt: expect.any(String),
    });

    // The database's owner rewrites the second entry around the append-only triggers.
    await fresh.db.execute(sql`alter table audit_log disable trigger user`);
    await fresh.db.execute(sql`update audit_log set target = 'forged' where org_id = ${orgId} and seq = 2`);
    await fresh.db.execute(sql`alter table audit_log enable trigger user`);
    const [second] = await queryRows<{ id: string; created_at: Date | string }>(
      fresh.db,
      sql`select id, created_at from audit_log where org_id = ${orgId} and seq = 2`,
    );

    const run = await cli(["audit:verify", "--json"], e);
    expect(run.code, run.stderr).toBe(3);
    const report = JSON.parse(run.stdout) as {
      ok: boolean;
      organizations: { id: string; ok: boolean; brokenAt: unknown }[];
    };
    expect(report.ok).toBe(false);
    expect(report.organizations.find((o) => o.id === orgId)).toMatchObject({
      ok: false,
      entries: 3,
      brokenAt: {
        seq: 2,
        id: second?.id,
        createdAt: new Date(second?.created_at ?? 0).toISOString(),
        reason: "MAC does not match",
      },
    });
    // The demo organizations stay intact beside it.
    expect(report.organizations.filter((o) => o.id !== orgId).every((o) => o.ok)).toBe(true);
    expect(JSON.parse(run.stderr.trim())).toMatchObject({
      error: "audit_chain_broken",
      message: expect.stringContaining(orgId),
    });
    expect((await fails(["audit:verify", "--org", "org_missing"], e)).error).toMatchObject({
      error: "not_found",
    });
  });
});
