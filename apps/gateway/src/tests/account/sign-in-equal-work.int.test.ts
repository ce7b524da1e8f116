import { randomBytes } from "node:crypto";
import {
  createOrganization,
  createUser,
  drainIdle,
  drainSignInFailures,
  signInWithPassword,
} from "@posture/account";
import { auditLog, createDb, signInFailures, type DbHandle } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { setAuditKey } from "@posture/platform";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway } from "../../testing";
import { freshIp } from "./helpers";

// A wrong password for a known address and any password for an unknown one must cost the same
// work before the 401 leaves: the same statements, in the same order (the audit row of the known
// account follows after the response), and one argon2id verification each (passwords.ts). A
// timing test would be flaky on a shared machine; the statement sequence is what made the
// difference (median 38.1 ms against 29.7 ms, from the SIGN_IN_FAILED audit transaction).

let t: TestDb;
let counted: DbHandle;
const statements: string[] = [];
let known: { email: string; orgId: string; userId: string };

beforeAll(async () => {
  t = await createTestDb();
  // As every server process does at start: audit rows are keyed.
  setAuditKey(randomBytes(32));
  counted = createDb({ databaseUrl: t.url, poolSize: 2, onStatement: (text) => statements.push(text) });
  const org = await createOrganization(t.db, { name: "Timing", plan: "business" });
  const email = `known-${randomBytes(3).toString("hex")}@timing.test`;
  const user = await createUser(t.db, {
    orgId: org.id,
    email,
    password: "the-right-password",
    role: "ADMIN",
  });
  known = { email, orgId: org.id, userId: user.id };
});
afterAll(async () => {
  await counted?.close();
  await t?.drop();
});

/** The statements one refused sign-in sends, with parameters (not values) and whitespace normalised. */
async function statementsOf(email: string, password: string): Promise<string[]> {
  statements.length = 0;
  const err = await signInWithPassword(counted.db, { email, password }).then(
    () => null,
    (e: unknown) => e as { code?: string },
  );
  expect(err?.code).toBe("invalid_credentials");
  return statements.map((s) => s.replace(/\s+/g, " ").trim());
}

describe("a refused sign-in", () => {
  it("sends the same statements for a wrong password and for an unknown address", async () => {
    // Warm both paths first (the dummy hash, prepared statements).
    await statementsOf(known.email, "wrong-password");
    await statementsOf(`nobody-${randomBytes(3).toString("hex")}@timing.test`, "any-password");

    const wrongPassword = await statementsOf(known.email, "another-wrong-password");
    const unknownAddress = await statementsOf(`nobody-${randomBytes(3).toString("hex")}@timing.test`, "pw");
    expect(wrongPassword).toEqual(unknownAddress);
    // The account lookup and the one INSERT of the failure; no transaction, no audit chain lock.
    expect(wrongPassword).toHaveLength(2);
    expect(wrongPassword[1]).toMatch(/^insert into "sign_in_failures"/);
    expect(wrongPassword.join("\n")).not.toMatch(/audit_log|pg_advisory|begin/i);
  });

  it("still ends as a SIGN_IN_FAILED audit row of the known account, and leaves nothing of the unknown one", async () => {
    await drainSignInFailures(t.db);
    const before = await t.db.select().from(auditLog).where(eq(auditLog.orgId, known.orgId));
    await statementsOf(known.email, "wrong-again");
    await statementsOf(`nobody-${randomBytes(3).toString("hex")}@timing.test`, "pw");
    expect(await t.db.select().from(signInFailures)).toHaveLength(2);

    expect(await drainSignInFailures(t.db)).toBe(2);
    const after = await t.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.orgId, known.orgId))
      .orderBy(auditLog.seq);
    const added = after.slice(before.length);
    expect(added.map((r) => [r.action, r.target, r.userId])).toEqual([
      ["SIGN_IN_FAILED", known.email, known.userId],
    ]);
    expect(added[0]?.metadata).toMatchObject({ attemptedAt: expect.any(String) });
    expect(await t.db.select().from(signInFailures)).toHaveLength(0);
  });
});

describe("through the gateway", () => {
  it("appends the audit row after the 401, and a failure left by a stopped process at the next start", async () => {
    const gw = await startTestGateway();
    try {
      const org = await gw.createOrg({ plan: "business" });
      const user = await gw.createUser(org.id, "ADMIN");
      const res = await gw.request("POST", "/api/auth/sign-in", {
        ip: freshIp(),
        body: { email: user.email, password: "wrong-password" },
      });
      expect(res.status).toBe(401);
      // Appended once the response is done ('close'), which may come a moment after the client
      // has read it.
      const auditOf = () => gw.db.db.select().from(auditLog).where(eq(auditLog.orgId, org.id));
      const deadline = Date.now() + 5_000;
      while ((await auditOf()).length === 0 && Date.now() < deadline) {
        await drainIdle();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await auditOf()).map((r) => r.action)).toEqual(["SIGN_IN_FAILED"]);

      // A process that recorded a failure and stopped before appending it.
      await gw.db.db.insert(signInFailures).values({
        email: user.email,
        userId: user.id,
        orgId: org.id,
        attemptedAt: new Date(),
      });
      const next = await startTestGateway({ db: gw.db });
      await next.close();
      const afterRestart = await auditOf();
      expect(afterRestart.map((r) => r.action)).toEqual(["SIGN_IN_FAILED", "SIGN_IN_FAILED"]);
      expect(await gw.db.db.select().from(signInFailures)).toHaveLength(0);
    } finally {
      await gw.close();
    }
  });
});
