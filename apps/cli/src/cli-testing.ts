import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createApiKeyFor, createOrganization, createUser } from "@posture/account";
import type { Db } from "@posture/db";
import type { TestDb } from "@posture/db/testing";
import { deriveAuditKey, parseEncryptionKey, setAuditKey, verifyAuditChain } from "@posture/platform";
import { expect } from "vitest";

// What the CLI's integration test files share: `pnpm cli` run as it runs, the server's key, and
// the audit chains read back. What `pnpm cli` and `pnpm start` run: the apps' bundles on plain
// Node, built (when stale) by the integration project's global set-up (tooling/test/app-bundles.mjs).
const CLI = fileURLToPath(new URL("../dist/main.js", import.meta.url));

export type TRun = { code: number; stdout: string; stderr: string };

/** `timeoutMs`: when the run is killed (and so fails); 60 s, longer for the demo seed's eight weeks. */
export function cli(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<TRun> {
  const { DATABASE_URL: _db, DATA_DIR: _dir, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--enable-source-maps", CLI, ...args],
      { env: { ...inherited, ...env }, timeout: timeoutMs },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs a command expected to succeed and returns its one JSON object. */
export async function ok(args: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  const run = await cli([...args, "--json"], env);
  expect(run, run.stderr).toMatchObject({ code: 0 });
  expect(run.stdout.trim().split("\n")).toHaveLength(1);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

export async function fails(args: string[], env: Record<string, string>) {
  const run = await cli([...args, "--json"], env);
  expect(run.code).not.toBe(0);
  expect(run.stdout).toBe("");
  return { ...run, error: JSON.parse(run.stderr.trim()) as { error: string; message: string } };
}

// The server's key: the CLI must key its audit rows with it, as the gateway and scheduler do.
export const ENCRYPTION_KEY = randomBytes(32).toString("hex");
export const AUDIT_KEY = deriveAuditKey(parseEncryptionKey(ENCRYPTION_KEY));

/** Every organization's chain, verified as the evidence package does, with the server's key. */
export async function chainsOf(t: TestDb) {
  const orgs = await t.db.query.organizations.findMany({ columns: { id: true } });
  return Promise.all(
    orgs.map(async ({ id }) => {
      const check = await verifyAuditChain(t.db, id, AUDIT_KEY, { requireKeyedTail: true });
      return { ok: check.ok, keyed: check.rows > check.unkeyedRows, ...(check.ok ? {} : { id, check }) };
    }),
  );
}

/** An organization the server has written to (an owner and a key, under its key): a keyed chain. */
export async function serverWrittenOrg(db: Db, name: string, email: string) {
  setAuditKey(AUDIT_KEY);
  try {
    const org = await createOrganization(db, { name, plan: "business" });
    const owner = await createUser(db, { orgId: org.id, email, password: "password1", role: "OWNER" });
    await createApiKeyFor(db, { orgId: org.id, userId: owner.id, name: "server-made" });
    return { org, owner };
  } finally {
    setAuditKey(null);
  }
}
