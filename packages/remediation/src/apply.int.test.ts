import { and, asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditLog,
  events,
  findings,
  queryRows,
  remediations,
  remediationSteps,
  workspaceShares,
  type Db,
} from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { AppError } from "@posture/platform";
import { computeOrgPosture } from "@posture/posture";
import {
  applyJobId,
  REMEDIATION_APPLY_JOB,
  REMEDIATION_UNDO_JOB,
  requestApply,
  runApplyJob,
  undoJobId,
} from "./services/apply";
import { insertPlan } from "./services/plan";
import { sweepRemediations } from "./services/sweep";
import { requestUndo } from "./services/undo";
import { GOOGLE_ERRORS } from "./testing";
import { adminScope, approvedPlan, remediationQueue, seedTenant, type TSeeded } from "./testing/seed";

// The apply and undo executor against the real PostgreSQL, with a fake source writer that
// records every call and refuses as Google does (403, 404, 429 with Retry-After, 500, away).

let tdb: TestDb;
let db: Db;

beforeAll(async () => {
  tdb = await createTestDb();
  db = tdb.db;
});
afterAll(async () => {
  await tdb?.drop();
});

async function apply(t: TSeeded, id: string) {
  const { jobs } = remediationQueue(db, () => t.fake);
  await requestApply(db, { ...adminScope(t), id, applyKey: "key-1" }, { jobs });
  await jobs.runAndWait(
    REMEDIATION_APPLY_JOB,
    { remediationId: id },
    { jobId: applyJobId(id), timeoutMs: 30_000 },
  );
  await jobs.close();
  return remediationOf(id);
}

async function undo(t: TSeeded, id: string) {
  const { jobs } = remediationQueue(db, () => t.fake);
  await requestUndo(db, { ...adminScope(t), id }, { jobs });
  await jobs.runAndWait(
    REMEDIATION_UNDO_JOB,
    { remediationId: id },
    { jobId: undoJobId(id), timeoutMs: 30_000 },
  );
  await jobs.close();
  return remediationOf(id);
}

async function remediationOf(id: string) {
  const [rem] = await db.select().from(remediations).where(eq(remediations.id, id));
  if (!rem) throw new Error("no remediation");
  const steps = await db
    .select()
    .from(remediationSteps)
    .where(eq(remediationSteps.remediationId, id))
    .orderBy(asc(remediationSteps.seq));
  return { rem, steps };
}

const findingStatus = async (id: string) => (await db.select().from(findings).where(eq(findings.id, id)))[0];
const eventsOf = async (orgId: string, type: string) =>
  (
    await db
      .select()
      .from(events)
      .where(and(eq(events.orgId, orgId), eq(events.type, type)))
  ).map((e) => JSON.parse(e.data) as Record<string, unknown>);
const storedPermissions = (connectorId: string, file: string) =>
  queryRows<{ external_id: string; role: string }>(
    db,
    sql`SELECT p.external_id, p.role FROM workspace_permissions p JOIN workspace_files f
          ON f.id = p.file_id AND f.connector_id = p.connector_id
        WHERE p.connector_id = ${connectorId} AND f.external_id = ${file} ORDER BY p.external_id`,
  );
const storedShares = async (connectorId: string, file: string) =>
  (
    await db
      .select({ type: workspaceShares.sharingType })
      .from(workspaceShares)
      .where(and(eq(workspaceShares.connectorId, connectorId), eq(workspaceShares.fileExternalId, file)))
  )
    .map((s) => s.type)
    .sort();
const changesTo = (t: TSeeded, target: string) => t.fake.changes().filter((c) => c.target === target);

