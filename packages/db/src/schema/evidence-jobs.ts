import { bigint, index, integer, pgTable, primaryKey, text, foreignKey } from "drizzle-orm/pg-core";
import { bytea } from "./bytea-column";
import { COMPLIANCE_FRAMEWORKS } from "./compliance-runs";
import { createdAt, idColumn, tsColumn } from "./columns";
import { organizations } from "./organizations";

export const EVIDENCE_JOB_STATUSES = ["PENDING", "READY", "FAILED"] as const;
export type TEvidenceJobStatus = (typeof EVIDENCE_JOB_STATUSES)[number];

export const evidenceJobs = pgTable(
  "evidence_jobs",
  {
    id: idColumn("evj"),
    orgId: text("org_id").notNull(),
    framework: text("framework", { enum: COMPLIANCE_FRAMEWORKS }).notNull(),
    periodDays: integer("period_days").notNull(),
    status: text("status", { enum: EVIDENCE_JOB_STATUSES }).notNull().default("PENDING"),
    error: text("error"),
    fileCount: integer("file_count").notNull().default(0),
    controlCount: integer("control_count").notNull().default(0),
    sizeBytes: bigint("size_bytes", { mode: "number" }).notNull().default(0),
    sha256: text("sha256"),
    requestedByUserId: text("requested_by_user_id"),
    createdAt: createdAt(),
    completedAt: tsColumn("completed_at"),
    // READY packages are served until then (410 afterwards) and deleted by the purge job.
    expiresAt: tsColumn("expires_at"),
  },
  (t) => [
    index("evidence_jobs_org_created_idx").on(t.orgId, t.createdAt),
    index("evidence_jobs_expires_idx").on(t.expiresAt),
    foreignKey({
      name: "evidence_jobs_org_id_fkey",
      columns: [t.orgId],
      foreignColumns: [organizations.id],
    }).onDelete("cascade"),
  ],
);

// The ZIP itself, in 1 MiB pieces written as the archive streams out, read back in order: every
// gateway replica can serve it, and neither side ever holds the whole file in memory.
export const evidenceChunks = pgTable(
  "evidence_chunks",
  {
    jobId: text("job_id").notNull(),
    seq: integer("seq").notNull(),
    data: bytea("data").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.jobId, t.seq] }),
    foreignKey({
      name: "evidence_chunks_job_id_fkey",
      columns: [t.jobId],
      foreignColumns: [evidenceJobs.id],
    }).onDelete("cascade"),
  ],
);
