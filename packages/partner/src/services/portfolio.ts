import { and, eq, sql } from "drizzle-orm";
import { organizations, queryRows, type Db, type TSeverity } from "@posture/db";
import { AppError } from "@posture/platform";

export type TPortfolioClient = {
  orgId: string;
  name: string;
  postureScore: number | null;
  openCritical: number;
};
export type TPortfolio = {
  totals: { clients: number; openCritical: number; avgScore: number | null };
  clients: TPortfolioClient[];
};

/**
 * One query for the whole portfolio: each managed organization's latest completed score (an index
 * scan per client) and its open critical findings (an index range per client). Clients without a
 * scan have a null score and do not count in the average.
 */
export async function getPortfolio(db: Db, o: { partnerOrgId: string }): Promise<TPortfolio> {
  const rows = await queryRows<{ id: string; name: string; score: number | null; critical: number }>(
    db,
    sql`SELECT o.id, o.name,
        (SELECT s.posture_score FROM scans s
          WHERE s.org_id = o.id AND s.status = 'COMPLETE' AND s.posture_score IS NOT NULL
          ORDER BY s.completed_at DESC, s.id DESC LIMIT 1) AS score,
        (SELECT count(*)::int FROM findings f
          WHERE f.org_id = o.id AND f.status = 'OPEN' AND f.severity_rank = 4) AS critical
      FROM organizations o WHERE o.managed_by_org_id = ${o.partnerOrgId}
      ORDER BY o.name, o.id`,
  );
  const clients = rows.map((r) => ({
    orgId: r.id,
    name: r.name,
    postureScore: r.score === null ? null : Number(r.score),
    openCritical: Number(r.critical),
  }));
  const scored = clients.flatMap((c) => (c.postureScore === null ? [] : [c.postureScore]));
  return {
    totals: {
      clients: clients.length,
      openCritical: clients.reduce((n, c) => n + c.openCritical, 0),
      avgScore: scored.length === 0 ? null : Math.round(scored.reduce((a, b) => a + b, 0) / scored.length),
    },
    clients,
  };
}

export type TClientReport = {
  orgId: string;
  name: string;
  postureScore: number | null;
  findings: Record<TSeverity, number>;
  trend: Array<{ score: number; at: string }>;
  sources: Array<{ connectorId: string; name: string; healthStatus: string }>;
};

export const CLIENT_TREND_DAYS = 30;

/** One managed organization; another partner's client (or any other id) is a 404. */
export async function getClientReport(
  db: Db,
  o: { partnerOrgId: string; orgId: string },
): Promise<TClientReport> {
  const [org] = await db
    .select({ id: organizations.id, name: organizations.name })
    .from(organizations)
    .where(and(eq(organizations.id, o.orgId), eq(organizations.managedByOrgId, o.partnerOrgId)));
  if (!org) throw new AppError("not_found", "Client organization not found");
  const from = new Date(Date.now() - CLIENT_TREND_DAYS * 86_400_000);
  const [trend, counts, sources] = await Promise.all([
    queryRows<{ day: string; score: number }>(
      db,
      sql`SELECT DISTINCT ON (date_trunc('day', completed_at AT TIME ZONE 'UTC'))
          to_char(completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, posture_score AS score
        FROM scans WHERE org_id = ${org.id} AND status = 'COMPLETE' AND posture_score IS NOT NULL AND completed_at >= ${from}
        ORDER BY date_trunc('day', completed_at AT TIME ZONE 'UTC'), completed_at DESC, id DESC`,
    ),
    queryRows<{ severity: TSeverity; n: number }>(
      db,
      sql`SELECT severity, count(*)::int AS n FROM findings WHERE org_id = ${org.id} AND status = 'OPEN' GROUP BY severity`,
    ),
    queryRows<{ id: string; display_name: string; health_status: string }>(
      db,
      sql`SELECT id, display_name, health_status FROM connectors WHERE org_id = ${org.id} ORDER BY created_at, id`,
    ),
  ]);
  const findings: Record<TSeverity, number> = { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 };
  for (const c of counts) findings[c.severity] = Number(c.n);
  const [latest] = await queryRows<{ score: number }>(
    db,
    sql`SELECT posture_score AS score FROM scans WHERE org_id = ${org.id} AND status = 'COMPLETE' AND posture_score IS NOT NULL
      ORDER BY completed_at DESC, id DESC LIMIT 1`,
  );
  return {
    orgId: org.id,
    name: org.name,
    postureScore: latest ? Number(latest.score) : null,
    findings,
    trend: trend.map((t) => ({ score: Number(t.score), at: t.day })),
    sources: sources.map((s) => ({ connectorId: s.id, name: s.display_name, healthStatus: s.health_status })),
  };
}
