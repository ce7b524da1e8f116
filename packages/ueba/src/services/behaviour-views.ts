import { and, desc, eq, gte, sql, type SQL } from "drizzle-orm";
import {
  anomalies,
  arrayLiteral,
  behaviorBaselines,
  queryRows,
  type Db,
  type TAnomalyType,
  type TSeverity,
} from "@posture/db";
import { firstOr404, iso } from "@posture/platform";
import { baselineAt, LEARN_WEEKS, RULES } from "./model";
import { HORIZON_WEEKS, loadSeries } from "./refresh";
import { robust, type TRobust } from "./robust";
import { labelOfKey, recentWeeks, WEEK_MS } from "./weeks";

export type TAnomalyView = {
  id: string;
  principal: string;
  type: TAnomalyType;
  severity: TSeverity;
  confidence: number;
  at: string;
  window: string;
  observed: number;
  expected: number;
  periodsLearned: number;
};

/** Newest first (ties by id), optionally one type, one severity, since a time. */
export async function listAnomalies(
  db: Db,
  q: { orgId: string; type?: TAnomalyType; severity?: TSeverity; since?: Date; limit: number },
): Promise<TAnomalyView[]> {
  const where: SQL[] = [eq(anomalies.orgId, q.orgId)];
  if (q.type) where.push(eq(anomalies.type, q.type));
  if (q.severity) where.push(eq(anomalies.severity, q.severity));
  if (q.since) where.push(gte(anomalies.at, q.since));
  const rows = await db
    .select()
    .from(anomalies)
    .where(and(...where))
    .orderBy(desc(anomalies.at), desc(anomalies.id))
    .limit(q.limit);
  return rows.map(toAnomalyView);
}

const toAnomalyView = (r: typeof anomalies.$inferSelect): TAnomalyView => ({
  id: r.id,
  principal: r.principal,
  type: r.type,
  severity: r.severity,
  confidence: r.confidence,
  at: iso(r.at),
  window: r.window,
  observed: r.observed,
  expected: r.expected,
  periodsLearned: r.periodsLearned,
});

/** One anomaly (the link of anomaly.detected); another organization's id is a 404. */
export async function getAnomaly(db: Db, q: { orgId: string; id: string }): Promise<TAnomalyView> {
  const row = firstOr404(
    await db
      .select()
      .from(anomalies)
      .where(and(eq(anomalies.orgId, q.orgId), eq(anomalies.id, q.id)))
      .limit(1),
    "Anomaly",
  );
  return toAnomalyView(row);
}

/**
 * Users × ISO weeks, oldest week first; a cell is the week's risk (0–100: deviation from the
 * user's baseline, or the severity of an anomaly in it). Principals with an anomaly in the last
 * twelve weeks come first (strongest severity, then heat), then everyone else by heat (the sum of
 * their last twelve weeks' cells): sub-threshold deviations summed over many weeks never outrank a
 * detected anomaly. One statement: the ranking is two index reads (anomalies are few), the cells
 * one array per user.
 */
export async function heatmap(db: Db, q: { orgId: string; weeks: number; limit: number; now?: Date }) {
  const now = q.now ?? new Date();
  const periods = recentWeeks(now, q.weeks).map(labelOfKey);
  const since = new Date(now.getTime() - LEARN_WEEKS * WEEK_MS);
  const rows = await queryRows<{ principal: string; cells: number[] }>(
    db,
    sql`WITH flagged AS (
        SELECT principal, max(severity_rank) AS worst FROM anomalies
        WHERE org_id = ${q.orgId} AND at >= ${since.toISOString()}::timestamptz GROUP BY principal),
      ranked AS (
        (SELECT f.principal, f.worst, coalesce(b.risk_total, 0) AS heat FROM flagged f
          LEFT JOIN behavior_baselines b ON b.org_id = ${q.orgId} AND b.principal = f.principal)
        UNION ALL
        (SELECT b.principal, 0, b.risk_total FROM behavior_baselines b
          WHERE b.org_id = ${q.orgId} AND b.principal NOT IN (SELECT principal FROM flagged)
          ORDER BY b.risk_total DESC, b.principal LIMIT ${q.limit}))
      SELECT r.principal,
        (SELECT array_agg(coalesce(w.risk, 0) ORDER BY p.i)
          FROM unnest(${arrayLiteral(periods)}::text[]) WITH ORDINALITY AS p(week, i)
          LEFT JOIN behavior_weekly_risk w ON w.org_id = ${q.orgId} AND w.principal = r.principal AND w.week = p.week
        ) AS cells
      FROM ranked r ORDER BY r.worst DESC, r.heat DESC, r.principal LIMIT ${q.limit}`,
  );
  return { users: rows.map((r) => r.principal), periods, cells: rows.map((r) => r.cells.map(Number)) };
}

const round = (n: number) => Math.round(n * 100) / 100;

/** Path parameters arrive as sent: `alice%40acme.com` and `alice@acme.com` name the same principal. */
function principalOf(raw: string): string {
  try {
    return decodeURIComponent(raw).trim().toLowerCase();
  } catch {
    return raw.trim().toLowerCase();
  }
}

/**
 * The deletions baseline as the refresh at `computedAt` learned it. behavior_baselines has no
 * columns for it (they would need a migration), so it is recomputed from the weekly aggregates:
 * the principal's own weeks, or the organization's pooled weeks while their history is short.
 */
async function deletionBaseline(
  db: Db,
  q: { orgId: string; principal: string; computedAt: Date; source: "self" | "organization" },
): Promise<TRobust> {
  const weeks = recentWeeks(q.computedAt, HORIZON_WEEKS);
  const last = weeks.length - 1;
  const floor = RULES.deletions.scaleFloor;
  const pooled: number[] = [];
  const all = await loadSeries(db, {
    orgId: q.orgId,
    weeks,
    principal: q.source === "self" ? q.principal : undefined,
  });
  if (q.source === "organization")
    for (const p of all.values())
      for (let i = p.firstWeek; i < last; i++) pooled.push(p.series.deletions[i] ?? 0);
  const org = robust(pooled, floor);
  const own = all.get(q.principal);
  if (!own) return org;
  const b = baselineAt(own.series, own.firstWeek, last, {
    external_shares: org,
    resource_accesses: org,
    oauth_grants: org,
    deletions: org,
  });
  return b.stats.deletions;
}

/** A principal's learned weekly baseline (medians); 404 for an unknown principal or another organization's. */
export async function getBaseline(db: Db, q: { orgId: string; userId: string }) {
  const b = firstOr404(
    await db
      .select()
      .from(behaviorBaselines)
      .where(
        and(eq(behaviorBaselines.orgId, q.orgId), eq(behaviorBaselines.principal, principalOf(q.userId))),
      )
      .limit(1),
    "Principal",
  );
  const deletions = await deletionBaseline(db, {
    orgId: q.orgId,
    principal: b.principal,
    computedAt: b.computedAt,
    source: b.source,
  });
  return {
    userId: b.principal,
    periodsLearned: b.periodsLearned,
    source: b.source,
    baseline: {
      externalShareCount: round(b.externalShareMedian),
      resourceAccessCount: round(b.resourceAccessMedian),
      oauthGrantCount: round(b.oauthGrantMedian),
      deletionCount: round(deletions.median),
    },
    spread: {
      externalShareCount: round(b.externalShareScale),
      resourceAccessCount: round(b.resourceAccessScale),
      oauthGrantCount: round(b.oauthGrantScale),
      deletionCount: round(deletions.scale),
    },
    riskScore: b.riskTotal,
    computedAt: iso(b.computedAt),
  };
}
