import { randomBytes } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TSourceWriter } from "@posture/connectors";
import { startFakeGithub, type TFakeGithub } from "@posture/fakes/github";
import { buildGithubFixture, generateGithubApp, type TGithubFixture } from "@posture/fakes/github-fixture";
import { connectors, organizations, remediations, remediationSteps, type Db } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { createInProcessQueue } from "@posture/jobs";
import { createLogger, encryptSecret, parseEncryptionKey, SYSTEM_ACTOR } from "@posture/platform";
import type { TRemediationJobDeps } from "./jobs/module";
import {
  applyJobId,
  REMEDIATION_APPLY_JOB,
  REMEDIATION_SWEEP_JOB,
  REMEDIATION_UNDO_JOB,
  requestApply,
  runApplyJob,
  undoJobId,
} from "./services/apply";
import { insertPlan } from "./services/plan";
import { createRateLimiter } from "./services/rate";
import { runUndoJob } from "./services/undo";
import { writerFor as realWriterFor } from "./services/writer";
import {
  enqueueSoon,
  idleQueue,
  sleep,
  startOwnRedis,
  startSchedulers,
  until,
  type TOwnRedis,
} from "./testing/own-redis";

// The GitHub writer under the interruptions exactly-once.int.test.ts and
// exactly-once-redis.int.test.ts put the engine through, counted at the GitHub fake: every
// outside collaborator removed with one DELETE and invited back with one PUT (so one invitation),
// whether Redis restarts empty under two schedulers, or a worker stops right after GitHub made
// the change and before it was recorded. The second is the case an invitation makes hard: the
// permission endpoint does not show a pending invitation, so the worker that takes the undo over
// finds nothing restored, and only the writer's look at the invitations keeps it from inviting twice.

const APP = generateGithubApp();
const OUTSIDER = "contractor-carl";
const OWNERS = "owners@acme.github";

let redis: TOwnRedis;
let tdb: TestDb;
let db: Db;
const closers: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  redis = await startOwnRedis();
  tdb = await createTestDb();
  db = tdb.db;
});
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  await redis?.stop();
  await tdb?.drop();
});

const repoName = (i: number) => `once-${String(i).padStart(2, "0")}`;

