import { and, eq, lt, sql } from "drizzle-orm";
import { evidenceChunks, evidenceJobs, type Db, type TComplianceFramework } from "@posture/db";
import {
  AppError,
  audit,
  download,
  firstOr404,
  iso,
  type TActor,
  type TDownload,
  type TJobQueue,
  type TLogger,
} from "@posture/platform";
import { buildEvidencePackage } from "./evidence-builder";
import { readChunks } from "./evidence-store";

export const EVIDENCE_BUILD_JOB = "compliance.evidence.build";
export const EVIDENCE_PURGE_JOB = "compliance.evidence.purge";
/** READY packages are kept for 7 days (contract), then 410 and deleted. */
export const EVIDENCE_TTL_MS = 7 * 86_400_000;
export const EVIDENCE_PERIOD_DAYS = 90;

export type TEvidenceJobView = {
  jobId: string;
  status: "PENDING" | "READY" | "FAILED";
  framework: TComplianceFramework;
  fileCount: number;
  controlCount: number;
  sizeBytes: number;
  createdAt: string;
  completedAt: string | null;
  expiresAt: string | null;
  reason?: string;
};

/**
 * POST /api/compliance/evidence/generate: records a PENDING job and queues the build. A second
 * request for a framework whose package is still being built is 409 `conflict` naming that job.
 */
export async function requestEvidencePackage(
  db: Db,
  jobs: TJobQueue,
  o: { orgId: string; actor: TActor; framework: TComplianceFramework },
): Promise<{ jobId: string; status: "PENDING" }> {
  const jobId = await db.transaction(async (tx) => {
    // Serialises concurrent requests of one organization, so "already PENDING" is exact.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`evidence:${o.orgId}`}))`);
    const [pending] = await tx
      .select({ id: evidenceJobs.id })
      .from(evidenceJobs)
      .where(
        and(
          eq(evidenceJobs.orgId, o.orgId),
          eq(evidenceJobs.framework, o.framework),
          eq(evidenceJobs.status, "PENDING"),
        ),
      );
    if (pending) {
      throw new AppError("conflict", `An evidence package for ${o.framework} is already being built`, {
        jobId: pending.id,
      });
    }
    const [job] = await tx
      .insert(evidenceJobs)
      .values({
        orgId: o.orgId,
        framework: o.framework,
        periodDays: EVIDENCE_PERIOD_DAYS,
        requestedByUserId: o.actor.userId,
      })
      .returning({ id: evidenceJobs.id });
    if (!job) throw new Error("evidence job insert failed");
    await audit(tx, o, {
      action: "EVIDENCE_PACKAGE_REQUESTED",
      target: job.id,
      metadata: { framework: o.framework },
    });
    return job.id;
  });
  await jobs.enqueue(EVIDENCE_BUILD_JOB, { jobId }, { jobId: `evidence-${jobId}` });
  return { jobId, status: "PENDING" };
}

function view(j: typeof evidenceJobs.$inferSelect): TEvidenceJobView {
  return {
    jobId: j.id,
    status: j.status,
    framework: j.framework,
    fileCount: j.fileCount,
    controlCount: j.controlCount,
    sizeBytes: j.sizeBytes,
    createdAt: iso(j.createdAt),
    completedAt: iso(j.completedAt),
    expiresAt: iso(j.expiresAt),
    ...(j.status === "FAILED" ? { reason: j.error ?? "The package could not be built" } : {}),
  };
}

/**
 * GET /api/compliance/evidence/{jobId}: JSON while PENDING or FAILED; when READY the ZIP (streamed
 * from storage), or the JSON shape when `format` is json; 410 `expired` after 7 days.
 */
export async function getEvidencePackage(
  db: Db,
  o: { orgId: string; jobId: string; format: "zip" | "json"; now?: Date },
): Promise<TEvidenceJobView | TDownload> {
  const job = firstOr404(
    await db
      .select()
      .from(evidenceJobs)
      .where(and(eq(evidenceJobs.id, o.jobId), eq(evidenceJobs.orgId, o.orgId))),
    "Evidence package",
  );
  if (job.status === "READY" && job.expiresAt && job.expiresAt <= (o.now ?? new Date())) {
    throw new AppError("expired", "This evidence package expired; generate a new one", { jobId: job.id });
  }
  if (job.status !== "READY" || o.format === "json") return view(job);
  return download({
    filename: `evidence-${job.framework}-${iso(job.createdAt).slice(0, 10)}-${job.id}.zip`,
    contentType: "application/zip",
    size: job.sizeBytes,
    body: () => readChunks(db, job.id),
  });
}

/** The build job: idempotent (a retried build starts over; a finished job is left alone). */
export async function runEvidenceBuild(
  db: Db,
  log: TLogger,
  jobId: string,
  attempt: number,
  maxAttempts: number,
): Promise<void> {
  const [job] = await db.select().from(evidenceJobs).where(eq(evidenceJobs.id, jobId));
  if (!job || job.status !== "PENDING") return;
  await db.delete(evidenceChunks).where(eq(evidenceChunks.jobId, jobId));
  try {
    const built = await buildEvidencePackage(db, {
      jobId,
      orgId: job.orgId,
      framework: job.framework,
      days: job.periodDays,
    });
    const now = new Date();
    await db
      .update(evidenceJobs)
      .set({
        status: "READY",
        ...built,
        completedAt: now,
        expiresAt: new Date(now.getTime() + EVIDENCE_TTL_MS),
      })
      .where(and(eq(evidenceJobs.id, jobId), eq(evidenceJobs.status, "PENDING")));
  } catch (err) {
    log.error({ err, jobId, attempt }, "evidence package build failed");
    if (attempt < maxAttempts) throw err;
    await db.delete(evidenceChunks).where(eq(evidenceChunks.jobId, jobId));
    await db
      .update(evidenceJobs)
      .set({
        status: "FAILED",
        error: "The package could not be built; request a new one",
        completedAt: new Date(),
      })
      .where(eq(evidenceJobs.id, jobId));
  }
}

/** Periodic: drops the bytes of expired packages (the job row stays, so its id still answers 410). */
export async function purgeExpiredPackages(db: Db, now = new Date()): Promise<number> {
  const expired = await db
    .select({ id: evidenceJobs.id })
    .from(evidenceJobs)
    .where(and(eq(evidenceJobs.status, "READY"), lt(evidenceJobs.expiresAt, now)));
  for (const j of expired) await db.delete(evidenceChunks).where(eq(evidenceChunks.jobId, j.id));
  return expired.length;
}
