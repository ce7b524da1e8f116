// Builds one evidence package in a process of its own, so its peak RSS is the builder's alone.
import { buildEvidencePackage } from "@posture/compliance";
import { createDb, evidenceJobs } from "@posture/db";
import { generateKeyPairSync } from "node:crypto";
import { deriveAuditKey, evidenceSignerOf, setAuditKey, setEvidenceSigner } from "@posture/platform";

// The runner's audit key: the package verifies the audit chain the runner's seed wrote.
setAuditKey(deriveAuditKey(Buffer.alloc(0), process.env.BENCH_AUDIT_HMAC_KEY));
// The manifest is signed as in production (a key of the run's own).
setEvidenceSigner(evidenceSignerOf(generateKeyPairSync("ed25519").privateKey));
const url = process.env.BENCH_DATABASE_URL ?? "";
const orgId = process.env.BENCH_ORG_ID ?? "";
const handle = createDb({ databaseUrl: url, poolSize: 4 });
let maxRss = process.memoryUsage.rss();
const sampler = setInterval(() => (maxRss = Math.max(maxRss, process.memoryUsage.rss())), 25);
const [job] = await handle.db
  .insert(evidenceJobs)
  .values({ orgId, framework: "soc2", periodDays: 90 })
  .returning();
const started = performance.now();
const built = await buildEvidencePackage(handle.db, {
  jobId: job?.id ?? "",
  orgId,
  framework: "soc2",
  days: 90,
});
const ms = performance.now() - started;
clearInterval(sampler);
maxRss = Math.max(maxRss, process.memoryUsage.rss());
console.log(JSON.stringify({ ms, maxRssMb: Math.round(maxRss / 1048576), ...built }));
await handle.close();
