import { randomBytes } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectors,
  events,
  findings,
  organizations,
  preventionRules,
  remediations,
  remediationSteps,
  scans,
  type Db,
} from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { createInProcessQueue } from "@posture/jobs";
import { createLogger, parseEncryptionKey, SYSTEM_ACTOR, type TRuntime } from "@posture/platform";
import { computeOrgPosture } from "@posture/posture";
import {
  applyJobId,
  createRateLimiter,
  REMEDIATION_APPLY_JOB,
  REMEDIATION_UNDO_JOB,
  remediationJobs,
  requestUndo,
  undoJobId,
} from "@posture/remediation";
import { createFakeWriter, type TFakeSource, type TFakeWriter } from "@posture/remediation/testing";
import { BEHAVIOUR_REFRESH_JOB } from "@posture/ueba";
import { ACTIVITY_JOB } from "./deps";
import { runScanJob } from "./scan-job";
import { createScriptedTenant, sampleSeed, storeAndFindingsOf, type TScriptedTenant } from "./testing";

// Prevention rules that act, through the whole pipeline: a scan finds new public links, the rule
// plans their removal in the scan's transaction and (under the cap) applies it through the
// remediation job and a fake writer over the scripted tenant; the next scan agrees with what the
// remediation left in the store and the findings, and so does a scan after the undo.

let tdb: TestDb;
let db: Db;
const runtime: TRuntime = {
  encryptionKey: parseEncryptionKey(randomBytes(32).toString("hex")),
  publicUrl: "http://localhost",
  webhookAllowPrivateTargets: false,
};

type TSide = { orgId: string; connectorId: string; tenant: TScriptedTenant; fake: TFakeWriter };

async function side(opts: { cap?: number; dryRun?: boolean } = {}): Promise<TSide> {
  const [org] = await db
    .insert(organizations)
    .values({ name: "Prevent", plan: "business", preventionChangeCap: opts.cap ?? 25 })
    .returning();
  if (!org) throw new Error("no org");
  const [c] = await db
    .insert(connectors)
    .values({
      orgId: org.id,
      type: "google_workspace",
      displayName: "Scripted",
      mode: "real",
      writeAccess: true,
    })
    .returning();
  if (!c) throw new Error("no connector");
  await db.insert(preventionRules).values({
    orgId: org.id,
    name: "Remove new public links",
    match: { categories: ["public_exposure"] },
    action: "REVOKE_PUBLIC_LINK",
    dryRun: opts.dryRun ?? false,
  });
  const seed = sampleSeed(20);
  const tenant = createScriptedTenant(seed);
  const grants = new Map((seed.grants ?? []).map((g) => [g.id, g]));
  const source: TFakeSource = {
    file: (id) => tenant.files().find((f) => f.id === id),
    putFile: (f) => tenant.putFile(f),
    grant: (id) => grants.get(id),
    removeGrant: (id) => {
      grants.delete(id);
      tenant.removeGrant(id);
    },
    putGrant: (g) => {
      grants.set(g.id, g);
      tenant.putGrant(g);
    },
  };
  return { orgId: org.id, connectorId: c.id, tenant, fake: createFakeWriter(source) };
}

function queue(s: TSide) {
  const jobs = createInProcessQueue(() => ({
    [ACTIVITY_JOB]: { handler: async () => {}, attempts: 1, backoffMs: 0 },
    [BEHAVIOUR_REFRESH_JOB]: { handler: async () => {}, attempts: 1, backoffMs: 0 },
    ...remediationJobs.definitions({
      db,
      jobs,
      runtime,
      log: createLogger("warn"),
      writerFor: () => s.fake.writer,
      rate: createRateLimiter({ perSecond: 1000 }),
      wait: async () => {},
      backoffMs: 1,
    }),
  }));
  return jobs;
}

async function scan(s: TSide, jobs: ReturnType<typeof queue>) {
  const [row] = await db
    .insert(scans)
    .values({ orgId: s.orgId, connectorId: s.connectorId, connectorName: "Scripted", trigger: "manual" })
    .returning();
  if (!row) throw new Error("no scan");
  return runScanJob(
    {
      db,
      jobs,
      runtime,
      log: createLogger("warn"),
      adapterFor: () => s.tenant.adapter,
      tenantChecks: () => [],
      writerFor: () => s.fake.writer,
    },
    row.id,
    1,
  );
}

const remediationsOf = (orgId: string) =>
  db.select().from(remediations).where(eq(remediations.orgId, orgId)).orderBy(asc(remediations.createdAt));
const publicFindings = (connectorId: string) =>
  db
    .select({ id: findings.id, status: findings.status, resolvedBy: findings.resolvedBy })
    .from(findings)
    .where(and(eq(findings.connectorId, connectorId), eq(findings.ruleId, "public_link")))
    .orderBy(asc(findings.resourceId));
const triggered = async (orgId: string) =>
  (
    await db
      .select()
      .from(events)
      .where(and(eq(events.orgId, orgId), eq(events.type, "prevention.triggered")))
  ).map((e) => JSON.parse(e.data) as Record<string, unknown>);

