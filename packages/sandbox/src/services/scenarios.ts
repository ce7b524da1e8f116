import { and, asc, eq, inArray, ne } from "drizzle-orm";
import { connectors, organizations, type Db, type TPlanId } from "@posture/db";
import { AppError, iso, type TActor, type TJobQueue, type TScope } from "@posture/platform";
import { createConnector } from "@posture/posture";
import { assertSandbox, createSandboxOrganization } from "./organizations";
import { enqueueRun, openRun, readRun } from "./runs";
import { isGithubKind, type TScenarioKind } from "./tenant-changes";

export const SANDBOX_SCENARIO_JOB = "sandbox.scenario";
export const SANDBOX_RESET_JOB = "sandbox.reset";

/** What the scenario job is handed: everything was decided by the request. */
export type TScenarioJob = {
  /** The run's row (sandbox_scenario_runs), which the job closes. */
  runId: string;
  /** The sandbox that asked (the run is its own). */
  orgId: string;
  /** The organization whose tenant changes: the sandbox itself, or a partner's sandbox client. */
  targetOrgId: string;
  connectorId: string;
  kind: TScenarioKind;
  actor: TActor;
};

export type TResetJob = { runId: string; orgId: string; connectorIds: string[]; actor: TActor };

/**
 * The organization a scenario changes. `client_unhealthy` is about a partner's client: in a
 * sandbox partner, its first sandbox client (made on first use, "<partner> client"); in a sandbox
 * client managed by a partner, itself. Every other kind changes the sandbox itself.
 */
async function targetOf(
  db: Db,
  org: Awaited<ReturnType<typeof assertSandbox>>,
  kind: TScenarioKind,
): Promise<{ id: string; plan: TPlanId }> {
  if (kind !== "client_unhealthy") return { id: org.id, plan: org.plan };
  if (org.isPartner) {
    const [client] = await db
      .select({ id: organizations.id, plan: organizations.plan })
      .from(organizations)
      .where(and(eq(organizations.managedByOrgId, org.id), eq(organizations.isSandbox, true)))
      .orderBy(asc(organizations.createdAt), asc(organizations.id))
      .limit(1);
    if (client) return client;
    const made = await createSandboxOrganization(db, {
      name: `${org.name} client`,
      plan: "enterprise",
      managedByOrgId: org.id,
    });
    return { id: made.id, plan: made.plan };
  }
  if (org.managedByOrgId) return { id: org.id, plan: org.plan };
  throw new AppError(
    "conflict",
    "client_unhealthy needs a sandbox partner (POST /api/sandbox {partner: true}) or a sandbox client managed by a partner",
  );
}

/**
 * The demo source a scenario changes: for a GitHub kind the organization's first demo GitHub
 * organization, for the others its first demo Google Workspace or Microsoft 365 tenant; made
 * (connected now, scanned by the job first) when there is none.
 */
async function demoConnectorOf(
  db: Db,
  scope: TScope,
  target: { id: string; plan: TPlanId },
  kind: TScenarioKind,
  encryptionKey: Buffer,
) {
  const github = isGithubKind(kind);
  const [existing] = await db
    .select({ id: connectors.id })
    .from(connectors)
    .where(
      and(
        eq(connectors.orgId, target.id),
        eq(connectors.mode, "demo"),
        github ? eq(connectors.type, "github") : ne(connectors.type, "github"),
      ),
    )
    .orderBy(asc(connectors.createdAt), asc(connectors.id))
    .limit(1);
  if (existing) return existing.id;
  const created = await createConnector(
    db,
    {
      orgId: target.id,
      actor: scope.actor,
      plan: target.plan,
      type: github ? "github" : "google_workspace",
      displayName: github ? "Sandbox GitHub organization" : "Sandbox tenant",
      mode: "demo",
    },
    { encryptionKey },
  );
  return created.id;
}

/**
 * POST /api/sandbox/scenarios: opens the run (one at a time per sandbox: 409 `conflict` with the
 * running one's id), deciding under its lock what changes where (connecting a demo source on first
 * use), and queues it; the job changes the tenant and scans.
 */
export async function startScenario(
  db: Db,
  jobs: TJobQueue,
  input: TScope & { kind: TScenarioKind },
  deps: { encryptionKey: Buffer },
) {
  const org = await assertSandbox(db, { orgId: input.orgId });
  const run = await openRun(db, input, {
    kind: input.kind,
    audit: "SANDBOX_SCENARIO_STARTED",
    prepare: async (tx) => {
      const target = await targetOf(tx, org, input.kind);
      const connectorId = await demoConnectorOf(tx, input, target, input.kind, deps.encryptionKey);
      return { targetOrgId: target.id, connectorId };
    },
  });
  const { targetOrgId, connectorId } = run.metadata;
  const job: TScenarioJob = {
    runId: run.id,
    orgId: org.id,
    targetOrgId,
    connectorId,
    kind: input.kind,
    actor: input.actor,
  };
  await enqueueRun({ db, jobs }, SANDBOX_SCENARIO_JOB, job);
  return {
    id: run.id,
    kind: input.kind,
    status: "QUEUED" as const,
    orgId: targetOrgId,
    connectorId,
    createdAt: iso(run.createdAt),
  };
}

/**
 * POST /api/sandbox/reset: every demo source of the sandbox (and, for a partner, of its sandbox
 * clients) back to its generated tenant — the overlay cleared, scenarios' and remediations' changes
 * alike — then read in full again, so findings the scenarios opened are resolved. A run like a
 * scenario's: not while another runs.
 */
export async function startReset(db: Db, jobs: TJobQueue, input: TScope) {
  const org = await assertSandbox(db, { orgId: input.orgId });
  const run = await openRun(db, input, {
    kind: "reset",
    audit: "SANDBOX_RESET",
    prepare: async (tx) => ({ connectorIds: await resetSources(tx, org) }),
  });
  const { connectorIds } = run.metadata;
  const job: TResetJob = { runId: run.id, orgId: org.id, connectorIds, actor: input.actor };
  await enqueueRun({ db, jobs }, SANDBOX_RESET_JOB, job);
  return {
    id: run.id,
    kind: "reset" as const,
    status: "QUEUED" as const,
    connectorIds,
    createdAt: iso(run.createdAt),
  };
}

/** The demo sources a reset reads: the sandbox's, and a sandbox partner's clients'. */
async function resetSources(db: Db, org: { id: string; isPartner: boolean }): Promise<string[]> {
  const orgIds = [org.id];
  if (org.isPartner) {
    const clients = await db
      .select({ id: organizations.id })
      .from(organizations)
      .where(and(eq(organizations.managedByOrgId, org.id), eq(organizations.isSandbox, true)));
    orgIds.push(...clients.map((c) => c.id));
  }
  const rows = await db
    .select({ id: connectors.id })
    .from(connectors)
    .where(and(inArray(connectors.orgId, orgIds), eq(connectors.mode, "demo")))
    .orderBy(asc(connectors.createdAt), asc(connectors.id));
  return rows.map((r) => r.id);
}

/** GET /api/sandbox/scenarios/{id}: a run of this sandbox, from its row. */
export async function getRun(db: Db, input: { orgId: string; id: string }) {
  await assertSandbox(db, { orgId: input.orgId });
  return readRun(db, input);
}