describe("apply", () => {
  it("makes each step's one change, resolves its findings with finding.resolved, and the store and score follow", async () => {
    const t = await seedTenant(db);
    const before = await computeOrgPosture(db, { orgId: t.orgId });
    expect(await storedShares(t.connectorId, "f2")).toEqual(["external_domain", "external_user"]);
    const id = await approvedPlan(db, t, [
      { action: "REVOKE_PUBLIC_LINK", findingIds: [t.findingIds.f1] },
      { action: "REMOVE_EXTERNAL_ACCESS", findingIds: [t.findingIds.f2] },
    ]);

    const { rem, steps } = await apply(t, id);
    expect(rem.status).toBe("APPLIED");
    expect(rem.applyKey).toBe("key-1");
    expect(rem.stepCounts).toEqual({ APPLIED: 3 });
    expect(rem.finishedAt).not.toBeNull();
    expect((rem.undoUntil?.getTime() ?? 0) - (rem.finishedAt?.getTime() ?? 0)).toBe(30 * 86_400_000);
    expect(steps.map((s) => [s.action, s.status, s.attempts])).toEqual([
      ["remove_public_link", "APPLIED", 1],
      ["remove_external_domain", "APPLIED", 1],
      ["remove_external_user", "APPLIED", 1],
    ]);
    // Exactly one change per step, and each step's pre-image read first.
    expect(t.fake.changes().map((c) => `${c.method} ${c.target}`)).toEqual([
      "deletePermission f1/anyone",
      "deletePermission f2/p-dom",
      "deletePermission f2/p-ext",
    ]);
    expect(steps.every((s) => (s.preImage as { source?: unknown } | null)?.source)).toBe(true);

    for (const f of [t.findingIds.f1, t.findingIds.f2]) {
      expect(await findingStatus(f)).toMatchObject({ status: "RESOLVED", resolvedBy: id });
    }
    expect(await findingStatus(t.findingIds.app)).toMatchObject({ status: "OPEN", resolvedBy: null });
    const resolved = await eventsOf(t.orgId, "finding.resolved");
    expect(resolved.map((e) => [e.findingId, e.action, e.remediationId]).sort()).toEqual(
      [
        [t.findingIds.f1, "remove_public_link", id],
        [t.findingIds.f2, "remove_external_user", id],
      ].sort(),
    );
    expect(await eventsOf(t.orgId, "remediation.applied")).toEqual([
      {
        remediationId: id,
        status: "APPLIED",
        stepCount: 3,
        applied: 3,
        alreadyGone: 0,
        failed: 0,
        resolvedFindings: 2,
        link: `http://localhost/api/remediations/${id}`,
      },
    ]);

    // The store: the link and the outside grants gone, their sharing items too; the inside grant stays.
    expect(await storedPermissions(t.connectorId, "f1")).toEqual([]);
    expect(await storedPermissions(t.connectorId, "f2")).toEqual([{ external_id: "p-int", role: "writer" }]);
    expect(await storedShares(t.connectorId, "f1")).toEqual([]);
    expect(await storedShares(t.connectorId, "f2")).toEqual([]);
    const after = await computeOrgPosture(db, { orgId: t.orgId });
    expect(after.score).toBeGreaterThan(before.score);

    const audit = await db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, t.orgId), eq(auditLog.target, id)))
      .orderBy(asc(auditLog.seq));
    expect(audit.map((a) => a.action)).toEqual(["REMEDIATION_APPLY_STARTED", "REMEDIATION_APPLIED"]);
  });

  it("records a permission already gone at the source as ALREADY_GONE, without a change", async () => {
    const t = await seedTenant(db);
    const f1 = t.source.file("f1");
    if (!f1) throw new Error("no f1");
    t.source.putFile({ ...f1, permissions: f1.permissions.filter((p) => p.id !== "anyone") });
    const id = await approvedPlan(db, t, [{ action: "REVOKE_PUBLIC_LINK", findingIds: [t.findingIds.f1] }]);
    const { rem, steps } = await apply(t, id);
    expect(rem.status).toBe("APPLIED");
    expect(steps.map((s) => s.status)).toEqual(["ALREADY_GONE"]);
    expect(t.fake.changes()).toEqual([]);
    expect(await findingStatus(t.findingIds.f1)).toMatchObject({ status: "RESOLVED", resolvedBy: id });
    expect(await storedPermissions(t.connectorId, "f1")).toEqual([]);
  });

  it("fails a step the source refuses (403) with its words, the others applied: PARTIAL", async () => {
    const t = await seedTenant(db);
    t.fake.fail({ method: "deletePermission", target: "f2/p-ext", error: GOOGLE_ERRORS.forbidden });
    const id = await approvedPlan(db, t, [
      { action: "REVOKE_PUBLIC_LINK", findingIds: [t.findingIds.f1] },
      { action: "REMOVE_EXTERNAL_ACCESS", findingIds: [t.findingIds.f2] },
    ]);
    const { rem, steps } = await apply(t, id);
    expect(rem.status).toBe("PARTIAL");
    expect(rem.stepCounts).toEqual({ APPLIED: 2, FAILED: 1 });
    expect(steps[2]).toMatchObject({
      status: "FAILED",
      appliedAt: null,
      error: {
        status: 403,
        code: "insufficientFilePermissions",
        message: "The user does not have sufficient permissions for this file.",
      },
    });
    // f2's finding needs both of its steps: it stays open; f1's resolves.
    expect(await findingStatus(t.findingIds.f2)).toMatchObject({ status: "OPEN" });
    expect(await findingStatus(t.findingIds.f1)).toMatchObject({ status: "RESOLVED" });
    expect(await storedPermissions(t.connectorId, "f2")).toEqual([
      { external_id: "p-ext", role: "writer" },
      { external_id: "p-int", role: "writer" },
    ]);
    expect(await eventsOf(t.orgId, "remediation.applied")).toMatchObject([{ status: "PARTIAL" }]);
  });

  it("rides out a 429 with its Retry-After and makes the change once; a 429 that lasts fails the step", async () => {
    const t = await seedTenant(db);
    t.fake.fail({
      method: "deletePermission",
      target: "f1/anyone",
      error: () => GOOGLE_ERRORS.rateLimited(3),
      times: 2,
    });
    t.fake.fail({
      method: "deletePermission",
      target: "f2/p-dom",
      error: () => GOOGLE_ERRORS.rateLimited(1),
      times: 50,
    });
    const id = await approvedPlan(db, t, [
      { action: "REVOKE_PUBLIC_LINK", findingIds: [t.findingIds.f1] },
      { action: "REMOVE_EXTERNAL_ACCESS", findingIds: [t.findingIds.f2] },
    ]);
    const { rem, steps } = await apply(t, id);
    // Two refused tries, then the one change.
    expect(changesTo(t, "f1/anyone")).toHaveLength(3);
    expect(t.source.file("f1")?.permissions.map((p) => p.id)).toEqual(["owner"]);
    expect(steps[0]).toMatchObject({ status: "APPLIED", attempts: 1 });
    // Still throttled after its retries: failed with the source's 429.
    expect(steps[1]).toMatchObject({
      status: "FAILED",
      error: { status: 429, code: "userRateLimitExceeded" },
    });
    expect(t.source.file("f2")?.permissions.some((p) => p.id === "p-dom")).toBe(true);
    expect(rem.status).toBe("PARTIAL");
  });

  it("retries the job after a 5xx, re-reading the step it left started: one change", async () => {
    const t = await seedTenant(db);
    t.fake.fail({ method: "deletePermission", target: "f2/p-dom", error: GOOGLE_ERRORS.backendError });
    const id = await approvedPlan(db, t, [
      { action: "REMOVE_EXTERNAL_ACCESS", findingIds: [t.findingIds.f2] },
    ]);
    const { rem, steps } = await apply(t, id);
    expect(rem.status).toBe("APPLIED");
    expect(steps.map((s) => [s.status, s.attempts])).toEqual([
      ["APPLIED", 2],
      ["APPLIED", 1],
    ]);
    // The refused try, then the second try's re-read showed it still there: sent once more.
    expect(changesTo(t, "f2/p-dom").map((c) => c.method)).toEqual(["deletePermission", "deletePermission"]);
    expect(
      t.fake
        .calls()
        .filter((c) => c.target === "f2/p-dom")
        .map((c) => c.method),
    ).toEqual(["readPermission", "deletePermission", "readPermission", "deletePermission"]);
  });

  it("resumes after the worker died: a step whose change was made is not sent again", async () => {
    const t = await seedTenant(db);
    const id = await approvedPlan(db, t, [
      { action: "REVOKE_PUBLIC_LINK", findingIds: [t.findingIds.f1] },
      { action: "REMOVE_EXTERNAL_ACCESS", findingIds: [t.findingIds.f2] },
    ]);
    const { jobs, deps } = remediationQueue(db, () => t.fake);
    await requestApply(db, { ...adminScope(t), id }, { jobs: { ...jobs, enqueue: async () => {} } });
    // The dead worker's try: step 1 claimed, its pre-image kept, the change made, no outcome recorded.
    const { steps } = await remediationOf(id);
    const first = steps[0];
    if (!first) throw new Error("no step");
    const image = await t.fake.writer.readPermission({ id: "f1", driveId: null, ownerEmail: "" }, "anyone");
    await db
      .update(remediationSteps)
      .set({ startedAt: new Date(), attempts: 1, preImage: { source: image } })
      .where(eq(remediationSteps.id, first.id));
    await t.fake.writer.deletePermission({ id: "f1", driveId: null, ownerEmail: "" }, "anyone");
    // Then the next try dies on step 3: the source went away.
    t.fake.reset();
    t.fake.fail({ method: "deletePermission", target: "f2/p-ext", error: GOOGLE_ERRORS.unavailable });
    await expect(runApplyJob(deps, id, { attempt: 1 })).rejects.toThrow("unreachable");
    let now = await remediationOf(id);
    expect(now.rem.status).toBe("APPLYING");
    expect(now.steps.map((s) => [s.status, s.startedAt !== null])).toEqual([
      ["APPLIED", true],
      ["APPLIED", true],
      ["PENDING", true],
    ]);
    // The sweep queues the job again (same id); it resumes at step 3, re-reads it, acts once.
    expect(await sweepRemediations(deps)).toBeGreaterThanOrEqual(1);
    await jobs.runAndWait(
      REMEDIATION_APPLY_JOB,
      { remediationId: id },
      { jobId: applyJobId(id), timeoutMs: 30_000 },
    );
    now = await remediationOf(id);
    expect(now.rem.status).toBe("APPLIED");
    expect(t.fake.changes().map((c) => `${c.method} ${c.target}`)).toEqual([
      "deletePermission f2/p-dom",
      "deletePermission f2/p-ext",
      "deletePermission f2/p-ext",
    ]);
    // Step 1 was only re-read: gone, with our pre-image, so ours.
    expect(
      t.fake
        .calls()
        .filter((c) => c.target === "f1/anyone")
        .map((c) => c.method),
    ).toEqual(["readPermission"]);
    expect(now.steps.map((s) => s.status)).toEqual(["APPLIED", "APPLIED", "APPLIED"]);
    expect(await findingStatus(t.findingIds.f1)).toMatchObject({ status: "RESOLVED", resolvedBy: id });
    await jobs.close();
  });

  it("refuses anything but APPROVED with 409 invalid_transition", async () => {
    const t = await seedTenant(db);
    const { jobs } = remediationQueue(db, () => t.fake);
    const planned = await approvedPlan(
      db,
      t,
      [{ action: "REVOKE_PUBLIC_LINK", findingIds: [t.findingIds.f1] }],
      {
        status: "PLANNED",
      },
    );
    await expect(requestApply(db, { ...adminScope(t), id: planned }, { jobs })).rejects.toMatchObject({
      code: "invalid_transition",
    });
    const dry = await approvedPlan(db, t, [{ action: "REVOKE_PUBLIC_LINK", findingIds: [t.findingIds.f1] }], {
      dryRun: true,
    });
    await expect(requestApply(db, { ...adminScope(t), id: dry }, { jobs })).rejects.toMatchObject({
      code: "invalid_transition",
    });
    // A second apply (no Idempotency-Key to replay) of one already APPLYING.
    const id = await approvedPlan(db, t, [{ action: "REVOKE_PUBLIC_LINK", findingIds: [t.findingIds.f1] }]);
    await requestApply(db, { ...adminScope(t), id }, { jobs: { ...jobs, enqueue: async () => {} } });
    const again = requestApply(db, { ...adminScope(t), id }, { jobs });
    await expect(again).rejects.toBeInstanceOf(AppError);
    await expect(again).rejects.toMatchObject({ code: "invalid_transition" });
    // Another organization's id is not found.
    const other = await seedTenant(db, "Other");
    await expect(requestApply(db, { ...adminScope(other), id }, { jobs })).rejects.toMatchObject({
      code: "not_found",
    });
    await jobs.close();
  });
});

