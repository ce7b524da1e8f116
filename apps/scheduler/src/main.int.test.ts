import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { dropPrefix, TEST_REDIS_URL, uniquePrefix } from "@posture/jobs/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const prefix = uniquePrefix("scheduler-main");
let testDb: TestDb;

beforeAll(async () => {
  testDb = await createTestDb();
});
afterAll(async () => {
  await testDb.drop();
  await dropPrefix(prefix);
});

/** `pnpm --filter @posture/scheduler start`, minus pnpm: the same script under tsx. */
function runMain(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("./main.ts", import.meta.url))],
    {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (c: Buffer) => (output.stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (output.stderr += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const printed = async (text: string) => {
    for (let i = 0; i < 200 && !output.stdout.includes(text); i++) {
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!output.stdout.includes(text)) throw new Error(`never printed "${text}": ${output.stderr}`);
  };
  return { child, output, exit, printed };
}

describe("scheduler process", () => {
  it("starts its workers over a migrated database and stops cleanly on SIGTERM", async () => {
    const proc = runMain({
      REDIS_URL: TEST_REDIS_URL,
      DATABASE_URL: testDb.url,
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      JOBS_PREFIX: prefix,
      LOG_LEVEL: "info",
    });
    await proc.printed("scheduler running");
    proc.child.kill("SIGTERM");
    expect(await proc.exit).toBe(0);
    expect(proc.output.stdout).toContain("scheduler stopped");
  });

  it("refuses to start without REDIS_URL, naming it", async () => {
    const proc = runMain({ DATABASE_URL: testDb.url, ENCRYPTION_KEY: randomBytes(32).toString("hex") });
    expect(await proc.exit).not.toBe(0);
    expect(proc.output.stderr).toContain("REDIS_URL");
  });
});
