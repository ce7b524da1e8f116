import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKeyFor, createOrganization, createUser } from "@posture/account";
import { connectors, sessions } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { generateSessionToken, SESSION_ABSOLUTE_MS, SESSION_COOKIE } from "@posture/platform";

// The real entry point in its own process: SIGTERM stops accepting, lets the in-flight request
// finish, closes pools and exits 0.
let db: TestDb;
let child: ChildProcess | undefined;

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  child?.kill("SIGKILL");
  await db.drop();
});

function startGatewayProcess(): Promise<{ url: string; proc: ChildProcess }> {
  // No REDIS_URL: limits and jobs run in-process, as in the embedded default.
  const { REDIS_URL: _redis, ...inherited } = process.env;
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("../main.ts", import.meta.url))],
    {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: {
        ...inherited,
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_URL: db.url,
        ENCRYPTION_KEY: randomBytes(32).toString("hex"),
        COOKIE_SECURE: "false",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  child = proc;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("gateway did not start")), 60_000);
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "gateway listening" && entry.url) {
          clearTimeout(timer);
          resolve({ url: entry.url, proc });
        }
      } catch {
        // not a log line
      }
    });
    proc.on("exit", (code) => reject(new Error(`gateway exited early with ${code}`)));
  });
}

describe("SIGTERM", () => {
  it("finishes the request in flight, then exits 0 and refuses new connections", async () => {
    const org = await createOrganization(db.db, { name: "Shutdown", plan: "business" });
    const user = await createUser(db.db, {
      orgId: org.id,
      email: "owner@shutdown.test",
      password: "long-enough-pw",
      role: "OWNER",
    });
    const { key } = await createApiKeyFor(db.db, { orgId: org.id, userId: user.id, name: "k" });
    const s = generateSessionToken();
    await db.db.insert(sessions).values({
      tokenHash: s.tokenHash,
      userId: user.id,
      orgId: org.id,
      expiresAt: new Date(Date.now() + SESSION_ABSOLUTE_MS),
    });
    const [connector] = await db.db
      .insert(connectors)
      .values({
        orgId: org.id,
        type: "google_workspace",
        displayName: "Big",
        mode: "demo",
        config: { fileCount: 30_000 },
      })
      .returning();

    const { url, proc } = await startGatewayProcess();
    expect((await fetch(`${url}/api/usage`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(
      200,
    );

    // A scan of 30,000 files takes a while: SIGTERM arrives while it runs.
    const inFlight = fetch(`${url}/api/connectors/${connector?.id ?? ""}/sync`, {
      method: "POST",
      headers: { cookie: `${SESSION_COOKIE}=${s.token}` },
    });
    await new Promise((r) => setTimeout(r, 300));
    const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
    proc.kill("SIGTERM");

    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "COMPLETE" });
    expect(await exited).toBe(0);
    await expect(fetch(`${url}/api/health`)).rejects.toThrow();
  });
});