/** The organization of the fake with `steps` repositories, each with the outside collaborator as a writer. */
async function tenant(name: string, steps: number) {
  const fixture: TGithubFixture = buildGithubFixture();
  for (let i = 0; i < steps; i++)
    fixture.repositories.push({
      id: 7000 + i,
      name: repoName(i),
      visibility: "private",
      fork: false,
      archived: false,
      createdAt: "2025-02-01T00:00:00Z",
      pushedAt: "2025-03-01T00:00:00Z",
      collaborators: [{ login: OUTSIDER, permission: "push" }],
      deployKeys: [],
    });
  const fake: TFakeGithub = await startFakeGithub({
    fixture,
    apps: [{ appId: APP.appId, publicKey: APP.publicKey }],
    permissions: {
      88: { metadata: "read", members: "read", administration: "write", organization_administration: "read" },
    },
  });
  closers.push(() => fake.close());
  const runtime = {
    encryptionKey: parseEncryptionKey(randomBytes(32).toString("hex")),
    publicUrl: "http://localhost",
    webhookAllowPrivateTargets: false,
    sourceEndpoints: { github: { baseUrl: fake.url } },
  };
  const credentials = { appId: APP.appId, installationId: 88, privateKey: APP.privateKey };
  const [org] = await db.insert(organizations).values({ name, plan: "business" }).returning();
  if (!org) throw new Error("no org");
  const [connector] = await db
    .insert(connectors)
    .values({
      orgId: org.id,
      type: "github",
      displayName: `${name} GitHub`,
      mode: "real",
      writeAccess: true,
      config: { organization: "acme" },
      credentialsEnc: encryptSecret(runtime.encryptionKey, JSON.stringify(credentials)),
    })
    .returning();
  if (!connector) throw new Error("no connector");
  const id = await insertPlan(db, {
    orgId: org.id,
    origin: "manual",
    request: { findingIds: [] },
    predicted: { score: 0, grade: "F", scoreDelta: 0, before: { score: 0, grade: "F" } },
    plannedBy: { ...SYSTEM_ACTOR, orgId: org.id },
    steps: Array.from({ length: steps }, (_, i) => ({
      connectorId: connector.id,
      action: "remove_external_user" as const,
      resource: {
        kind: "permission" as const,
        fileId: `acme/${repoName(i)}`,
        driveId: null,
        name: `acme/${repoName(i)}`,
        ownerEmail: OWNERS,
        permissionId: OUTSIDER,
      },
      before: { type: "user", role: "writer", target: `${OUTSIDER}@users.noreply.github.com` },
      after: null,
      reversible: true,
      irreversibleReason: null,
      findingIds: [],
      people: [],
    })),
  });
  await db.update(remediations).set({ status: "APPROVED" }).where(eq(remediations.id, id));

  /** How many `method` requests each step's repository received for the collaborator. */
  const perStep = (method: string) =>
    Array.from(
      { length: steps },
      (_, i) =>
        fake.requests.filter(
          (r) => r.method === method && r.path === `/repos/acme/${repoName(i)}/collaborators/${OUTSIDER}`,
        ).length,
    );
  const invitationsPerStep = () =>
    Array.from(
      { length: steps },
      (_, i) =>
        (fixture.invitations ?? []).filter((v) => v.repo === repoName(i) && v.login === OUTSIDER).length,
    );
  const collaboratorsPerStep = () =>
    Array.from({ length: steps }, (_, i) =>
      fixture.repositories.find((r) => r.name === repoName(i))?.collaborators.map((c) => c.login),
    );
  const statusOf = async () =>
    (await db.select({ s: remediations.status }).from(remediations).where(eq(remediations.id, id)))[0]?.s;
  const countsOf = async () =>
    (await db.select().from(remediations).where(eq(remediations.id, id)))[0]?.stepCounts;
  return {
    fake,
    fixture,
    runtime,
    orgId: org.id,
    id,
    once: Array.from({ length: steps }, () => 1),
    perStep,
    invitationsPerStep,
    collaboratorsPerStep,
    statusOf,
    countsOf,
  };
}

