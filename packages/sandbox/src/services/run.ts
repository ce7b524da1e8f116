import { eq } from "drizzle-orm";
import { connectors, demoOverlays, type Db } from "@posture/db";
import { sweepClientHealth } from "@posture/partner";
import type { TScanResult } from "@posture/posture";
import type { TJobQueue, TLogger, TRuntime } from "@posture/platform";
import { finishRun, runIsOpen } from "./runs";
import type { TResetJob, TScenarioJob } from "./scenarios";
import { hasBaseline, scanConnector, type TScanRecord } from "./scans";
import { changeTenant } from "./tenant-changes";

export type TSandboxDeps = { db: Db; jobs: TJobQueue; runtime: TRuntime; log: TLogger };

const scanRecord = (r: TScanResult, connectorId: string): TScanRecord => ({
  connectorId,
  scanId: r.scanId,
  status: r.status,
  kind: r.kind,
  findingsNew: r.findingsNew,
  findingsResolved: r.findingsResolved,
});

async function connectorRow(db: Db, id: string) {
  const [row] = await db.select().from(connectors).where(eq(connectors.id, id));
  if (!row) throw new Error(`sandbox connector ${id} is gone`);
  return row;
}

/**
 * The scenario job: the tenant's first scan if it never had one (so the scenario's own scan is an
 * incremental one that reads the change, as a real change feed would report it), the change in the
 * overlay, then that scan — whose findings, score and events (finding.new, alert.grouped,
 * policy.violation, prevention.triggered and the remediation it plans…) are the pipeline's own,
 * and whose activity job feeds behaviour analytics (anomaly.detected). For `client_unhealthy`
 * the partner's client-health check runs before and after, and announces the client.unhealthy.
 */
export async function runScenario(deps: TSandboxDeps, job: TScenarioJob): Promise<{ status: string }> {
  if (!(await runIsOpen(deps.db, job.runId))) return { status: "FAILED" };
  const scansDone: TScanRecord[] = [];
  const record = (r: TScanResult, connectorId: string) => scansDone.push(scanRecord(r, connectorId));
  try {
    const connector = await connectorRow(deps.db, job.connectorId);
    if (!(await hasBaseline(deps.db, connector.id)))
      record(await scanConnector(deps, connector, job.actor), connector.id);
    if (job.kind === "client_unhealthy") await sweepClientHealth(deps);
    const change = await changeTenant(deps.db, deps.runtime, connector, job.kind, job.runId);
    record(await scanConnector(deps, await connectorRow(deps.db, connector.id), job.actor), connector.id);
    if (job.kind === "client_unhealthy") await sweepClientHealth(deps);
    await finishRun(deps.db, job, { status: "COMPLETE", change, scans: scansDone });
    return { status: "COMPLETE" };
  } catch (err) {
    const error = (err instanceof Error ? err.message : String(err)).slice(0, 500);
    deps.log.warn({ runId: job.runId, kind: job.kind, err: error }, "sandbox scenario failed");
    await finishRun(deps.db, job, { status: "FAILED", scans: scansDone, error });
    return { status: "FAILED" };
  }
}

/**
 * The reset job: each demo source's overlay cleared (the generated tenant again: scenarios'
 * changes, a withdrawn access and remediations' writes all go), then a full scan — the change feed
 * does not report a deleted entry — that resolves what the scenarios opened. A partner's client
 * health is checked after, so the recovered state is the one the next check compares with.
 */
export async function runReset(deps: TSandboxDeps, job: TResetJob): Promise<{ status: string }> {
  if (!(await runIsOpen(deps.db, job.runId))) return { status: "FAILED" };
  const scansDone: TScanRecord[] = [];
  try {
    for (const id of job.connectorIds) {
      await deps.db.delete(demoOverlays).where(eq(demoOverlays.connectorId, id));
      const connector = await connectorRow(deps.db, id);
      scansDone.push(scanRecord(await scanConnector(deps, connector, job.actor, { full: true }), id));
    }
    await sweepClientHealth(deps);
    await finishRun(deps.db, job, { status: "COMPLETE", scans: scansDone });
    return { status: "COMPLETE" };
  } catch (err) {
    const error = (err instanceof Error ? err.message : String(err)).slice(0, 500);
    deps.log.warn({ runId: job.runId, err: error }, "sandbox reset failed");
    await finishRun(deps.db, job, { status: "FAILED", scans: scansDone, error });
    return { status: "FAILED" };
  }
}
