import { createDb } from "@posture/db";
import { createInProcessQueue } from "@posture/jobs";
import { createLogger, parseEncryptionKey } from "@posture/platform";
import { runApplyJob } from "@posture/remediation";

// The apply job of one remediation in a process of its own, so the scenario can kill it mid-run
// (SIGKILL: no clean-up) and start another that resumes. BENCH_ATTEMPT is the job's try number,
// as the queue would give it to a re-delivered job. Prints the final status as one JSON line.
const db = createDb({ databaseUrl: process.env.BENCH_DATABASE_URL ?? "", poolSize: 2 });
const endpoints = JSON.parse(process.env.BENCH_GOOGLE_ENDPOINTS ?? "{}") as Record<string, string>;
// A short lease, so that the resuming process need not wait two minutes for the killed one's
// to run out (services/lease.ts): until it has, the job finds the remediation leased and returns.
const lease = { ttlMs: 5_000, renewEveryMs: 1_000, marginMs: 2_500 };
const run = () =>
  runApplyJob(
    {
      db: db.db,
      jobs: createInProcessQueue({}),
      runtime: {
        encryptionKey: parseEncryptionKey(process.env.BENCH_ENCRYPTION_KEY ?? ""),
        publicUrl: "http://localhost",
        webhookAllowPrivateTargets: false,
        sourceEndpoints: { google: endpoints },
      },
      log: createLogger(process.env.BENCH_LOG_LEVEL ?? "warn"),
      lease,
    },
    process.env.BENCH_REMEDIATION_ID ?? "",
    { attempt: Number(process.env.BENCH_ATTEMPT ?? "1") },
  );
let status = await run();
for (let i = 0; status === "APPLYING" && i < 12; i++) {
  await new Promise((resolve) => setTimeout(resolve, lease.ttlMs / 2));
  status = await run();
}
process.stdout.write(`${JSON.stringify({ status })}\n`);
await db.close();
