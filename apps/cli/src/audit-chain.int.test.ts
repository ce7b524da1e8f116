import { randomBytes } from "node:crypto";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { verifyAuditChain } from "@posture/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_KEY, chainsOf, cli, fails, ENCRYPTION_KEY, ok, serverWrittenOrg } from "./cli-testing";

// `pnpm cli` against DATABASE_URL and the audit chain: it keys every row it writes with the
// server's key, refuses another key, and writes as the application's database role. (Apart from
// main.int.test.ts so that the two files run side by side.)

let db: TestDb;
let env: Record<string, string>;
beforeAll(async () => {
  db = await createTestDb();
  env = { DATABASE_URL: db.url, ENCRYPTION_KEY };
});
afterAll(async () => {
  await db.drop();
});

describe("pnpm cli and the audit chain", { timeout: 180_000 }, () => {
  it("keys every audit row it writes: each command leaves every organization's chain intact", async () => {
    // An organization the server has been writing to: its chain is keyed already.
    const { org: existing, owner } = await serverWrittenOrg(db.db, "Served Co", "owner@served.test");

    const org = await ok(["org:create", "--name", "Chained", "--plan", "business"], env);
    const user = await ok(
      [
        "user:create",
        "--org",
        String(org.id),
        "--email",
        "c@chained.test",
        "--password",
        "password1",
        "--role",
        "ADMIN",
      ],
      env,
    );
    await ok(["key:create", "--org", String(org.id), "--user", String(user.id), "--name", "one"], env);
    await ok(["key:create", "--org", String(org.id), "--user", String(user.id), "--name", "two"], env);
    await ok(["org:set-plan", "--org", String(org.id), "--plan", "team"], env);
    // The case of the report: a key issued by the CLI on an organization the server writes to.
    await ok(["key:create", "--org", existing.id, "--user", owner.id, "--name", "cli-made"], env);

    const chains = await chainsOf(db);
    expect(chains.filter((c) => !c.ok)).toEqual([]);
    const existingCheck = await verifyAuditChain(db.db, existing.id, AUDIT_KEY, { requireKeyedTail: true });
    expect(existingCheck).toMatchObject({ ok: true, rows: 2, unkeyedRows: 0 });
    const cliCheck = await verifyAuditChain(db.db, String(org.id), AUDIT_KEY, { requireKeyedTail: true });
    expect(cliCheck).toMatchObject({ ok: true, rows: 2, unkeyedRows: 0 });

    // And the CLI's own verifier agrees.
    const verified = await ok(["audit:verify"], env);
    expect(verified).toMatchObject({ ok: true });
    expect(verified.organizations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: existing.id, ok: true, entries: 2, brokenAt: null }),
        expect.objectContaining({ id: org.id, ok: true, entries: 2, brokenAt: null }),
      ]),
    );
  });

  it("refuses to write with another key than the chain's, or with none, and writes nothing", async () => {
    const { org, owner } = await serverWrittenOrg(db.db, "Keyed Elsewhere", "owner@elsewhere.test");

    const args = ["key:create", "--org", org.id, "--user", owner.id, "--name", "wrong-key"];
    const [wrongKey, noKey] = await Promise.all([
      fails(args, { DATABASE_URL: db.url, ENCRYPTION_KEY: randomBytes(32).toString("hex") }),
      fails(args, { DATABASE_URL: db.url }),
    ]);
    expect(wrongKey).toMatchObject({ code: 1, error: { error: "audit_key_mismatch" } });
    // Verification is read-only: it runs with any key and reports what that key finds.
    const otherKey = await cli(["audit:verify", "--org", org.id, "--json"], {
      DATABASE_URL: db.url,
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    });
    expect(otherKey.code).toBe(3);
    expect(JSON.parse(otherKey.stdout)).toMatchObject({
      ok: false,
      organizations: [{ id: org.id, brokenAt: { seq: 1, reason: "MAC does not match" } }],
    });
    expect(JSON.parse(otherKey.stderr)).toMatchObject({
      error: "audit_chain_broken",
      message: expect.stringContaining("is the audit key the server's?"),
    });
    expect(noKey).toMatchObject({ code: 1, error: { message: expect.stringContaining("ENCRYPTION_KEY") } });
    const keys = await db.db.query.apiKeys.findMany({ where: (k, { eq }) => eq(k.orgId, org.id) });
    expect(keys.map((k) => k.name)).toEqual(["server-made"]);
    expect((await verifyAuditChain(db.db, org.id, AUDIT_KEY, { requireKeyedTail: true })).ok).toBe(true);
  });
});

describe("pnpm cli as the application's database role", { timeout: 180_000 }, () => {
  const role = `posture_cli_${randomBytes(4).toString("hex")}`;
  afterAll(async () => {
    await db.db.execute(sql.raw(`drop role if exists ${role}`));
  });

  it("migrates as MIGRATION_DATABASE_URL's owner and writes as a member of posture_app", async () => {
    // What docker-compose.yml runs: a login role in posture_app, the owner only for migrations.
    await db.db.execute(sql.raw(`create role ${role} login in role posture_app`));
    const app = new URL(db.url);
    app.username = role;
    const e = { DATABASE_URL: app.toString(), MIGRATION_DATABASE_URL: db.url, ENCRYPTION_KEY };
    const org = await ok(["org:create", "--name", "App Role", "--plan", "team"], e);
    const user = await ok(
      [
        "user:create",
        "--org",
        String(org.id),
        "--email",
        "a@approle.test",
        "--password",
        "password1",
        "--role",
        "OWNER",
      ],
      e,
    );
    await ok(["key:create", "--org", String(org.id), "--user", String(user.id), "--name", "k"], e);
    expect(await ok(["audit:verify", "--org", String(org.id)], e)).toMatchObject({
      ok: true,
      organizations: [{ id: org.id, entries: 1 }],
    });
  });
});
