import { randomBytes } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import type { TSourceWriter } from "@posture/connectors";
import { startFakeGithub, type TFakeGithub } from "@posture/fakes/github";
import { buildGithubFixture, generateGithubApp, type TGithubFixture } from "@posture/fakes/github-fixture";
import { connectors, organizations, remediations, remediationSteps, type Db } from "@posture/db";
import { createInProcessQueue } from "@posture/jobs";
import { createLogger, encryptSecret, parseEncryptionKey, SYSTEM_ACTOR } from "@posture/platform";
import type { TRemediationJobDeps } from "../jobs/module";
import { insertPlan } from "../services/plan";
import { createRateLimiter } from "../services/rate";
import { writerFor as realWriterFor } from "../services/writer";

// The GitHub tenant of exactly-once-github.int.test.ts: an organization at the GitHub fake, a
// real-mode connector on it, a plan, and the workers' deps, one of which stops mid-call.

const APP = generateGithubApp();
export const OUTSIDER = "contractor-carl";
const OWNERS = "owners@acme.github";
const KEY_BASE = 7200;

export const repoName = (i: number) => `once-${String(i).padStart(2, "0")}`;

/**
 * A GitHub organization at the fake with `steps` repositories, each with the outside collaborator
 * as a writer and one writable deploy key, a real-mode connector on it (write access on) and an
 * APPROVED plan of one step a repository: `collaborator` removes the collaborator, `deploy_key`
 * deletes the key.
 */
export async function githubTenant(
  db: Db,
  opts: {
    name: string;
    steps: number;
    kind: "collaborator" | "deploy_key";
    closers: Array<() => Promise<unknown>>;
  },
) {
  const { name, steps, kind } = opts;
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
      deployKeys: [
        {
          id: KEY_BASE + i,
          title: `deploy ${i}`,
          key: `ssh-ed25519 AAAAonce${i}`,
          readOnly: false,
          createdAt: "2025-02-01T00:00:00Z",
          lastUsed: null,
        },
      ],
    });
  const fake: TFakeGithub = await startFakeGithub({
    fixture,
    apps: [{ appId: APP.appId, publicKey: APP.publicKey }],
    permissions: {
      88: { metadata: "read", members: "read", administration: "write", organization_administration: "read" },
    },
  });
  opts.closers.push(() => fake.close());
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
    steps: Array.from({ length: steps }, (_, i) => {
      const repo = {
        fileId: `acme/${repoName(i)}`,
        driveId: null,
        name: `acme/${repoName(i)}`,
        ownerEmail: OWNERS,
      };
      const common = { connectorId: connector.id, after: null, reversible: true, irreversibleReason: null };
      return kind === "collaborator"
        ? {
            ...common,
            action: "remove_external_user" as const,
            resource: { kind: "permission" as const, ...repo, permissionId: OUTSIDER },
            before: { type: "user", role: "writer", target: `${OUTSIDER}@users.noreply.github.com` },
            findingIds: [],
            people: [],
          }
        : {
            ...common,
            action: "delete_deploy_key" as const,
            resource: {
              kind: "deploy_key" as const,
              ...repo,
              keyId: String(KEY_BASE + i),
              title: `deploy ${i}`,
            },
            before: { title: `deploy ${i}`, readOnly: false },
            findingIds: [],
            people: [],
          };
    }),
  });
  await db.update(remediations).set({ status: "APPROVED" }).where(eq(remediations.id, id));

  /** How many `method` requests each step's repository received at `path` (default: the collaborator's). */
  const perStep = (
    method: string,
    path = (i: number) => `/repos/acme/${repoName(i)}/collaborators/${OUTSIDER}`,
  ) =>
    Array.from(
      { length: steps },
      (_, i) => fake.requests.filter((r) => r.method === method && r.path === path(i)).length,
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
    db,
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

export type TGithubTenant = Awaited<ReturnType<typeof githubTenant>>;

/** Short enough for a test to outlive a lease, long enough for a step. */
export const LEASE = { ttlMs: 1_500, renewEveryMs: 200, marginMs: 500 };

/** A worker's deps on the tenant (in-process queue, a quick rate bucket, the short lease). */
export const depsOf = (t: TGithubTenant, over: Partial<TRemediationJobDeps> = {}): TRemediationJobDeps => ({
  db: t.db,
  jobs: createInProcessQueue(() => ({})),
  runtime: t.runtime,
  log: createLogger("fatal"),
  rate: createRateLimiter({ perSecond: 1000 }),
  wait: async () => {},
  lease: LEASE,
  ...over,
});

type TStoppable = "deletePermission" | "restorePermission" | "deleteDeployKey" | "restoreDeployKey";

/**
 * A worker whose process stops (its timers too: no lease renewal) right after the real GitHub
 * writer's `call` returned on the middle repository, until `wake`.
 */
export function stoppingWorker(t: TGithubTenant, call: TStoppable) {
  let wake: () => void = () => {};
  const frozen = new Promise<void>((resolve) => (wake = resolve));
  let stopped: () => void = () => {};
  const atStop = new Promise<void>((resolve) => (stopped = resolve));
  const deps = depsOf(t, {
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
      const original = w[call];
      if (!original) throw new Error(`the GitHub writer has no ${call}`);
      return { ...w, [call]: after(original as (...a: [{ id: string }, ...unknown[]]) => Promise<unknown>) };
    },
  });
  return { deps, wake, atStop };
}

/** The plan's steps' statuses, in order. */
export const stepStatuses = async (t: TGithubTenant) =>
  (
    await t.db
      .select({ status: remediationSteps.status })
      .from(remediationSteps)
      .where(eq(remediationSteps.remediationId, t.id))
      .orderBy(asc(remediationSteps.seq))
  ).map((s) => s.status);
