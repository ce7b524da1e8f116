import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TSourceWriter } from "@posture/connectors";
import { createDb, lockOrg, remediations, remediationSteps, type Db, type DbHandle } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { runApplyJob } from "./services/apply";
import { insertPlan } from "./services/plan";
import { sweepRemediations } from "./services/sweep";
import { runUndoJob } from "./services/undo";
import { DOMAIN, FILES, GRANTS, remediationQueue, seedTenant, type TSeeded } from "./testing/seed";
import type { TRemediationJobDeps } from "./jobs/module";

// Each step of an apply (and of its undo) is written exactly once at the source, whatever runs
// it: two workers at once (a job queued again after Redis restarted empty), a worker that stops
// after the source call and before recording it, a database statement that times out mid-apply.
// The fake writer counts every write call; `noop` calls (a role or owner already so, decided by
// the writer's own read) send no write and are not counted.

let tdb: TestDb;
let db: Db;
const handles: DbHandle[] = [];

beforeAll(async () => {
  tdb = await createTestDb();
  db = tdb.db;
});
afterAll(async () => {
  for (const h of handles) await h.close().catch(() => {});
  await tdb?.drop();
});

/** Short enough for a test to outlive a lease, long enough for a step. */
const LEASE = { ttlMs: 1_500, renewEveryMs: 200, marginMs: 500 };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const file = (id: string, name: string, ownerEmail: string) => ({
  fileId: id,
  driveId: null,
  name,
  ownerEmail,
});
const owner1 = `user1@${DOMAIN}`;
const owner2 = `user2@${DOMAIN}`;

/** One step of every kind: a link, a downgrade, an outside domain, an owner, an app's token. */
async function mixedPlan(t: TSeeded): Promise<string> {
  const common = { connectorId: t.connectorId, findingIds: [], people: [] };
  const grant = GRANTS[0];
  if (!grant) throw new Error("no grant");
  const id = await insertPlan(db, {
    orgId: t.orgId,
    origin: "manual",
    request: { findingIds: [] },
    predicted: { score: 0, grade: "F", scoreDelta: 0, before: { score: 0, grade: "F" } },
    plannedBy: { kind: "system", userId: null, email: "system", orgId: t.orgId },
    steps: [
      {
        ...common,
        action: "remove_public_link",
        resource: { kind: "permission", ...file("f1", "Payroll 2026.xlsx", owner1), permissionId: "anyone" },
        before: { type: "anyone", role: "reader", target: "anyone" },
        after: null,
        reversible: true,
        irreversibleReason: null,
      },
      {
        ...common,
        action: "downgrade_permission",
        resource: { kind: "permission", ...file("f2", "Roadmap.docx", owner1), permissionId: "p-ext" },
        before: { role: "writer" },
        after: { role: "reader" },
        reversible: true,
        irreversibleReason: null,
      },
      {
        ...common,
        action: "remove_external_domain",
        resource: { kind: "permission", ...file("f2", "Roadmap.docx", owner1), permissionId: "p-dom" },
        before: { type: "domain", role: "reader", target: "partner.example" },
        after: null,
        reversible: true,
        irreversibleReason: null,
      },
      {
        ...common,
        action: "transfer_ownership",
        resource: { kind: "file_owner", ...file("f3", "Team lunch.pdf", owner2) },
        before: { ownerEmail: owner2 },
        after: { ownerEmail: owner1 },
        reversible: true,
        irreversibleReason: null,
      },
      {
        ...common,
        action: "revoke_oauth_grant",
        resource: {
          kind: "grant",
          grantId: grant.id,
          clientId: grant.clientId,
          label: grant.label,
          userEmail: grant.userEmail,
        },
        before: { scopes: grant.scopes },
        after: null,
        reversible: false,
        irreversibleReason: "Google cannot re-issue a revoked OAuth token",
      },
    ],
  });
  await db
    .update(remediations)
    .set({ status: "APPLYING", applyStartedAt: new Date() })
    .where(eq(remediations.id, id));
  return id;
}

/** The writes each step's target received, in first-write order. */
const APPLY_WRITES = [
  "deletePermission f1/anyone",
  "updatePermissionRole f2/p-ext",
  "deletePermission f2/p-dom",
  "transferOwnership f3",
  `revokeGrant ${GRANTS[0]?.id}`,
];
const UNDO_WRITES = [
  "transferOwnership f3",
  "restorePermission f2/p-dom",
  "updatePermissionRole f2/p-ext",
  "restorePermission f1/anyone",
];
const writes = (t: TSeeded) => t.fake.changes().map((c) => `${c.method} ${c.target}`);

function depsOf(t: TSeeded, over: Partial<TRemediationJobDeps> = {}): TRemediationJobDeps {
  const { deps } = remediationQueue(db, () => t.fake);
  return { ...deps, lease: LEASE, ...over };
}

