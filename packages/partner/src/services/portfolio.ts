import { and, eq, sql } from "drizzle-orm";
import {
  organizations,
  orgFindingCounts,
  orgPostureSummary,
  partnerAccess,
  partnerDrift,
  partnerGroupMembers,
  queryRows,
  type Db,
  type TSeverity,
} from "@posture/db";
import { AppError, managedBy } from "@posture/platform";
import { requireGroup } from "./groups";

/**
 * `postureScore` is the spec's integer: 0 until the client's first completed scan, with
 * `scanned: false` saying so. Unscanned clients stay listed (the portfolio is the managed-
 * organization list) but are left out of `avgScore` and counted in `totals.unscanned`.
 */
export type TPortfolioClient = {
  orgId: string;
  name: string;
  postureScore: number;
  scanned: boolean;
  openCritical: number;
  /** The client's open drift from the partner's standards (all of them, and the critical part). */
  drift: { open: number; critical: number };
  /**
   * The client's open internal-exposure findings (organization-wide links, everyone grants, broad
   * group grants: what Copilot and Gemini can surface to anyone inside), and the critical part.
   */
  internalExposure: { open: number; critical: number };
};
export type TPortfolio = {
  totals: {
    clients: number;
    unscanned: number;
    openCritical: number;
    avgScore: number;
    driftOpen: number;
    driftCritical: number;
    internalExposureOpen: number;
    internalExposureCritical: number;
  };
  clients: TPortfolioClient[];
};

// One index range over the partner's clients, each joined to its summary row (kept by the
// triggers of migration 0012): no per-client work at read time. A client without a row has
// neither a completed scan nor open findings. Open drift is counted per client in one grouped pass
// over partner_drift's (partner, client) range, and its open internal-exposure findings from
// org_finding_counts (migration 0023, a primary-key range of at most four rows); a group narrows the range to its members (primary
// key probe). Plain rows, not the ORM's: mapping 500 rows field by field was the largest share of
// the request's CPU in a profile (docs/benchmarks.md, "Partner portfolio").
type TPortfolioRow = {
  id: string;
  name: string;
  score: number | null;
  critical: number | null;
  drift_open: number | null;
  drift_critical: number | null;
  internal_open: number | null;
  internal_critical: number | null;
};

const portfolioRows = (db: Db, partnerOrgId: string, groupId: string | null) =>
  queryRows<TPortfolioRow>(
    db,
    sql`SELECT o.id, o.name, s.posture_score AS score, s.open_critical AS critical,
        d.open AS drift_open, d.critical AS drift_critical,
        ie.open AS internal_open, ie.critical AS internal_critical
      FROM ${organizations} o
      JOIN ${partnerAccess} a ON a.client_org_id = o.id AND a.withdrawn_at IS NULL
      LEFT JOIN ${orgPostureSummary} s ON s.org_id = o.id
      LEFT JOIN (
        SELECT client_org_id, count(*)::int AS open,
          (count(*) FILTER (WHERE severity = 'CRITICAL'))::int AS critical
        FROM ${partnerDrift} WHERE partner_org_id = ${partnerOrgId} AND resolved_at IS NULL
        GROUP BY client_org_id
      ) d ON d.client_org_id = o.id
      LEFT JOIN LATERAL (
        SELECT coalesce(sum(c.open), 0)::int AS open,
          coalesce(sum(c.open) FILTER (WHERE c.severity = 'CRITICAL'), 0)::int AS critical
        FROM ${orgFindingCounts} c WHERE c.org_id = o.id AND c.category = 'internal_exposure'
      ) ie ON true
      WHERE o.managed_by_org_id = ${partnerOrgId}
        AND (${groupId}::text IS NULL OR EXISTS (SELECT 1 FROM ${partnerGroupMembers} m
          WHERE m.group_id = ${groupId}::text AND m.client_org_id = o.id))
      ORDER BY o.name, o.id`,
  );

/**
 * Each managed organization's latest completed score and its open critical findings. Clients
 * without a completed scan have `scanned: false` and score 0, and do not count in the average
 * (0 while no client is scanned).
 */