beforeAll(async () => {
  tdb = await createTestDb();
  db = tdb.db;
});
afterAll(async () => {
  await tdb?.drop();
});

describe("prevention rules that act", () => {
  it("under the cap: applies at once, and the next scan agrees; so does a scan after the undo", async () => {
    const s = await side();
    const jobs = queue(s);
    const first = await scan(s, jobs);
    expect(first.status).toBe("COMPLETE");
    const [rem] = await remediationsOf(s.orgId);
    if (!rem) throw new Error("no remediation planned");
    expect(rem).toMatchObject({ origin: "prevention", dryRun: false, status: "APPLYING", stepTotal: 4 });
    expect(rem.approvedBy).toMatchObject({ kind: "system" });
    const done = await jobs.runAndWait<string>(
      REMEDIATION_APPLY_JOB,
      { remediationId: rem.id },
      { jobId: applyJobId(rem.id), timeoutMs: 30_000 },
    );
    expect(done).toBe("APPLIED");
    expect(s.fake.changes().map((c) => c.method)).toEqual(Array(4).fill("deletePermission"));
    const fixed = await publicFindings(s.connectorId);
    expect(fixed).toHaveLength(4);
    expect(fixed.every((f) => f.status === "RESOLVED" && f.resolvedBy === rem.id)).toBe(true);
    expect(await triggered(s.orgId)).toEqual([
      expect.objectContaining({
        action: "REVOKE_PUBLIC_LINK",
        remediationId: rem.id,
        count: 4,
        outcome: "applying",
      }),
    ]);
    const remediated = await storeAndFindingsOf(db, s.connectorId);
    const score = (await computeOrgPosture(db, { orgId: s.orgId })).score;
    expect(score).toBeGreaterThan(first.postureScore);

    // The next scan reads the links gone: nothing new, nothing to plan, the same store and findings.
    const second = await scan(s, jobs);
    expect(second).toMatchObject({
      status: "COMPLETE",
      findingsNew: 0,
      findingsResolved: 0,
      postureScore: score,
    });
    expect(await storeAndFindingsOf(db, s.connectorId)).toEqual(remediated);
    expect(await remediationsOf(s.orgId)).toHaveLength(1);
    expect((await publicFindings(s.connectorId)).every((f) => f.resolvedBy === rem.id)).toBe(true);

    // Undo puts the links back; the findings re-open, and a scan agrees again.
    s.fake.reset();
    await requestUndo(db, { orgId: s.orgId, actor: SYSTEM_ACTOR, id: rem.id }, { jobs });
    await jobs.runAndWait(
      REMEDIATION_UNDO_JOB,
      { remediationId: rem.id },
      { jobId: undoJobId(rem.id), timeoutMs: 30_000 },
    );
    expect(s.fake.changes().map((c) => c.method)).toEqual(Array(4).fill("restorePermission"));
    expect(
      (await publicFindings(s.connectorId)).every((f) => f.status === "OPEN" && f.resolvedBy === null),
    ).toBe(true);
    const undone = await storeAndFindingsOf(db, s.connectorId);
    expect((await computeOrgPosture(db, { orgId: s.orgId })).score).toBe(first.postureScore);
    const third = await scan(s, jobs);
    expect(third).toMatchObject({ status: "COMPLETE", findingsNew: 0, findingsResolved: 0 });
    expect(await storeAndFindingsOf(db, s.connectorId)).toEqual(undone);
    await jobs.close();
  });

  it("over the cap: the plan waits for an administrator's approval and nothing changes", async () => {
    const s = await side({ cap: 2 });
    const jobs = queue(s);
    await scan(s, jobs);
    const [rem] = await remediationsOf(s.orgId);
    expect(rem).toMatchObject({ status: "PLANNED", origin: "prevention", stepTotal: 4, approvedBy: null });
    expect(s.fake.changes()).toEqual([]);
    expect((await publicFindings(s.connectorId)).every((f) => f.status === "OPEN")).toBe(true);
    expect(await triggered(s.orgId)).toEqual([
      expect.objectContaining({ remediationId: rem?.id, outcome: "awaiting_approval" }),
    ]);
    await jobs.close();
  });

  it("in dry run: records what it would have done, never applies it", async () => {
    const s = await side({ dryRun: true });
    const jobs = queue(s);
    await scan(s, jobs);
    const [rem] = await remediationsOf(s.orgId);
    expect(rem).toMatchObject({ status: "PLANNED", dryRun: true, stepTotal: 4 });
    const steps = await db
      .select()
      .from(remediationSteps)
      .where(eq(remediationSteps.remediationId, rem?.id ?? ""));
    expect(steps.map((st) => st.action)).toEqual(Array(4).fill("remove_public_link"));
    expect(s.fake.changes()).toEqual([]);
    expect(await triggered(s.orgId)).toEqual([expect.objectContaining({ outcome: "dry_run" })]);
    await jobs.close();
  });
});