/** The seeded writer with `hook` run after the named call returned (the call made at the source). */
function hooked(t: TSeeded, hook: (call: string) => Promise<void>): TSourceWriter {
  const w = t.fake.writer;
  const wrap =
    <A extends unknown[], R>(name: string, target: (...a: A) => string, f: (...a: A) => Promise<R>) =>
    async (...a: A) => {
      const r = await f(...a);
      await hook(`${name} ${target(...a)}`);
      return r;
    };
  return {
    ...w,
    deletePermission: wrap("deletePermission", (f, p) => `${f.id}/${p}`, w.deletePermission),
    updatePermissionRole: wrap("updatePermissionRole", (f, p) => `${f.id}/${p}`, w.updatePermissionRole),
    restorePermission: wrap("restorePermission", (f, i) => `${f.id}/${i.id}`, w.restorePermission),
    transferOwnership: wrap("transferOwnership", (f) => f.id, w.transferOwnership),
    revokeGrant: wrap("revokeGrant", (g) => g.id, w.revokeGrant),
  };
}

const stepsOf = async (id: string) =>
  db
    .select({ action: remediationSteps.action, status: remediationSteps.status })
    .from(remediationSteps)
    .where(eq(remediationSteps.remediationId, id))
    .orderBy(asc(remediationSteps.seq));
const statusOf = async (id: string) =>
  (await db.select({ s: remediations.status }).from(remediations).where(eq(remediations.id, id)))[0]?.s;

const ALL_APPLIED = [
  { action: "remove_public_link", status: "APPLIED" },
  { action: "downgrade_permission", status: "APPLIED" },
  { action: "remove_external_domain", status: "APPLIED" },
  { action: "transfer_ownership", status: "APPLIED" },
  { action: "revoke_oauth_grant", status: "APPLIED" },
];

/** Undo by the job (REVERTING set as requestUndo leaves it), then the tenant as it was but the token. */
async function undoneAsBefore(t: TSeeded, id: string, run: () => Promise<unknown>) {
  await db.update(remediations).set({ status: "REVERTING" }).where(eq(remediations.id, id));
  t.fake.reset();
  await run();
  expect(await statusOf(id)).toBe("REVERTED");
  expect(writes(t)).toEqual(UNDO_WRITES);
  expect((await stepsOf(id)).map((s) => s.status)).toEqual([
    "REVERTED",
    "REVERTED",
    "REVERTED",
    "REVERTED",
    "APPLIED",
  ]);
  const sorted = (f: (typeof FILES)[number] | undefined) =>
    f && { ...f, permissions: [...f.permissions].sort((a, b) => (a.id < b.id ? -1 : 1)) };
  for (const f of FILES) expect(sorted(t.source.file(f.id))).toEqual(sorted(f));
  expect(t.source.grant(GRANTS[0]?.id ?? "")).toBeUndefined();
}