export async function getPortfolio(
  db: Db,
  o: { partnerOrgId: string; groupId?: string },
): Promise<TPortfolio> {
  if (o.groupId) await requireGroup(db, o.partnerOrgId, o.groupId);
  const rows = await portfolioRows(db, o.partnerOrgId, o.groupId ?? null);
  const clients = rows.map((r) => ({
    orgId: r.id,
    name: r.name,
    postureScore: r.score ?? 0,
    scanned: r.score !== null,
    openCritical: r.critical ?? 0,
    drift: { open: r.drift_open ?? 0, critical: r.drift_critical ?? 0 },
    internalExposure: { open: r.internal_open ?? 0, critical: r.internal_critical ?? 0 },
  }));
  const scored = clients.filter((c) => c.scanned).map((c) => c.postureScore);
  return {
    totals: {
      clients: clients.length,
      unscanned: clients.length - scored.length,
      openCritical: clients.reduce((n, c) => n + c.openCritical, 0),
      avgScore: scored.length === 0 ? 0 : Math.round(scored.reduce((a, b) => a + b, 0) / scored.length),
      driftOpen: clients.reduce((n, c) => n + c.drift.open, 0),
      driftCritical: clients.reduce((n, c) => n + c.drift.critical, 0),
      internalExposureOpen: clients.reduce((n, c) => n + c.internalExposure.open, 0),
      internalExposureCritical: clients.reduce((n, c) => n + c.internalExposure.critical, 0),
    },
    clients,
  };
}

export type TClientReport = {
  orgId: string;
  name: string;
  /** 0 before the first completed scan, with `scanned: false` (as in the portfolio). */
  postureScore: number;
  scanned: boolean;
  findings: Record<TSeverity, number>;
  trend: Array<{ score: number; at: string }>;
  sources: Array<{ connectorId: string; name: string; healthStatus: string }>;
};

export const CLIENT_TREND_DAYS = 30;

/**
 * One managed organization; another partner's client (or any other id) is a 404. The score and
 * the open findings per severity come from its summary row (the same figures the portfolio shows).
 */
export async function getClientReport(
  db: Db,
  o: { partnerOrgId: string; orgId: string },
): Promise<TClientReport> {
  const [org] = await db
    .select({
      id: organizations.id,
      name: organizations.name,
      score: orgPostureSummary.postureScore,
      critical: orgPostureSummary.openCritical,
      high: orgPostureSummary.openHigh,
      medium: orgPostureSummary.openMedium,
      low: orgPostureSummary.openLow,
    })
    .from(organizations)
    .innerJoin(partnerAccess, eq(partnerAccess.clientOrgId, organizations.id))
    .leftJoin(orgPostureSummary, eq(orgPostureSummary.orgId, organizations.id))
    .where(and(eq(organizations.id, o.orgId), managedBy(o.partnerOrgId)));
  if (!org) throw new AppError("not_found", "Client organization not found");
  const from = new Date(Date.now() - CLIENT_TREND_DAYS * 86_400_000);
  const [trend, sources] = await Promise.all([
    queryRows<{ day: string; score: number }>(
      db,
      sql`SELECT DISTINCT ON (date_trunc('day', completed_at AT TIME ZONE 'UTC'))
          to_char(completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, posture_score AS score
        FROM scans WHERE org_id = ${org.id} AND status = 'COMPLETE' AND posture_score IS NOT NULL AND completed_at >= ${from}
        ORDER BY date_trunc('day', completed_at AT TIME ZONE 'UTC'), completed_at DESC, id DESC`,
    ),
    queryRows<{ id: string; display_name: string; health_status: string }>(
      db,
      sql`SELECT id, display_name, health_status FROM connectors WHERE org_id = ${org.id} ORDER BY created_at, id`,
    ),
  ]);
  return {
    orgId: org.id,
    name: org.name,
    postureScore: org.score ?? 0,
    scanned: org.score !== null,
    findings: {
      CRITICAL: org.critical ?? 0,
      HIGH: org.high ?? 0,
      MEDIUM: org.medium ?? 0,
      LOW: org.low ?? 0,
    },
    trend: trend.map((t) => ({ score: Number(t.score), at: t.day })),
    sources: sources.map((s) => ({ connectorId: s.id, name: s.display_name, healthStatus: s.health_status })),
  };
}
