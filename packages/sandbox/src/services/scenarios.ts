import { randomBytes } from "node:crypto";
import { and, asc, eq, inArray } from "drizzle-orm";
import { auditLog, connectors, organizations, type Db, type TPlanId } from "@posture/db";
import { AppError, audit, iso, type TActor, type TJobQueue } from "@posture/platform";
import { createConnector } from "@posture/posture";
import { assertSandbox, createSandboxOrganization } from "./organizations";
import type { TScanRecord } from "./scans";
import type { TScenarioKind } from "./tenant-changes";

export const SANDBOX_SCENARIO_JOB = "sandbox.scenario";
export const SANDBOX_RESET_JOB = "sandbox.reset";

/** What the scenario job is handed: everything was decided by the request. */
export type TScenarioJob = {
  runId: string;
  /** The sandbox that asked (its audit trail records the run). */
  orgId: string;
  /** The organization whose tenant changes: the sandbox itself, or a partner's sandbox client. */
  targetOrgId: string;
  connectorId: string;
  kind: TScenarioKind;
  actor: TActor;
};

export type TResetJob = { runId: string; orgId: string; connectorIds: string[]; actor: TActor };

type TScope = { orgId: string; actor: TActor };

const newRunId = () => `sbr_${randomBytes(10).toString("hex")}`;

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

/** The organization's first demo source, or a new one (connected now, scanned by the job first). */
async function demoConnectorOf(
  db: Db,
  scope: TScope,
  target: { id: string; plan: TPlanId },
  encryptionKey: Buffer,
) {
  const [existing] = await db
    .select({ id: connectors.id })
    .from(connectors)
    .where(and(eq(connectors.orgId, target.id), eq(connectors.mode, "demo")))
    .orderBy(asc(connectors.createdAt), asc(connectors.id))
    .limit(1);
  if (existing) return existing.id;
  const created = await createConnector(
    db,
    {
      orgId: target.id,
      actor: scope.actor,
      plan: target.plan,
      type: "google_workspace",
      displayName: "Sandbox tenant",
      mode: "demo",
    },
    { encryptionKey },
  );
  return created.id;
}

/**
 * POST /api/sandbox/scenarios: decides what changes where (connecting a demo source on first use),
 * records the run in the audit trail and queues it; the job changes the tenant and scans.
 */
export async function startScenario(
  db: Db,
  jobs: TJobQueue,
  input: TScope & { kind: TScenarioKind },
  deps: { encryptionKey: Buffer },
) {
  const org = await assertSandbox(db, input.orgId);
  const target = await targetOf(db, org, input.kind);
  const connectorId = await demoConnectorOf(db, input, target, deps.encryptionKey);
  const runId = newRunId();
  const job: TScenarioJob = {
    runId,
    orgId: org.id,
    targetOrgId: target.id,
    connectorId,
    kind: input.kind,
    actor: input.actor,
  };
  const createdAt = new Date();
  await db.transaction((tx) =>
    audit(tx, input, {
      action: "SANDBOX_SCENARIO_STARTED",
      target: runId,
      metadata: { kind: input.kind, targetOrgId: target.id, connectorId },
    }),
  );
  await jobs.enqueue(SANDBOX_SCENARIO_JOB, job, { jobId: runId });
  return {
    id: runId,
    kind: input.kind,
    status: "QUEUED" as const,
    orgId: target.id,
    connectorId,
    createdAt: iso(createdAt),
  };
}

/**
 * POST /api/sandbox/reset: every demo source of the sandbox (and, for a partner, of its sandbox
 * clients) back to its generated tenant — the overlay cleared, scenarios' and remediations' changes
 * alike — then read in full again, so findings the scenarios opened are resolved.
 */
export async function startReset(db: Db, jobs: TJobQueue, input: TScope) {
  const org = await assertSandbox(db, input.orgId);
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
  const runId = newRunId();
  const connectorIds = rows.map((r) => r.id);
  await db.transaction((tx) =>
    audit(tx, input, { action: "SANDBOX_RESET", target: runId, metadata: { connectorIds } }),
  );
  const job: TResetJob = { runId, orgId: org.id, connectorIds, actor: input.actor };
  await jobs.enqueue(SANDBOX_RESET_JOB, job, { jobId: runId });
  return {
    id: runId,
    kind: "reset" as const,
    status: "QUEUED" as const,
    connectorIds,
    createdAt: iso(new Date()),
  };
}

/**
 * A run as its audit rows tell it (the run has no table of its own: the audit trail is its record):
 * QUEUED until the job's SANDBOX_SCENARIO_FINISHED row, then COMPLETE or FAILED with what changed
 * and the scans that read it.
 */
export async function getRun(db: Db, input: { orgId: string; id: string }) {
  await assertSandbox(db, input.orgId);
  const rows = await db
    .select({ action: auditLog.action, metadata: auditLog.metadata, createdAt: auditLog.createdAt })
    .from(auditLog)
    .where(and(eq(auditLog.orgId, input.orgId), eq(auditLog.target, input.id)))
    .orderBy(asc(auditLog.seq));
  const started = rows.find((r) => r.action === "SANDBOX_SCENARIO_STARTED" || r.action === "SANDBOX_RESET");
  if (!started) throw new AppError("not_found", "Sandbox run not found");
  const finished = rows.find((r) => r.action === "SANDBOX_SCENARIO_FINISHED");
  const meta = (finished?.metadata ?? {}) as Record<string, unknown>;
  const status = finished ? (meta.status === "COMPLETE" ? "COMPLETE" : "FAILED") : "QUEUED";
  return {
    id: input.id,
    kind: started.action === "SANDBOX_RESET" ? "reset" : String(started.metadata.kind ?? ""),
    status: status as "QUEUED" | "COMPLETE" | "FAILED",
    createdAt: iso(started.createdAt),
    finishedAt: iso(finished?.createdAt ?? null),
    change: (meta.change as Record<string, unknown> | undefined) ?? null,
    scans: (meta.scans as TScanRecord[] | undefined) ?? [],
    error: typeof meta.error === "string" ? meta.error : null,
  };
}
