import { and, desc, eq, lt, or } from "drizzle-orm";
import { complianceRuns, type Db } from "@posture/db";
import { firstOr404, iso } from "@posture/platform";
import type { TControlStatus } from "../engine/evaluate";
import type { TEvidenceReport } from "./reports";
import type { TTenantCheckEvidence } from "../engine/tenant-checks";

type TStoredControl = {
  id: string;
  title: string;
  status: TControlStatus;
  reason: string;
  findingIds: string[];
  tenantChecks: TTenantCheckEvidence[];
};

export type TStoredRun = TEvidenceReport & {
  createdAt: string;
  /** The organization's previous run of the same framework, and what changed since. */
  previousRunId: string | null;
  changes: Array<{ id: string; from: TControlStatus; to: TControlStatus }>;
};

const controlsOf = (raw: Array<Record<string, unknown>>): TStoredControl[] =>
  raw.map((c) => ({
    id: String(c.id),
    title: String(c.title),
    status: c.status as TControlStatus,
    reason: String(c.reason),
    findingIds: Array.isArray(c.findingIds) ? c.findingIds.map(String) : [],
    // Runs stored before tenant checks existed carry none.
    tenantChecks: Array.isArray(c.tenantChecks) ? (c.tenantChecks as TTenantCheckEvidence[]) : [],
  }));

/** GET /api/compliance/reports/{runId}: a stored run, compared with the one before it. */
export async function getEvidenceRun(db: Db, o: { orgId: string; runId: string }): Promise<TStoredRun> {
  const run = firstOr404(
    await db
      .select()
      .from(complianceRuns)
      .where(and(eq(complianceRuns.id, o.runId), eq(complianceRuns.orgId, o.orgId))),
    "Compliance report",
  );
  const [previous] = await db
    .select({ id: complianceRuns.id, controls: complianceRuns.controls })
    .from(complianceRuns)
    .where(
      and(
        eq(complianceRuns.orgId, o.orgId),
        eq(complianceRuns.framework, run.framework),
        or(
          lt(complianceRuns.createdAt, run.createdAt),
          and(eq(complianceRuns.createdAt, run.createdAt), lt(complianceRuns.id, run.id)),
        ),
      ),
    )
    .orderBy(desc(complianceRuns.createdAt), desc(complianceRuns.id))
    .limit(1);
  const controls = controlsOf(run.controls);
  const before = new Map(controlsOf(previous?.controls ?? []).map((c) => [c.id, c.status]));
  const changes = controls.flatMap((c) => {
    const from = before.get(c.id);
    return from && from !== c.status ? [{ id: c.id, from, to: c.status }] : [];
  });
  return {
    runId: run.id,
    createdAt: iso(run.createdAt),
    previousRunId: previous?.id ?? null,
    changes,
    report: {
      framework: run.framework,
      periodDays: run.periodDays,
      satisfied: run.satisfied,
      partial: run.partial,
      gap: run.gap,
      controls,
    },
  };
}
