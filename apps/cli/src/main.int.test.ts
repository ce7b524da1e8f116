import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { API_KEY_PATTERN, resolveApiKey } from "@posture/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TSX = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));
const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

type TRun = { code: number; stdout: string; stderr: string };

function cli(args: string[], env: Record<string, string>): Promise<TRun> {
  const { DATABASE_URL: _db, DATA_DIR: _dir, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      TSX,
      [MAIN, ...args],
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

let db: TestDb;
let env: Record<string, string>;
beforeAll(async () => {
  db = await createTestDb();
  env = { DATABASE_URL: db.url };
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
    });

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
});

describe("pnpm cli demo:seed", { timeout: 120_000 }, () => {
  it("seeds an empty database once and prints what it made", async () => {
    const fresh = await createTestDb();
    try {
      const seed = await ok(["demo:seed"], { DATABASE_URL: fresh.url });
      expect(seed).toMatchObject({
        organizations: expect.arrayContaining([
          expect.objectContaining({ name: "Acme Corp", plan: "business" }),
          expect.objectContaining({ name: "Globex", plan: "team" }),
          expect.objectContaining({ name: "Northwind MSP", plan: "enterprise" }),
        ]),
        users: expect.arrayContaining([expect.objectContaining({ orgName: "Acme Corp", role: "OWNER" })]),
        apiKey: { key: expect.stringMatching(API_KEY_PATTERN), orgName: "Acme Corp" },
      });
      expect(await fails(["demo:seed"], { DATABASE_URL: fresh.url })).toMatchObject({
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
