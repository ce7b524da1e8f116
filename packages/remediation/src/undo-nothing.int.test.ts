import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, events, remediations, type Db } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import type { TJobQueue } from "@posture/platform";
import {
  applyJobId,
  REMEDIATION_APPLY_JOB,
  REMEDIATION_UNDO_JOB,
  requestApply,
  undoJobId,
} from "./services/apply";
import { requestUndo } from "./services/undo-request";
import { GOOGLE_ERRORS } from "./testing";
import { adminScope, approvedPlan, remediationQueue, seedTenant } from "./testing/seed";

// Issue 28, item 4: an undo that put nothing back at the source is not REVERTED. With every
// restore refused, the remediation is APPLIED again (its window still open, its request cleared),
// audited REMEDIATION_UNDO_FAILED and announced as remediation.undo.failed.

let tdb: TestDb;
let db: Db;

beforeAll(async () => {
  tdb = await createTestDb();
  db = tdb.db;
});
afterAll(async () => {
  await tdb?.drop();
});

// On the queue the request enqueued on: a second queue would run a second job, which finds the
// first one's lease and leaves the remediation to it.
async function run(jobs: TJobQueue, job: string, id: string, jobId: string) {
  await jobs.runAndWait(job, { remediationId: id }, { jobId, timeoutMs: 30_000 });
}

describe("an undo that reverts nothing", () => {
  it("ends APPLIED again, not REVERTED, and may be asked for again", async () => {
    const t = await seedTenant(db);
    const id = await approvedPlan(db, t, [{ action: "REVOKE_PUBLIC_LINK", findingIds: [t.findingIds.f1] }]);
    const { jobs } = remediationQueue(db, () => t.fake);
    await requestApply(db, { ...adminScope(t), id, applyKey: "k" }, { jobs });
    await run(jobs, REMEDIATION_APPLY_JOB, id, applyJobId(id));

    t.fake.fail({ method: "restorePermission", error: GOOGLE_ERRORS.forbidden, times: 10 });
    expect(await requestUndo(db, { ...adminScope(t), id }, { jobs })).toEqual({ started: true });
    await run(jobs, REMEDIATION_UNDO_JOB, id, undoJobId(id));

    const [rem] = await db.select().from(remediations).where(eq(remediations.id, id));
    expect(rem).toMatchObject({ status: "APPLIED", revertedAt: null, undoRequest: null });
    expect(rem?.stepCounts).toEqual({ APPLIED: 1 });
    const failed = await db
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.orgId, t.orgId), eq(events.type, "remediation.undo.failed")));
    expect(failed.map((e) => JSON.parse(e.data) as unknown)).toEqual([
      { remediationId: id, status: "APPLIED", notReverted: 1 },
    ]);
    const reverted = await db
      .select({ id: events.id })
      .from(events)
      .where(and(eq(events.orgId, t.orgId), eq(events.type, "remediation.reverted")));
    expect(reverted).toEqual([]);
    const audit = await db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, t.orgId), eq(auditLog.target, id)))
      .orderBy(asc(auditLog.seq));
    expect(audit.map((a) => a.action)).toEqual([
      "REMEDIATION_APPLY_STARTED",
      "REMEDIATION_APPLIED",
      "REMEDIATION_UNDO_STARTED",
      "REMEDIATION_UNDO_FAILED",
    ]);

    // The source lets it now: a second undo puts the link back.
    t.fake.reset();
    await requestUndo(db, { ...adminScope(t), id }, { jobs });
    await run(jobs, REMEDIATION_UNDO_JOB, id, undoJobId(id));
    const [after] = await db.select().from(remediations).where(eq(remediations.id, id));
    expect(after).toMatchObject({ status: "REVERTED", stepCounts: { REVERTED: 1 } });
    await jobs.close();
  });
});