describe("exactly once at the source", () => {
  it("two workers at once: one holds the lease and writes each step once; undo likewise", async () => {
    const t = await seedTenant(db, "Twice");
    const id = await mixedPlan(t);
    const results = await Promise.all([runApplyJob(depsOf(t), id), runApplyJob(depsOf(t), id)]);
    expect(results.sort()).toEqual(["APPLIED", "APPLYING"]);
    expect(writes(t)).toEqual(APPLY_WRITES);
    expect(await stepsOf(id)).toEqual(ALL_APPLIED);
    await undoneAsBefore(t, id, () => Promise.all([runUndoJob(depsOf(t), id), runUndoJob(depsOf(t), id)]));
  });

  it("a second job while the first runs (Redis restarted empty): the sweep leaves it, the job does nothing", async () => {
    const t = await seedTenant(db, "Requeued");
    const id = await mixedPlan(t);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached: () => void = () => {};
    const atStep3 = new Promise<void>((resolve) => (reached = resolve));
    const first = runApplyJob(
      depsOf(t, {
        writerFor: () =>
          hooked(t, async (call) => {
            if (call !== "deletePermission f2/p-dom") return;
            reached();
            await gate;
          }),
      }),
      id,
    );
    await atStep3;
    const { jobs, deps } = remediationQueue(db, () => t.fake);
    const queued: string[] = [];
    // The sweep finds the remediation leased by a live worker: nothing queued.
    expect(
      await sweepRemediations({ ...deps, jobs: { ...jobs, enqueue: async (n) => void queued.push(n) } }),
    ).toBe(0);
    expect(queued).toEqual([]);
    // A job run anyway (the queue lost its id) finds the lease taken and writes nothing.
    const before = writes(t).length;
    expect(await runApplyJob(depsOf(t), id)).toBe("APPLYING");
    expect(writes(t).length).toBe(before);
    release();
    expect(await first).toBe("APPLIED");
    expect(writes(t)).toEqual(APPLY_WRITES);
    expect(await stepsOf(id)).toEqual(ALL_APPLIED);
    await jobs.close();
  });

  it("a worker that stops after the source call, before recording: taken over once its lease ran out, and it writes nothing more", async () => {
    const t = await seedTenant(db, "Killed");
    const id = await mixedPlan(t);
    let wake: () => void = () => {};
    const frozen = new Promise<void>((resolve) => (wake = resolve));
    let stopped: () => void = () => {};
    const atStop = new Promise<void>((resolve) => (stopped = resolve));
    // The doomed worker: its process stops right after Drive deleted the link (its timers too, so
    // it renews nothing: renewEveryMs beyond the test), then comes back after the take-over.
    const doomed = runApplyJob(
      depsOf(t, {
        lease: { ...LEASE, renewEveryMs: 3_600_000 },
        writerFor: () =>
          hooked(t, async (call) => {
            if (call !== "deletePermission f1/anyone") return;
            stopped();
            await frozen;
          }),
      }),
      id,
    );
    const doomedDone = doomed.then(
      (s) => `returned ${s}`,
      (e: Error) => e.message,
    );
    await atStop;
    // Not before the lease ran out.
    expect(await runApplyJob(depsOf(t), id)).toBe("APPLYING");
    await sleep(LEASE.ttlMs + 100);
    expect(await runApplyJob(depsOf(t), id)).toBe("APPLIED");
    wake();
    expect(await doomedDone).toMatch(/lease lost/);
    // The link was deleted once, by the doomed worker: recorded APPLIED from the re-read, not gone.
    expect(writes(t)).toEqual(APPLY_WRITES);
    expect(await stepsOf(id)).toEqual(ALL_APPLIED);
    await undoneAsBefore(t, id, () => runUndoJob(depsOf(t), id));
  });

  it("a statement that times out mid-apply and mid-undo: the next try re-reads, writes nothing twice, undo restores all", async () => {
    const t = await seedTenant(db, "Frozen");
    const id = await mixedPlan(t);
    // The workers' own pool, with a short statement bound; the findings lock held by another
    // transaction (as a long scan holds it) freezes the outcome's transaction after the call.
    const short = createDb({ databaseUrl: tdb.url, statementTimeoutMs: 400, poolSize: 4 });
    handles.push(short);
    let freezeAt = "transferOwnership f3";
    let unfreeze: () => void = () => {};
    const freeze = async (call: string) => {
      if (call !== freezeAt) return;
      freezeAt = "";
      let locked: () => void = () => {};
      const held = new Promise<void>((resolve) => (locked = resolve));
      const released = new Promise<void>((resolve) => (unfreeze = resolve));
      void db.transaction(async (tx) => {
        await tx.execute(lockOrg(t.orgId, "findings"));
        locked();
        await released;
      });
      await held;
    };
    const deps = depsOf(t, { db: short.db, writerFor: () => hooked(t, freeze) });

    await expect(runApplyJob(deps, id, { attempt: 1, attempts: 5 })).rejects.toThrow();
    unfreeze();
    expect(await runApplyJob(deps, id, { attempt: 2, attempts: 5 })).toBe("APPLIED");
    expect(writes(t)).toEqual(APPLY_WRITES);
    // The transfer made before the freeze is ours: APPLIED, so that undo gives the file back.
    expect(await stepsOf(id)).toEqual(ALL_APPLIED);

    freezeAt = "restorePermission f2/p-dom";
    await undoneAsBefore(t, id, async () => {
      await expect(runUndoJob(deps, id, { attempt: 1, attempts: 5 })).rejects.toThrow();
      unfreeze();
      expect(await runUndoJob(deps, id, { attempt: 2, attempts: 5 })).toBe("REVERTED");
    });
  });

  it("a downgrade never raises a permission: one already below the target is left as it is", async () => {
    const t = await seedTenant(db, "Ranked");
    const f2 = t.source.file("f2");
    if (!f2) throw new Error("no f2");
    // Since the plan: someone lowered the outside writer to a reader; the plan lowers to commenter.
    t.source.putFile({
      ...f2,
      permissions: f2.permissions.map((p) => (p.id === "p-ext" ? { ...p, role: "reader" as const } : p)),
    });
    const id = await insertPlan(db, {
      orgId: t.orgId,
      origin: "manual",
      request: { findingIds: [] },
      predicted: { score: 0, grade: "F", scoreDelta: 0, before: { score: 0, grade: "F" } },
      plannedBy: { kind: "system", userId: null, email: "system", orgId: t.orgId },
      steps: [
        {
          connectorId: t.connectorId,
          action: "downgrade_permission",
          resource: { kind: "permission", ...file("f2", "Roadmap.docx", owner1), permissionId: "p-ext" },
          before: { role: "writer" },
          after: { role: "commenter" },
          reversible: true,
          irreversibleReason: null,
          findingIds: [],
          people: [],
        },
      ],
    });
    await db.update(remediations).set({ status: "APPLYING" }).where(eq(remediations.id, id));
    expect(await runApplyJob(depsOf(t), id)).toBe("APPLIED");
    expect(writes(t)).toEqual([]);
    expect(await stepsOf(id)).toEqual([{ action: "downgrade_permission", status: "ALREADY_GONE" }]);
    expect(t.source.file("f2")?.permissions.find((p) => p.id === "p-ext")?.role).toBe("reader");
  });
});
