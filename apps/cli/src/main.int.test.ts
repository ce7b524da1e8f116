import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createApiKeyFor, createOrganization, createUser } from "@posture/account";
import { createEmbeddedDb, lockFileOf, queryRows } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import {
  API_KEY_PATTERN,
  deriveAuditKey,
  parseEncryptionKey,
  resolveApiKey,
  setAuditKey,
  verifyAuditChain,
} from "@posture/platform";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// What `pnpm cli` and `pnpm start` run: the apps' bundles on plain Node, built (when stale) by the
// integration project's global set-up (tooling/test/app-bundles.mjs).
const CLI = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const GATEWAY_DIR = fileURLToPath(new URL("../../gateway", import.meta.url));

type TRun = { code: number; stdout: string; stderr: string };

function cli(args: string[], env: Record<string, string>): Promise<TRun> {
  const { DATABASE_URL: _db, DATA_DIR: _dir, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--enable-source-maps", CLI, ...args],
      { env: { ...inherited, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs a command expected to succeed and returns its one JSON object. */
async function ok(args: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  const run = await cli([...args, "--json"], env);
  expect(run, run.stderr).toMatchObject({ code: 0 });
  expect(run.stdout.trim().split("\n")).toHaveLength(1);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

async function fails(args: string[], env: Record<string, string>) {
  const run = await cli([...args, "--json"], env);
  expect(run.code).not.toBe(0);
  expect(run.stdout).toBe("");
  return { ...run, error: JSON.parse(run.stderr.trim()) as { error: string; message: string } };
}

// The server's key: the CLI must key its audit rows with it, as the gateway and scheduler do.
const ENCRYPTION_KEY = randomBytes(32).toString("hex");
const AUDIT_KEY = deriveAuditKey(parseEncryptionKey(ENCRYPTION_KEY));

/** Every organization's chain, verified as the evidence package does, with the server's key. */
async function chainsOf(t: TestDb) {
  const orgs = await t.db.query.organizations.findMany({ columns: { id: true } });
  return Promise.all(
    orgs.map(async ({ id }) => {
      const check = await verifyAuditChain(t.db, id, AUDIT_KEY, { requireKeyedTail: true });
      return { ok: check.ok, keyed: check.rows > check.unkeyedRows, ...(check.ok ? {} : { id, check }) };
    }),
  );
}

/** An organization the server has written to (an owner and a key, under its key): a keyed chain. */
async function serverWrittenOrg(name: string, email: string) {
  setAuditKey(AUDIT_KEY);
  try {
    const org = await createOrganization(db.db, { name, plan: "business" });
    const owner = await createUser(db.db, { orgId: org.id, email, password: "password1", role: "OWNER" });
    await createApiKeyFor(db.db, { orgId: org.id, userId: owner.id, name: "server-made" });
    return { org, owner };
  } finally {
    setAuditKey(null);
  }
}

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

describe("pnpm cli demo:seed", { timeout: 120_000 }, () => {
  it("seeds an empty database once and prints what it made", async () => {
    const fresh = await createTestDb();
    try {
      const seed = await ok(["demo:seed"], { DATABASE_URL: fresh.url, ENCRYPTION_KEY });
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
      expect(await fails(["demo:seed"], { DATABASE_URL: fresh.url, ENCRYPTION_KEY })).toMatchObject({
        error: { error: "conflict" },
      });
    } finally {
      await fresh.drop();
    }
  }, 120_000);
});

describe("pnpm cli in embedded mode", { timeout: 120_000 }, () => {
  it("migrates and keeps its data in DATA_DIR between runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "posture-cli-"));
    try {
      const org = await ok(["org:create", "--name", "Embedded", "--plan", "starter"], { DATA_DIR: dir });
      const changed = await ok(["org:set-plan", "--org", String(org.id), "--plan", "free"], {
        DATA_DIR: dir,
      });
      expect(changed).toMatchObject({ id: org.id, plan: "free", inGrace: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe("pnpm cli and the audit chain", { timeout: 180_000 }, () => {
  it("keys every audit row it writes: each command leaves every organization's chain intact", async () => {
    // An organization the server has been writing to: its chain is keyed already.
    const { org: existing, owner } = await serverWrittenOrg("Served Co", "owner@served.test");

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
    const { org, owner } = await serverWrittenOrg("Keyed Elsewhere", "owner@elsewhere.test");

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

describe("pnpm cli audit:verify", { timeout: 180_000 }, () => {
  it("reports each organization's chain, and exits 3 naming the first broken entry", async () => {
    const fresh = await createTestDb();
    try {
      const e = { DATABASE_URL: fresh.url, ENCRYPTION_KEY };
      await ok(["demo:seed"], e);
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
    } finally {
      await fresh.drop();
    }
  });
});

describe("pnpm cli beside a server holding DATA_DIR", { timeout: 180_000 }, () => {
  it("refuses at once, naming the holding process, and writes nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "posture-cli-held-"));
    // The server's way of opening the embedded database: it takes DATA_DIR's lock.
    const server = await createEmbeddedDb(join(dir, "pg"));
    try {
      await server.migrate();
      const started = Date.now();
      const refused = await fails(["org:create", "--name", "Lost", "--plan", "team"], { DATA_DIR: dir });
      expect(refused).toMatchObject({
        code: 1,
        error: { error: "data_dir_in_use", message: expect.stringContaining(`process ${process.pid}`) },
      });
      expect(Date.now() - started).toBeLessThan(30_000);
      // The server's database holds no such organization, and the server's lock is still its own.
      const orgs = await server.db.query.organizations.findMany();
      expect(orgs).toEqual([]);
      expect(existsSync(lockFileOf(join(dir, "pg")))).toBe(true);
    } finally {
      await server.close();
    }
    try {
      // Released on close; a lock left by a process that died is stale and taken over.
      expect(existsSync(lockFileOf(join(dir, "pg")))).toBe(false);
      const dead = spawnSync("true").pid;
      writeFileSync(
        lockFileOf(join(dir, "pg")),
        JSON.stringify({ pid: dead, hostname: "h", startedAt: "", command: "gateway", token: "x" }),
      );
      const org = await ok(["org:create", "--name", "After", "--plan", "team"], { DATA_DIR: dir });
      expect(org).toMatchObject({ name: "After" });
      expect(existsSync(lockFileOf(join(dir, "pg")))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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

describe("pnpm cli beside the real gateway in embedded mode", { timeout: 240_000 }, () => {
  let gateway: ChildProcess | undefined;
  afterAll(() => {
    gateway?.kill("SIGKILL");
  });

  it("is refused while `pnpm start` runs on DATA_DIR, and works once the gateway has stopped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "posture-cli-gateway-"));
    try {
      const { DATABASE_URL: _db, REDIS_URL: _redis, ENCRYPTION_KEY: _key, ...inherited } = process.env;
      const proc = spawn(process.execPath, ["--enable-source-maps", join(GATEWAY_DIR, "dist/main.js")], {
        cwd: GATEWAY_DIR,
        env: { ...inherited, DATA_DIR: dir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" },
        stdio: ["ignore", "pipe", "inherit"],
      });
      gateway = proc;
      // Started and seeded: the demo banner is its last word.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("gateway did not seed in time")), 180_000);
        createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
          if (line.includes("API key for")) {
            clearTimeout(timer);
            resolve();
          }
        });
        proc.on("exit", (code) => reject(new Error(`gateway exited early with ${code}`)));
      });

      const refused = await fails(["org:create", "--name", "Lost", "--plan", "team"], { DATA_DIR: dir });
      expect(refused).toMatchObject({
        code: 1,
        error: { error: "data_dir_in_use", message: expect.stringContaining(`process ${proc.pid}`) },
      });

      const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
      proc.kill("SIGTERM");
      expect(await exited).toBe(0);
      gateway = undefined;
      expect(existsSync(lockFileOf(join(dir, "pg")))).toBe(false);

      const kept = await ok(["org:create", "--name", "Kept", "--plan", "team"], { DATA_DIR: dir });
      const verified = await ok(["audit:verify"], { DATA_DIR: dir });
      const names = (verified.organizations as { name: string; ok: boolean }[]).map((o) => o.name);
      expect(names).toContain("Kept");
      expect(names).toContain("Acme Corp"); // the gateway's demo seed, its audit rows keyed alike
      expect(names).not.toContain("Lost");
      expect(verified.ok).toBe(true);
      expect(kept).toMatchObject({ name: "Kept" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
