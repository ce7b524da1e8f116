import { createDb } from "@posture/db";
import { createInProcessQueue } from "@posture/jobs";
import { createLogger, parseEncryptionKey } from "@posture/platform";
import { runApplyJob } from "@posture/remediation";

// The apply job of one remediation in a process of its own, so the scenario can kill it mid-run
// (SIGKILL: no clean-up) and start another that resumes. BENCH_ATTEMPT is the job's try number,
// as the queue would give it to a re-delivered job. Prints the final status as one JSON line.
const db = createDb({ databaseUrl: process.env.BENCH_DATABASE_URL ?? "", poolSize: 2 });
const endpoints = JSON.parse(process.env.BENCH_GOOGLE_ENDPOINTS ?? "{}") as Record<string, string>;
const status = await runApplyJob(
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
  },
  process.env.BENCH_REMEDIATION_ID ?? "",
  { attempt: Number(process.env.BENCH_ATTEMPT ?? "1") },
);
process.stdout.write(`${JSON.stringify({ status })}\n`);
await db.close();