describe("undo", () => {
  it("restores each reversible step from its pre-image, re-opens the findings, and the store and score follow", async () => {
    const t = await seedTenant(db);
    const before = await computeOrgPosture(db, { orgId: t.orgId });
    const id = await approvedPlan(db, t, [
      { action: "REVOKE_PUBLIC_LINK", findingIds: [t.findingIds.f1] },
      { action: "REMOVE_EXTERNAL_ACCESS", findingIds: [t.findingIds.f2] },
      { action: "REVOKE_OAUTH_GRANT", findingIds: [t.findingIds.app] },
    ]);
    const applied = await apply(t, id);
    expect(applied.rem.status).toBe("APPLIED");
    const mid = await computeOrgPosture(db, { orgId: t.orgId });
    expect(mid.score).toBeGreaterThan(before.score);
    expect(await findingStatus(t.findingIds.app)).toMatchObject({ status: "RESOLVED" });
    const grantsLeft = await queryRows<{ n: number }>(
      db,
      sql`SELECT count(*)::int AS n FROM oauth_grants WHERE connector_id = ${t.connectorId}`,
    );
    expect(grantsLeft[0]?.n).toBe(0);
    t.fake.reset();

    const { rem, steps } = await undo(t, id);
    expect(rem.status).toBe("REVERTED");
    // Last step first; the revoked tokens cannot come back and stay applied.
    expect(t.fake.changes().map((c) => `${c.method} ${c.target}`)).toEqual([
      "restorePermission f2/p-ext",
      "restorePermission f2/p-dom",
      "restorePermission f1/anyone",
    ]);
    expect(steps.map((s) => [s.action, s.status])).toEqual([
      ["remove_public_link", "REVERTED"],
      ["remove_external_domain", "REVERTED"],
      ["remove_external_user", "REVERTED"],
      ["revoke_oauth_grant", "APPLIED"],
      ["revoke_oauth_grant", "APPLIED"],
    ]);
    expect(steps[0]?.restoredId).toBe("anyone");
    for (const f of [t.findingIds.f1, t.findingIds.f2])
      expect(await findingStatus(f)).toMatchObject({ status: "OPEN", resolvedBy: null, resolvedAt: null });
    expect(await findingStatus(t.findingIds.app)).toMatchObject({ status: "RESOLVED", resolvedBy: id });
    expect(await storedPermissions(t.connectorId, "f1")).toEqual([{ external_id: "anyone", role: "reader" }]);
    expect(await storedShares(t.connectorId, "f2")).toEqual(["external_domain", "external_user"]);
    expect(
      t.source
        .file("f2")
        ?.permissions.map((p) => p.id)
        .sort(),
    ).toEqual(["owner", "p-dom", "p-ext", "p-int"]);
    // The score falls back, but for the app that stays revoked.
    const after = await computeOrgPosture(db, { orgId: t.orgId });
    expect(after.score).toBeLessThan(mid.score);
    expect(after.score).toBeGreaterThanOrEqual(before.score);
    expect(await eventsOf(t.orgId, "remediation.reverted")).toMatchObject([
      { remediationId: id, status: "REVERTED", reverted: 3, notReverted: 2 },
    ]);
    const audit = await db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, t.orgId), eq(auditLog.target, id)))
      .orderBy(asc(auditLog.seq));
    expect(audit.map((a) => a.action)).toEqual([
      "REMEDIATION_APPLY_STARTED",
      "REMEDIATION_APPLIED",
      "REMEDIATION_UNDO_STARTED",
      "REMEDIATION_REVERTED",
    ]);
  });

  it("downgrades a role and transfers an owner, and undo sets both back", async () => {
    const t = await seedTenant(db, "Roles");
    const file = { fileId: "f2", driveId: null, name: "Roadmap.docx", ownerEmail: "user1@acme.test" };
    const id = await insertPlan(db, {
      orgId: t.orgId,
      origin: "manual",
      request: { shareIds: [] },
      predicted: { score: 0, grade: "F", scoreDelta: 0, before: { score: 0, grade: "F" } },
      plannedBy: { kind: "system", userId: null, email: "system", orgId: t.orgId },
      steps: [
        {
          connectorId: t.connectorId,
          action: "downgrade_permission",
          resource: { kind: "permission", ...file, permissionId: "p-ext" },
          before: { role: "writer" },
          after: { role: "reader" },
          reversible: true,
          irreversibleReason: null,
          findingIds: [],
          people: ["someone@gmail.com"],
        },
        {
          connectorId: t.connectorId,
          action: "transfer_ownership",
          resource: { kind: "file_owner", ...file },
          before: { ownerEmail: "user1@acme.test" },
          after: { ownerEmail: "user2@acme.test" },
          reversible: true,
          irreversibleReason: null,
          findingIds: [],
          people: ["user1@acme.test"],
        },
      ],
    });
    await db.update(remediations).set({ status: "APPROVED" }).where(eq(remediations.id, id));
    const owner = async () =>
      (
        await queryRows<{ owner_email: string }>(
          db,
          sql`SELECT owner_email FROM workspace_files WHERE connector_id = ${t.connectorId} AND external_id = 'f2'`,
        )
      )[0]?.owner_email;

    expect((await apply(t, id)).rem.status).toBe("APPLIED");
    expect(t.fake.changes().map((c) => [c.method, c.arg])).toEqual([
      ["updatePermissionRole", "reader"],
      ["transferOwnership", "user2@acme.test"],
    ]);
    expect(await storedPermissions(t.connectorId, "f2")).toContainEqual({
      external_id: "p-ext",
      role: "reader",
    });
    expect(await owner()).toBe("user2@acme.test");
    // The outside item's permission follows the role it now has.
    const item = await db
      .select({ permission: workspaceShares.permission })
      .from(workspaceShares)
      .where(
        and(
          eq(workspaceShares.connectorId, t.connectorId),
          eq(
            workspaceShares.id,
            `${(await queryRows<{ id: string }>(db, sql`SELECT id FROM workspace_files WHERE connector_id = ${t.connectorId} AND external_id = 'f2'`))[0]?.id}|external_user`,
          ),
        ),
      );
    expect(item).toEqual([{ permission: "reader" }]);

    t.fake.reset();
    expect((await undo(t, id)).rem.status).toBe("REVERTED");
    expect(t.fake.changes().map((c) => [c.method, c.arg])).toEqual([
      ["transferOwnership", "user1@acme.test"],
      ["updatePermissionRole", "writer"],
    ]);
    // Back as it was: the outside writer, and the internal user who owned the file meanwhile.
    expect(await storedPermissions(t.connectorId, "f2")).toEqual([
      { external_id: "p-dom", role: "reader" },
      { external_id: "p-ext", role: "writer" },
      { external_id: "p-int", role: "writer" },
    ]);
    expect(await owner()).toBe("user1@acme.test");
  });

  it("grants an app's access back where the source can, under the source's new ids", async () => {
    const t = await seedTenant(db, "Graph-like", { grantsRestorable: true });
    const id = await approvedPlan(db, t, [{ action: "REVOKE_OAUTH_GRANT", findingIds: [t.findingIds.app] }]);
    const grants = () =>
      queryRows<{ external_id: string; label: string; scopes: string[] }>(
        db,
        sql`SELECT external_id, label, scopes FROM oauth_grants WHERE connector_id = ${t.connectorId} ORDER BY external_id`,
      );
    const stored = await grants();
    expect(stored).toHaveLength(2);
    expect((await apply(t, id)).rem.status).toBe("APPLIED");
    expect(await grants()).toEqual([]);
    expect(await findingStatus(t.findingIds.app)).toMatchObject({ status: "RESOLVED", resolvedBy: id });
    const { rem, steps } = await undo(t, id);
    expect(rem.status).toBe("REVERTED");
    expect(steps.map((s) => [s.status, s.restoredId])).toEqual(
      stored.map((g) => ["REVERTED", `${g.external_id}-restored`]),
    );
    expect(await grants()).toEqual(stored.map((g) => ({ ...g, external_id: `${g.external_id}-restored` })));
    expect(await findingStatus(t.findingIds.app)).toMatchObject({ status: "OPEN", resolvedBy: null });
  });

  it("is refused after the 30 days, and for what is not applied", async () => {
    const t = await seedTenant(db);
    const id = await approvedPlan(db, t, [{ action: "REVOKE_PUBLIC_LINK", findingIds: [t.findingIds.f1] }]);
    const { jobs } = remediationQueue(db, () => t.fake);
    await expect(requestUndo(db, { ...adminScope(t), id }, { jobs })).rejects.toMatchObject({
      code: "invalid_transition",
    });
    const { rem } = await apply(t, id);
    const late = new Date((rem.undoUntil?.getTime() ?? 0) + 1000);
    await expect(requestUndo(db, { ...adminScope(t), id, now: late }, { jobs })).rejects.toMatchObject({
      code: "invalid_transition",
      message: expect.stringContaining("30 days"),
    });
    expect((await remediationOf(id)).rem.status).toBe("APPLIED");
    await jobs.close();
  });
});