describe("the GitHub writer, interrupted", () => {
  it("two schedulers, Redis restarted empty mid-apply and mid-undo: one DELETE and one invitation a step", async () => {
    const STEPS = 24;
    const t = await tenant("Once GitHub", STEPS);
    const { producer, schedulers } = startSchedulers({
      count: 2,
      databaseUrl: tdb.url,
      redisUrl: redis.url,
      db,
      runtime: t.runtime,
      closers,
    });
    const sent = (method: string) => t.perStep(method).reduce((a, b) => a + b, 0);

    await requestApply(
      db,
      { orgId: t.orgId, actor: { kind: "session", userId: null, email: "admin@acme.test" }, id: t.id },
      { jobs: producer },
    );
    await until("a quarter of the removals", () => sent("DELETE") >= STEPS / 4);
    await redis.restartEmpty();
    await enqueueSoon(producer, REMEDIATION_SWEEP_JOB, {});
    await enqueueSoon(producer, REMEDIATION_APPLY_JOB, { remediationId: t.id }, { jobId: applyJobId(t.id) });
    await until("APPLIED", async () => (await t.statusOf()) === "APPLIED");
    await idleQueue(producer);
    await sleep(500);
    expect(t.perStep("DELETE")).toEqual(t.once);
    expect(await t.countsOf()).toEqual({ APPLIED: STEPS });
    expect(t.collaboratorsPerStep()).toEqual(t.once.map(() => []));

    await db.update(remediations).set({ status: "REVERTING" }).where(eq(remediations.id, t.id));
    await enqueueSoon(producer, REMEDIATION_UNDO_JOB, { remediationId: t.id }, { jobId: undoJobId(t.id) });
    await until("a quarter of the invitations", () => sent("PUT") >= STEPS / 4);
    await redis.restartEmpty();
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
    const LEASE = { ttlMs: 1_500, renewEveryMs: 200, marginMs: 500 };
    const depsOf = (over: Partial<TRemediationJobDeps> = {}): TRemediationJobDeps => {
      const deps: TRemediationJobDeps = {
        db,
        jobs: createInProcessQueue(() => ({})),
        runtime: t.runtime,
        log: createLogger("fatal"),
        rate: createRateLimiter({ perSecond: 1000 }),
        wait: async () => {},
        lease: LEASE,
        ...over,
      };
      return deps;
    };
    /** The real GitHub writer, stopping (its timers too: no lease renewal) after `call` on the middle repository. */
    const stopping = (call: "deletePermission" | "restorePermission") => {
      let wake: () => void = () => {};
      const frozen = new Promise<void>((resolve) => (wake = resolve));
      let stopped: () => void = () => {};
      const atStop = new Promise<void>((resolve) => (stopped = resolve));
      const deps = depsOf({
        lease: { ...LEASE, renewEveryMs: 3_600_000 },
        writerFor: (d, c, rt): TSourceWriter => {
          const w = realWriterFor(d, c, rt);
          const after =
            <A extends [{ id: string }, ...unknown[]], R>(f: (...a: A) => Promise<R>) =>
            async (...a: A) => {
              const r = await f(...a);
              if (a[0].id === `acme/${repoName(1)}`) {
                stopped();
                await frozen;
              }
              return r;
            };
          return call === "deletePermission"
            ? { ...w, deletePermission: after(w.deletePermission) }
            : { ...w, restorePermission: after(w.restorePermission) };
        },
      });
      return { deps, wake, atStop };
    };
    const stepStatuses = async () =>
      (
        await db
          .select({ status: remediationSteps.status })
          .from(remediationSteps)
          .where(eq(remediationSteps.remediationId, t.id))
          .orderBy(asc(remediationSteps.seq))
      ).map((s) => s.status);

    await db
      .update(remediations)
      .set({ status: "APPLYING", applyStartedAt: new Date() })
      .where(eq(remediations.id, t.id));
    const applying = stopping("deletePermission");
    const doomed = runApplyJob(applying.deps, t.id).then(
      (s) => `returned ${s}`,
      (e: Error) => e.message,
    );
    await applying.atStop;
    expect(t.perStep("DELETE")).toEqual([1, 1, 0]);
    // Not before the lease ran out; then the next worker re-reads the stopped step and goes on.
    expect(await runApplyJob(depsOf(), t.id)).toBe("APPLYING");
    await sleep(LEASE.ttlMs + 100);
    expect(await runApplyJob(depsOf(), t.id)).toBe("APPLIED");
    applying.wake();
    expect(await doomed).toMatch(/lease lost/);
    expect(t.perStep("DELETE")).toEqual(t.once);
    expect(await stepStatuses()).toEqual(["APPLIED", "APPLIED", "APPLIED"]);

    await db.update(remediations).set({ status: "REVERTING" }).where(eq(remediations.id, t.id));
    const undoing = stopping("restorePermission");
    // Undo runs last step first: it stops once the middle repository's invitation is sent.
    const doomedUndo = runUndoJob(undoing.deps, t.id).then(
      (s) => `returned ${s}`,
      (e: Error) => e.message,
    );
    await undoing.atStop;
    expect(t.perStep("PUT")).toEqual([0, 1, 1]);
    await sleep(LEASE.ttlMs + 100);
    expect(await runUndoJob(depsOf(), t.id)).toBe("REVERTED");
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
    expect(await stepStatuses()).toEqual(["REVERTED", "REVERTED", "REVERTED"]);
    expect(t.fake.refused).toEqual([]);
    // One invitation each, at the role each collaborator had.
    expect(t.fixture.invitations?.map((v) => [v.repo, v.permission])).toEqual([
      [repoName(2), "push"],
      [repoName(1), "push"],
      [repoName(0), "push"],
    ]);
  }, 60_000);
});
