import { and, desc, eq, gte, inArray, max, sql, type SQL } from "drizzle-orm";
import {
  anomalies,
  behaviorBaselines,
  behaviorWeeklyRisk,
  type Db,
  type TAnomalyType,
  type TSeverity,
} from "@posture/db";
import { firstOr404, iso } from "@posture/platform";
import { LEARN_WEEKS } from "./model";
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
  return rows.map((r) => ({
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
  }));
}

/**
 * Users × ISO weeks, oldest week first; a cell is the week's risk (0–100: deviation from the
 * user's baseline, or the severity of an anomaly in it). Riskiest users first: see
 * riskiestPrincipals.
 */
export async function heatmap(db: Db, q: { orgId: string; weeks: number; limit: number; now?: Date }) {
  const weekKeys = recentWeeks(q.now ?? new Date(), q.weeks);
  const periods = weekKeys.map(labelOfKey);
  const users = await riskiestPrincipals(db, { orgId: q.orgId, limit: q.limit, now: q.now ?? new Date() });
  const cells = users.map(() => new Array<number>(periods.length).fill(0));
  if (users.length > 0) {
    const rows = await db
      .select({ principal: behaviorWeeklyRisk.principal, week: behaviorWeeklyRisk.week, risk: behaviorWeeklyRisk.risk })
      .from(behaviorWeeklyRisk)
      .where(
        and(
          eq(behaviorWeeklyRisk.orgId, q.orgId),
          inArray(behaviorWeeklyRisk.principal, users),
          inArray(behaviorWeeklyRisk.week, periods),
        ),
      );
    const row = new Map(users.map((u, i) => [u, i]));
    const col = new Map(periods.map((p, i) => [p, i]));
    for (const r of rows) {
      const i = row.get(r.principal);
      const j = col.get(r.week);
      const line = i === undefined ? undefined : cells[i];
      if (line && j !== undefined) line[j] = r.risk;
    }
  }
  return { users, periods, cells };
}

/**
 * Principals with an anomaly in the last twelve weeks come first (strongest severity, then heat),
 * then everyone else by heat: sub-threshold deviations summed over many weeks never outrank a
 * detected anomaly. Two indexed reads; anomalies are few.
 */
async function riskiestPrincipals(db: Db, q: { orgId: string; limit: number; now: Date }): Promise<string[]> {
  const since = new Date(q.now.getTime() - LEARN_WEEKS * WEEK_MS);
  const worst = max(anomalies.severityRank);
  const flagged = await db
    .select({ principal: anomalies.principal, heat: behaviorBaselines.riskTotal })
    .from(anomalies)
    .leftJoin(
      behaviorBaselines,
      and(eq(behaviorBaselines.orgId, anomalies.orgId), eq(behaviorBaselines.principal, anomalies.principal)),
    )
    .where(and(eq(anomalies.orgId, q.orgId), gte(anomalies.at, since)))
    .groupBy(anomalies.principal, behaviorBaselines.riskTotal)
    .orderBy(desc(worst), sql`${behaviorBaselines.riskTotal} desc nulls last`, anomalies.principal)
    .limit(q.limit);
  const users = flagged.map((f) => f.principal);
  if (users.length >= q.limit) return users;
  const rest = await db
    .select({ principal: behaviorBaselines.principal })
    .from(behaviorBaselines)
    .where(eq(behaviorBaselines.orgId, q.orgId))
    .orderBy(desc(behaviorBaselines.riskTotal), behaviorBaselines.principal)
    .limit(q.limit);
  const seen = new Set(users);
  for (const r of rest) if (users.length < q.limit && !seen.has(r.principal)) users.push(r.principal);
  return users;
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

/** A principal's learned weekly baseline (medians); 404 for an unknown principal or another organization's. */
export async function getBaseline(db: Db, q: { orgId: string; userId: string }) {
  const b = firstOr404(
    await db
      .select()
      .from(behaviorBaselines)
      .where(and(eq(behaviorBaselines.orgId, q.orgId), eq(behaviorBaselines.principal, principalOf(q.userId))))
      .limit(1),
    "Principal",
  );
  return {
    userId: b.principal,
    periodsLearned: b.periodsLearned,
    source: b.source,
    baseline: {
      externalShareCount: round(b.externalShareMedian),
      resourceAccessCount: round(b.resourceAccessMedian),
      oauthGrantCount: round(b.oauthGrantMedian),
    },
    spread: {
      externalShareCount: round(b.externalShareScale),
      resourceAccessCount: round(b.resourceAccessScale),
      oauthGrantCount: round(b.oauthGrantScale),
    },
    riskScore: b.riskTotal,
    computedAt: iso(b.computedAt),
  };
}

