import { and, asc, desc, eq, gte, inArray, isNotNull, sql } from "drizzle-orm";
import { findings, scans, type Db, type TSeverity } from "@posture/db";
import { satisfiedPct } from "../engine/evaluate";
import { evaluateOrg } from "./evaluation";
import { gradeOf } from "./signals";

/**
 * What `GET /posture/breakdown` answers, as the report reads it: worked out now by the posture
 * package's `computeOrgPosture`, which the composition root hands in (a domain package does not
 * import another: docs/architecture.md).
 */
export type TPostureBreakdownOf = (
  db: Db,
  q: { orgId: string },
) => Promise<{
  score: number;
  categories: Array<{ category: string; deductionPoints: number; findingCount: number }>;
  topImprovements: Array<{ findingId: string; scoreDelta: number }>;
  quickWins: Array<{ title: string; scoreDelta: number }>;
}>;

/** The runtime the posture report needs from other areas. */
export type TPostureReportDeps = { breakdown: TPostureBreakdownOf };

export type TPostureReportData = {
  orgName: string;
  periodDays: number;
  from: string;
  to: string;
  score: number | null;
  grade: string | null;
  /** One point per day with a completed scan: that day's last score. */
  trend: Array<{ day: string; score: number }>;
  categories: Array<{ category: string; deductionPoints: number; findingCount: number }>;
  openBySeverity: Record<TSeverity, number>;
  topFindings: Array<{
    id: string;
    severity: TSeverity;
    title: string;
    resourceName: string;
    detectedAt: string;
  }>;
  /** Single findings whose fix raises the score (the breakdown's topImprovements). */
  improvements: Array<{ findingId: string; title: string; scoreDelta: number }>;
  /** One action over a group of findings or a tenant setting (the breakdown's quickWins). */
  quickWins: Array<{ title: string; scoreDelta: number }>;
  frameworks: Array<{
    id: string;
    name: string;
    satisfiedPct: number;
    satisfied: number;
    partial: number;
    gap: number;
  }>;
};

/** Daily trend from completed scans: the last score of each UTC day in the period. */
export async function dailyTrend(
  db: Db,
  q: { orgId: string; from: Date },
): Promise<Array<{ day: string; score: number }>> {
  const { orgId, from } = q;
  const rows = await db
    .selectDistinctOn([sql`date_trunc('day', ${scans.completedAt} AT TIME ZONE 'UTC')`], {
      day: sql<string>`to_char(${scans.completedAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
      score: scans.postureScore,
    })
    .from(scans)
    .where(
      and(
        eq(scans.orgId, orgId),
        eq(scans.status, "COMPLETE"),
        isNotNull(scans.postureScore),
        gte(scans.completedAt, from),
      ),
    )
    .orderBy(sql`date_trunc('day', ${scans.completedAt} AT TIME ZONE 'UTC')`, desc(scans.completedAt));
  return rows.flatMap((r) => (r.score === null ? [] : [{ day: r.day, score: r.score }]));
}

export async function postureReportData(
  db: Db,
  o: { orgId: string; days: number; now?: Date },
  deps: TPostureReportDeps,
): Promise<TPostureReportData> {
  const to = o.now ?? new Date();
  const from = new Date(to.getTime() - o.days * 86_400_000);
  const [latest] = await db
    .select({ id: scans.id })
    .from(scans)
    .where(and(eq(scans.orgId, o.orgId), eq(scans.status, "COMPLETE"), isNotNull(scans.postureScore)))
    .limit(1);
  // The score, categories, improvements and quick wins are GET /posture/breakdown's, worked out
  // now by the same function (handed in): not the last scan's copy, which a remediation since has
  // made stale.
  const [breakdown, trend, top, counts, evaluation] = await Promise.all([
    deps.breakdown(db, { orgId: o.orgId }),
    dailyTrend(db, { orgId: o.orgId, from }),
    db
      .select({
        id: findings.id,
        severity: findings.severity,
        title: findings.title,
        resourceName: findings.resourceName,
        detectedAt: findings.detectedAt,
      })
      .from(findings)
      .where(and(eq(findings.orgId, o.orgId), eq(findings.status, "OPEN")))
      .orderBy(desc(findings.severityRank), desc(findings.detectedAt), asc(findings.id))
      .limit(10),
    db
      .select({ severity: findings.severity, n: sql<number>`count(*)::int` })
      .from(findings)
      .where(and(eq(findings.orgId, o.orgId), eq(findings.status, "OPEN")))
      .groupBy(findings.severity),
    evaluateOrg(db, { orgId: o.orgId, days: o.days, now: to }),
  ]);
  // A fix worth no points (its category already at its cap) is not an improvement to list.
  const worthPoints = breakdown.topImprovements.filter((i) => i.scoreDelta > 0).slice(0, 8);
  const improvementIds = worthPoints.map((i) => i.findingId);
  const titles = improvementIds.length
    ? await db
        .select({ id: findings.id, title: findings.title })
        .from(findings)
        .where(and(eq(findings.orgId, o.orgId), inArray(findings.id, improvementIds)))
    : [];
  const titleOf = new Map(titles.map((t) => [t.id, t.title]));
  const openBySeverity: Record<TSeverity, number> = { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 };
  for (const c of counts) openBySeverity[c.severity] = Number(c.n);
  // Before any completed scan there is nothing measured (the breakdown of no findings reads 100).
  const score = latest ? breakdown.score : null;
  return {
    orgName: evaluation.org.name,
    periodDays: o.days,
    from: from.toISOString(),
    to: to.toISOString(),
    score,
    grade: score === null ? null : gradeOf(score),
    trend,
    categories: latest ? breakdown.categories : [],
    openBySeverity,
    topFindings: top.map((f) => ({ ...f, detectedAt: f.detectedAt.toISOString() })),
    improvements: worthPoints
      .map((i) => ({
        findingId: i.findingId,
        scoreDelta: i.scoreDelta,
        title: titleOf.get(i.findingId) ?? "",
      }))
      .filter((i) => i.title !== ""),
    quickWins: latest ? breakdown.quickWins.map((w) => ({ title: w.title, scoreDelta: w.scoreDelta })) : [],
    frameworks: evaluation.results.map((r) => ({
      id: r.framework,
      name: r.name,
      satisfiedPct: satisfiedPct(r),
      satisfied: r.satisfied,
      partial: r.partial,
      gap: r.gap,
    })),
  };
}
