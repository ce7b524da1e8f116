import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { remediations } from "@posture/db";
import {
  applyJobId,
  REMEDIATION_APPLY_JOB,
  REMEDIATION_SWEEP_JOB,
  REMEDIATION_UNDO_JOB,
  requestApply,
  runApplyJob,
  undoJobId,
} from "./services/apply";
import { runUndoJob } from "./services/undo";
import {
  depsOf,
  githubTenant,
  LEASE,
  repoName,
  stepStatuses,
  stoppingWorker,
  type TGithubTenant,
} from "./testing/github-tenant";
import {
  enqueueSoon,
  idleQueue,
  sleep,
  startSchedulers,
  until,
  useInterruptionRig,
} from "./testing/own-redis";

// The GitHub writer under the interruptions exactly-once.int.test.ts and
// exactly-once-redis.int.test.ts put the engine through, counted at the GitHub fake: every
// outside collaborator removed with one DELETE and invited back with one PUT (so one invitation),
// whether Redis restarts empty under two schedulers, or a worker stops right after GitHub made
// the change and before it was recorded. The second is the case an invitation makes hard: the
// permission endpoint does not show a pending invitation, so the worker that takes the undo over
// finds nothing restored, and only the writer's look at the invitations keeps it from inviting twice.

const rig = useInterruptionRig();

const tenant = (name: string, steps: number, kind: "collaborator" | "deploy_key" = "collaborator") =>
  githubTenant(rig.db, { name, steps, kind, closers: rig.closers });

