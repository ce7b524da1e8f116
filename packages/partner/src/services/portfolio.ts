import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import {
  organizations,
  orgPostureSummary,
  partnerAccess,
  partnerDrift,
  partnerGroupMembers,
  prepared,
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
};
export type TPortfolio = {
  totals: {
    clients: number;
    unscanned: number;
    openCritical: number;
    avgScore: number;
    driftOpen: number;
    driftCritical: number;
  };
  clients: TPortfolioClient[];
};

// One index range over the partner's clients, each joined to its summary row (kept by the
// triggers of migration 0012): no per-client work at read time. A client without a row has
// neither a completed scan nor open findings. Open drift is counted per client by an index probe
// of partner_drift (partner, client); a group narrows the range to its members (primary key
// probe). `groupId` null: every client.
const partnerOrgId = sql.placeholder("partnerOrgId");
const groupId = sql.placeholder("groupId");
const openDrift = (filter: SQL) =>
  sql<number>`(SELECT count(*)::int FROM ${partnerDrift} d WHERE d.partner_org_id = ${partnerOrgId}
    AND d.client_org_id = ${organizations.id} AND d.resolved_at IS NULL ${filter})`;
const portfolioQuery = (db: Db) =>
  prepared(db, "get_portfolio_v2", (d) =>
    d
      .select({
        id: organizations.id,
        name: organizations.name,
        score: orgPostureSummary.postureScore,
        critical: orgPostureSummary.openCritical,
        driftOpen: openDrift(sql``),
        driftCritical: openDrift(sql`AND d.severity = 'CRITICAL'`),
      })
      .from(organizations)
      .innerJoin(partnerAccess, eq(partnerAccess.clientOrgId, organizations.id))
      .leftJoin(orgPostureSummary, eq(orgPostureSummary.orgId, organizations.id))
      .where(
        and(
          eq(organizations.managedByOrgId, partnerOrgId),
          isNull(partnerAccess.withdrawnAt),
          sql`(${groupId}::text IS NULL OR EXISTS (SELECT 1 FROM ${partnerGroupMembers} m
            WHERE m.group_id = ${groupId}::text AND m.client_org_id = ${organizations.id}))`,
        ),
      )
      .orderBy(organizations.name, organizations.id)
      .prepare("get_portfolio_v2"),
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
  const rows = await portfolioQuery(db).execute({ partnerOrgId: o.partnerOrgId, groupId: o.groupId ?? null });
  const clients = rows.map((r) => ({
    orgId: r.id,
    name: r.name,
    postureScore: r.score ?? 0,
    scanned: r.score !== null,
    openCritical: r.critical ?? 0,
    drift: { open: Number(r.driftOpen), critical: Number(r.driftCritical) },
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
