import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBullQueue } from "./bullmq";
import { countRows, createRecordingTables, recordingJob, runsOf } from "./testing/recording-job";
import { dropPrefix, TEST_REDIS_URL, uniquePrefix } from "./testing/redis";
import { startWorkers } from "./workers";

const prefix = uniquePrefix("workers");
const queueName = "stalls";
const LOCK_DURATION_MS = 1_500;
const STALLED_INTERVAL_MS = 500;
let testDb: TestDb;

beforeAll(async () => {
  testDb = await createTestDb();
  await createRecordingTables(testDb.db);
});
afterAll(async () => {
  await testDb.drop();
  await dropPrefix(prefix);
});

/** Starts the worker script in a process of its own and resolves once it printed `line`. */
function spawnWorker(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("./testing/worker-process.ts", import.meta.url))],
    {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const printed = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (out.includes(line)) resolve();
      };
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        check();
      });
      child.once("exit", (code) =>
        reject(new Error(`worker exited (${String(code)}) before "${line}": ${err}`)),
      );
      check();
    });
  return { child, printed };
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

describe("workers", () => {
  it("takes over the job of a worker killed mid-job, and the job's effect happens once", async () => {
    const registry = {
      "record-effect": recordingJob(testDb.db, { worker: "survivor", sleepMs: 50 }),
    };
    const queue = createBullQueue({ redisUrl: TEST_REDIS_URL, prefix, queueName, registry });
    const doomed = spawnWorker({
      REDIS_URL: TEST_REDIS_URL,
      DATABASE_URL: testDb.url,
      JOBS_PREFIX: prefix,
      JOBS_QUEUE: queueName,
      LOCK_DURATION_MS: String(LOCK_DURATION_MS),
      STALLED_INTERVAL_MS: String(STALLED_INTERVAL_MS),
    });
    const jobId = "effect:1";
    try {
      await queue.enqueue("record-effect", { finding: "f-1" }, { jobId });
      await doomed.printed(`started ${jobId}`);
      doomed.child.kill("SIGKILL");
      await exited(doomed.child);
      // The dead worker wrote its effect but never finished; the job still sits in active.
      expect(await runsOf(testDb.db, jobId)).toEqual([{ worker: "doomed", attempt: 1 }]);

      const survivor = startWorkers({
        redisUrl: TEST_REDIS_URL,
        prefix,
        queueName,
        registry,
        lockDurationMs: LOCK_DURATION_MS,
        stalledIntervalMs: STALLED_INTERVAL_MS,
      });
      try {
        // Once the dead worker's lock lapses, the survivor moves the job back to wait and runs it.
        await expect(queue.runAndWait("record-effect", {}, { jobId, timeoutMs: 15_000 })).resolves.toEqual({
          jobId,
        });
      } finally {
        await survivor.close();
      }
      expect(await runsOf(testDb.db, jobId)).toEqual([
        { worker: "doomed", attempt: 1 },
        { worker: "survivor", attempt: 1 },
      ]);
      expect(await countRows(testDb.db, "job_effects", jobId)).toBe(1);
    } finally {
      doomed.child.kill("SIGKILL");
      await queue.close();
    }
  });
});
