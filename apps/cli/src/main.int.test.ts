import { createTestDb, type TestDb } from "@posture/db/testing";
import { queryRows } from "@posture/db";
import { API_KEY_PATTERN, resolveApiKey, verifyAuditChain } from "@posture/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_KEY, ENCRYPTION_KEY, fails, ok } from "./cli-testing";

// `pnpm cli` against DATABASE_URL: organizations, users, keys and plans. The audit chain it keys
// and the application's database role are in audit-chain.int.test.ts, the demo seed and
// audit:verify over it in demo-seed.int.test.ts, embedded mode in embedded.int.test.ts (DATA_DIR)
// and embedded-held.int.test.ts (beside a server): apart, the five files run side by side.

let db: TestDb;
let env: Record<string, string>;
beforeAll(async () => {
  db = await createTestDb();
  env = { DATABASE_URL: db.url, ENCRYPTION_KEY };
});
afterAll(async () => {
  await db.drop();
});

// Each test runs several `pnpm cli` processes (about a second each, several under CI's load):
// the budget is for process start-up, not for what is tested.
describe("pnpm cli against DATABASE_URL", { timeout: 120_000 }, () => {
  it("creates organizations, a managed client, users and keys, and changes plans", async () => {
    const partner = await ok(
      ["org:create", "--name", "Partner MSP", "--plan", "enterprise", "--partner"],
      env,
    );
    expect(partner).toEqual({ id: expect.stringMatching(/^org_/), name: "Partner MSP", plan: "enterprise" });

    const client = await ok(
      ["org:create", "--name", "Client Co", "--plan", "business", "--managed-by", String(partner.id)],
      env,
    );
    const clientRow = await db.db.query.organizations.findFirst({
      where: (o, { eq }) => eq(o.id, String(client.id)),
    });
    expect(clientRow).toMatchObject({
      name: "Client Co",
      plan: "business",
      managedByOrgId: partner.id,
      isPartner: false,
    });

    const user = await ok(
      [
        "user:create",
        "--org",
        String(client.id),
        "--email",
        "Ops@Client.test",
        "--password",
        "s3cret-pass",
        "--role",
        "OWNER",
      ],
      env,
    );
    expect(user).toEqual({ id: expect.stringMatching(/^usr_/), email: "ops@client.test", role: "OWNER" });
    const membership = await db.db.query.memberships.findFirst({
      where: (m, { eq }) => eq(m.userId, String(user.id)),
    });
    expect(membership).toMatchObject({ orgId: client.id, role: "OWNER" });

    const key = await ok(
      ["key:create", "--org", String(client.id), "--user", String(user.id), "--name", "ops"],
      env,
    );
    expect(key).toMatchObject({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(API_KEY_PATTERN),
    });
    expect(key.keyPrefix).toBe(String(key.key).slice(0, 12));
    const resolved = await resolveApiKey(db.db, String(key.key));
    expect(resolved.ok && resolved.principal).toMatchObject({
      userId: user.id,
      role: "OWNER",
      org: { id: client.id },
      scopes: null,
    });
    const readKey = await ok(
      [
        "key:create",
        "--org",
        String(client.id),
        "--user",
        String(user.id),
        "--name",
        "siem",
        "--scopes",
        "read",
      ],
      env,
    );
    expect(readKey.scopes).toEqual(["read"]);
    const readResolved = await resolveApiKey(db.db, String(readKey.key));
    expect(readResolved.ok && readResolved.principal.scopes).toEqual(["read"]);

    const downgraded = await ok(["org:set-plan", "--org", String(client.id), "--plan", "team"], env);
    expect(downgraded).toMatchObject({ id: client.id, plan: "team", inGrace: true });
    expect(new Date(String(downgraded.graceEndsAt)).getTime()).toBeGreaterThan(Date.now() + 13 * 86_400_000);
    const upgraded = await ok(["org:set-plan", "--org", String(client.id), "--plan", "enterprise"], env);
    expect(upgraded).toEqual({ id: client.id, plan: "enterprise", inGrace: false, graceEndsAt: null });
  }, 120_000);

  it("fails with a non-zero exit and an error on stderr", async () => {
    const org = await ok(["org:create", "--name", "Errors Inc", "--plan", "free"], env);
    const orgId = String(org.id);
    await ok(
      [
        "user:create",
        "--org",
        orgId,
        "--email",
        "dup@errors.test",
        "--password",
        "password1",
        "--role",
        "member",
      ],
      env,
    );

    const duplicate = await fails(
      [
        "user:create",
        "--org",
        orgId,
        "--email",
        "DUP@errors.test",
        "--password",
        "password2",
        "--role",
        "ADMIN",
      ],
      env,
    );
    expect(duplicate).toMatchObject({ code: 1, error: { error: "conflict" } });
    const dups = await db.db.query.users.findMany({ where: (u, { eq }) => eq(u.email, "dup@errors.test") });
    expect(dups).toHaveLength(1);
  }, 120_000);

  it("refuses unknown ids, bad values, missing and foreign options, unknown commands", async () => {
    const org = await ok(["org:create", "--name", "Errors Two", "--plan", "free"], env);
    const orgId = String(org.id);
    // Independent failures: run side by side, each process start costs a couple of seconds.
    const [
      missingOrg,
      badPlan,
      noPassword,
      badRole,
      missingUser,
      foreignOption,
      unknownCommand,
      unknownOption,
    ] = await Promise.all([
      fails(["org:set-plan", "--org", "org_missing", "--plan", "team"], env),
      fails(["org:create", "--name", "X", "--plan", "gold"], env),
      fails(["user:create", "--org", orgId, "--email", "x@y.test", "--role", "OWNER"], env),
      fails(
        ["user:create", "--org", orgId, "--email", "x@y.test", "--password", "password1", "--role", "root"],
        env,
      ),
      fails(["key:create", "--org", orgId, "--user", "usr_missing", "--name", "k"], env),
      fails(["org:create", "--name", "X", "--plan", "free", "--email", "a@b.test"], env),
      fails(["org:explode"], env),
      fails(["org:create", "--bogus"], env),
    ]);
    expect(missingOrg).toMatchObject({ code: 1, error: { error: "not_found" } });
    expect(badPlan).toMatchObject({
      code: 2,
      error: { error: "invalid_input", message: expect.stringContaining("--plan") },
    });
    expect(noPassword).toMatchObject({ code: 2, error: { message: expect.stringContaining("--password") } });
    expect(badRole).toMatchObject({ code: 2, error: { message: expect.stringContaining("--role") } });
    expect(missingUser).toMatchObject({ code: 1, error: { error: "not_found" } });
    expect(foreignOption).toMatchObject({ code: 2, error: { error: "invalid_input" } });
    expect(unknownCommand).toMatchObject({ code: 2, error: { error: "usage" } });
    expect(unknownOption).toMatchObject({ code: 2, error: { error: "usage" } });
    const orgs = await db.db.query.organizations.findMany({ where: (o, { eq }) => eq(o.name, "X") });
    expect(orgs).toHaveLength(0);
  }, 180_000);

  it("keeps sandbox and real organizations apart, and moves a client without undoing its withdrawal", async () => {
    const [real, sandbox] = await Promise.all([
      ok(["org:create", "--name", "Real MSP", "--plan", "enterprise", "--partner"], env),
      ok(["org:create", "--name", "Sandbox MSP", "--plan", "enterprise", "--partner", "--sandbox"], env),
    ]);
    const [realUnderSandbox, sandboxUnderReal, noTarget] = await Promise.all([
      fails(
        ["org:create", "--name", "Crossed", "--plan", "business", "--managed-by", String(sandbox.id)],
        env,
      ),
      fails(
        [
          "org:create",
          "--name",
          "Crossed",
          "--plan",
          "business",
          "--sandbox",
          "--managed-by",
          String(real.id),
        ],
        env,
      ),
      fails(["org:set-manager", "--org", String(real.id)], env),
    ]);
    expect(realUnderSandbox).toMatchObject({
      code: 1,
      error: { error: "invalid_input", message: "a sandbox partner manages sandbox organizations only" },
    });
    expect(sandboxUnderReal).toMatchObject({
      code: 1,
      error: { error: "invalid_input", message: "a sandbox is managed by a sandbox partner only" },
    });
    expect(noTarget).toMatchObject({ code: 2, error: { error: "invalid_input" } });
    expect(await db.db.query.organizations.findMany({ where: (o, { eq }) => eq(o.name, "Crossed") })).toEqual(
      [],
    );

    const other = await ok(["org:create", "--name", "Other MSP", "--plan", "enterprise", "--partner"], env);
    const client = await ok(
      ["org:create", "--name", "Moved Co", "--plan", "business", "--managed-by", String(real.id)],
      env,
    );
    const clientId = String(client.id);
    // The client's OWNER withdrew (DELETE /api/partner-access does this, audited).
    await db.db.execute(
      sql`UPDATE partner_access SET withdrawn_at = now() WHERE client_org_id = ${clientId}`,
    );
    const crossed = await fails(
      ["org:set-manager", "--org", clientId, "--managed-by", String(sandbox.id)],
      env,
    );
    expect(crossed).toMatchObject({ code: 1, error: { error: "invalid_input" } });
    const moved = await ok(["org:set-manager", "--org", clientId, "--managed-by", String(other.id)], env);
    expect(moved).toEqual({ id: clientId, managedByOrgId: other.id, access: "withdrawn", changed: true });
    const unlinked = await ok(["org:set-manager", "--org", clientId, "--unmanaged"], env);
    expect(unlinked).toEqual({ id: clientId, managedByOrgId: null, access: null, changed: true });
    const trail = await queryRows<{
      org_id: string;
      metadata: { toPartnerOrgId: string | null; access: string };
    }>(
      db.db,
      sql`SELECT org_id, metadata FROM audit_log WHERE action = 'PARTNER_LINK_CHANGED' AND target IN (${clientId}, ${String(real.id)}, ${String(other.id)}) ORDER BY seq`,
    );
    expect(
      trail.filter((r) => r.org_id === clientId).map((r) => [r.metadata.toPartnerOrgId, r.metadata.access]),
    ).toEqual([
      [real.id, "granted"],
      [other.id, "withdrawn"],
      [null, null],
    ]);
    expect(trail.filter((r) => r.org_id === other.id)).toHaveLength(2);
    expect(trail.filter((r) => r.org_id === real.id)).toHaveLength(2);
    for (const orgId of [clientId, String(real.id), String(other.id)])
      expect(await verifyAuditChain(db.db, orgId, AUDIT_KEY, { requireKeyedTail: true })).toMatchObject({
        ok: true,
      });
  }, 180_000);
});