describe("the GitHub writer, interrupted", () => {
  it("two schedulers, Redis restarted empty mid-apply and mid-undo: one DELETE and one invitation a step", async () => {
    const STEPS = 24;
    const t = await tenant("Once GitHub", STEPS);
    const { producer, schedulers } = startSchedulers({
      count: 2,
      databaseUrl: rig.tdb.url,
      redisUrl: rig.redis.url,
      db: rig.db,
      runtime: t.runtime,
      closers: rig.closers,
    });
    const sent = (method: string) => t.perStep(method).reduce((a, b) => a + b, 0);

    await requestApply(
      rig.db,
      { orgId: t.orgId, actor: { kind: "session", userId: null, email: "admin@acme.test" }, id: t.id },
      { jobs: producer },
    );
    await until("a quarter of the removals", () => sent("DELETE") >= STEPS / 4);
    await rig.redis.restartEmpty();
    await enqueueSoon(producer, REMEDIATION_SWEEP_JOB, {});
    await enqueueSoon(producer, REMEDIATION_APPLY_JOB, { remediationId: t.id }, { jobId: applyJobId(t.id) });
    await until("APPLIED", async () => (await t.statusOf()) === "APPLIED");
    await idleQueue(producer);
    await sleep(500);
    expect(t.perStep("DELETE")).toEqual(t.once);
    expect(await t.countsOf()).toEqual({ APPLIED: STEPS });
    expect(t.collaboratorsPerStep()).toEqual(t.once.map(() => []));

    await rig.db.update(remediations).set({ status: "REVERTING" }).where(eq(remediations.id, t.id));
    await enqueueSoon(producer, REMEDIATION_UNDO_JOB, { remediationId: t.id }, { jobId: undoJobId(t.id) });
    await until("a quarter of the invitations", () => sent("PUT") >= STEPS / 4);
    await rig.redis.restartEmpty();
    await enqueueSoon(producer, REMEDIATION_SWEEP_JOB, {});
    await enqueueSoon(producer, REMEDIATION_UNDO_JOB, { remediationId: t.id }, { jobId: undoJobId(t.id) });
    await until("REVERTED", async () => (await t.statusOf()) === "REVERTED");
    await idleQueue(producer);
    await sleep(500);
    expect(t.perStep("PUT")).toEqual(t.once);
    expect(t.invitationsPerStep()).toEqual(t.once);
    expect(await t.countsOf()).toEqual({ REVERTED: STEPS });
    // Every write the fake received was one of these, and GitHub's description allows each.
    expect(t.fake.requests.filter((r) => r.method !== "GET" && !r.path.startsWith("/app/"))).toHaveLength(
      2 * STEPS,
    );
    expect(t.fake.refused).toEqual([]);
    expect(schedulers).toHaveLength(2);
  }, 120_000);

  it("a worker that stops right after GitHub's change, before recording it: taken over, nothing sent twice, one invitation", async () => {
    const STEPS = 3;
    const t = await tenant("Stopped GitHub", STEPS);
    await rig.db
      .update(remediations)
      .set({ status: "APPLYING", applyStartedAt: new Date() })
      .where(eq(remediations.id, t.id));
    const applying = stoppingWorker(t, "deletePermission");
    const doomed = runApplyJob(applying.deps, t.id).then(
      (s) => `returned ${s}`,
      (e: Error) => e.message,
    );
    await applying.atStop;
    expect(t.perStep("DELETE")).toEqual([1, 1, 0]);
    // Not before the lease ran out; then the next worker re-reads the stopped step and goes on.
    expect(await runApplyJob(depsOf(t), t.id)).toBe("APPLYING");
    await sleep(LEASE.ttlMs + 100);
    expect(await runApplyJob(depsOf(t), t.id)).toBe("APPLIED");
    applying.wake();
    expect(await doomed).toMatch(/lease lost/);
    expect(t.perStep("DELETE")).toEqual(t.once);
    expect(await stepStatuses(t)).toEqual(["APPLIED", "APPLIED", "APPLIED"]);

    await rig.db.update(remediations).set({ status: "REVERTING" }).where(eq(remediations.id, t.id));
    const undoing = stoppingWorker(t, "restorePermission");
    // Undo runs last step first: it stops once the middle repository's invitation is sent.
    const doomedUndo = runUndoJob(undoing.deps, t.id).then(
      (s) => `returned ${s}`,
      (e: Error) => e.message,
    );
    await undoing.atStop;
    expect(t.perStep("PUT")).toEqual([0, 1, 1]);
    await sleep(LEASE.ttlMs + 100);
    expect(await runUndoJob(depsOf(t), t.id)).toBe("REVERTED");
    undoing.wake();
    expect(await doomedUndo).toMatch(/lease lost/);
    // The taking-over worker saw no collaborator on the middle repository (an invitation is not
    // a grant), restored it again, and the writer found the invitation: no second PUT.
    expect(t.perStep("PUT")).toEqual(t.once);
    expect(t.invitationsPerStep()).toEqual(t.once);
    expect(
      t.fake.requests.filter(
        (r) => r.method === "GET" && r.path === `/repos/acme/${repoName(1)}/invitations`,
      ),
    ).toHaveLength(2);
    expect(await stepStatuses(t)).toEqual(["REVERTED", "REVERTED", "REVERTED"]);
    expect(t.fake.refused).toEqual([]);
    // One invitation each, at the role each collaborator had.
    expect(t.fixture.invitations?.map((v) => [v.repo, v.permission])).toEqual([
      [repoName(2), "push"],
      [repoName(1), "push"],
      [repoName(0), "push"],
    ]);
  }, 60_000);

  it("a deploy key deleted and added back by workers that stop after GitHub's change: one DELETE, one POST a key", async () => {
    const t: TGithubTenant = await tenant("Keys GitHub", 3, "deploy_key");
    const deletes = () => t.perStep("DELETE", (i) => `/repos/acme/${repoName(i)}/keys/${7200 + i}`);
    const posts = () => t.perStep("POST", (i) => `/repos/acme/${repoName(i)}/keys`);
    const keysOf = () =>
      [0, 1, 2].map((i) =>
        t.fixture.repositories.find((r) => r.name === repoName(i))?.deployKeys.map((k) => [k.id, k.key]),
      );
    await rig.db
      .update(remediations)
      .set({ status: "APPLYING", applyStartedAt: new Date() })
      .where(eq(remediations.id, t.id));
    const applying = stoppingWorker(t, "deleteDeployKey");
    const doomed = runApplyJob(applying.deps, t.id).then(
      (s) => `returned ${s}`,
      (e: Error) => e.message,
    );
    await applying.atStop;
    await sleep(LEASE.ttlMs + 100);
    expect(await runApplyJob(depsOf(t), t.id)).toBe("APPLIED");
    applying.wake();
    expect(await doomed).toMatch(/lease lost/);
    expect(deletes()).toEqual(t.once);
    expect(keysOf()).toEqual([[], [], []]);

    await rig.db.update(remediations).set({ status: "REVERTING" }).where(eq(remediations.id, t.id));
    const undoing = stoppingWorker(t, "restoreDeployKey");
    const doomedUndo = runUndoJob(undoing.deps, t.id).then(
      (s) => `returned ${s}`,
      (e: Error) => e.message,
    );
    await undoing.atStop;
    expect(posts()).toEqual([0, 1, 1]);
    await sleep(LEASE.ttlMs + 100);
    expect(await runUndoJob(depsOf(t), t.id)).toBe("REVERTED");
    undoing.wake();
    expect(await doomedUndo).toMatch(/lease lost/);
    // The take-over restored the middle key again: the writer found its public key, sent no POST.
    expect(posts()).toEqual(t.once);
    expect(await stepStatuses(t)).toEqual(["REVERTED", "REVERTED", "REVERTED"]);
    // Each public key back once, under a new id (the fake's next after 7202, last step first):
    // never a deleted key's.
    expect(keysOf()).toEqual([
      [[7205, "ssh-ed25519 AAAAonce0"]],
      [[7204, "ssh-ed25519 AAAAonce1"]],
      [[7203, "ssh-ed25519 AAAAonce2"]],
    ]);
    expect(t.fake.refused).toEqual([]);
  }, 60_000);
});
