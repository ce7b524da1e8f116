// A scheduler worker in a process of its own, running the service's full job registry, for tests
// that kill it mid-scan (SIGKILL: no clean-up runs). Run from its bundle (spawn-worker.ts);
// configured by the spawning test through env, which is why this file, unlike main.ts, reads
// process.env directly.
import { createDb } from "@posture/db";
import { createBullQueue, startWorkers, type TJobRegistry } from "@posture/jobs";
import { parseEncryptionKey, type TLogger } from "@posture/platform";
import { buildJobRegistry } from "@posture/composition/jobs";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

// Lines on stdout are what the spawning test waits for; everything else goes to stderr.
const say = (line: string) => process.stdout.write(`${line}\n`);
const log: TLogger = {
  debug: () => {},
  info: () => {},
  warn: (obj, msg) => process.stderr.write(`warn ${msg ?? ""} ${JSON.stringify(obj)}\n`),
  error: (obj, msg) => process.stderr.write(`error ${msg ?? ""} ${JSON.stringify(obj)}\n`),
};

const redisUrl = required("REDIS_URL");
const prefix = required("JOBS_PREFIX");
const db = createDb({ databaseUrl: required("DATABASE_URL"), poolSize: 3 });
const jobs = createBullQueue({ redisUrl, prefix, registry: () => registry });
const registry: TJobRegistry = buildJobRegistry({
  db: db.db,
  jobs,
  runtime: {
    encryptionKey: parseEncryptionKey(required("ENCRYPTION_KEY")),
    publicUrl: "http://localhost:3000",
    webhookAllowPrivateTargets: false,
  },
  log,
});
startWorkers({
  redisUrl,
  prefix,
  registry,
  queues: { scans: { concurrency: 1 } },
  log,
  lockDurationMs: Number(required("LOCK_DURATION_MS")),
  // The stalled check is throttled queue-wide: every worker of a queue must use the same interval.
  stalledIntervalMs: Number(required("STALLED_INTERVAL_MS")),
});
say("worker up");
