import { and, asc, eq, isNotNull, sql, type SQL } from "drizzle-orm";
import { arrayLiteral, queryRows, scans, type Db } from "@posture/db";
import { iso } from "@posture/platform";
import {
  POSTURE_TOP_LIMIT,
  rankFindings,
  scoreCounts,
  SEVERITY_RANK,
  type TCategoryCounts,
  type TPostureBreakdown,
  type TScoredFinding,
  type TSeverity,
} from "../engine";
import { QUICK_WIN_RULES } from "../engine/rule-ids";
import { TENANT_CONFIGURATION } from "../engine/tenant-findings";

/**
 * The organization's posture from all its open findings, across connectors, worked out in the
 * database: the counts per category and severity decide the score and every finding's scoreDelta,
 * so only the counts and the few findings the two top-ten lists name are read (a 1M-file
 * organization has 171,000 open findings; reading them all cost 0.7 s a scan). Exactly what
 * `scorePosture` gives for the same findings: the lists are ranked by the same key (scoreDelta,
 * severity, id in code-point order).
 */
export async function computeOrgPosture(db: Db, input: { orgId: string }): Promise<TPostureBreakdown> {
  const open = sql`f.org_id = ${input.orgId} AND f.status = 'OPEN'`;
  const counted = await queryRows<{ category: string; severity: TSeverity; n: number }>(
    db,
    sql`SELECT f.category, f.severity, count(*)::int AS n FROM findings f WHERE ${open}
        GROUP BY f.category, f.severity ORDER BY f.category COLLATE "C", f.severity`,
  );
  const counts: TCategoryCounts = new Map();
  for (const r of counted) {
    const c = counts.get(r.category) ?? { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 };
    c[r.severity] = r.n;
    counts.set(r.category, c);
  }
  const scored = scoreCounts(counts);
  const { score, grade, categories } = scored;
  if (counted.length === 0) return { score, grade, categories, topImprovements: [], quickWins: [] };
  // Each (category, severity)'s scoreDelta and rank, joined to the findings to order them.
  const keys = sql`unnest(${arrayLiteral(counted.map((r) => r.category))}::text[],
      ${arrayLiteral(counted.map((r) => r.severity))}::text[],
      ${arrayLiteral(counted.map((r) => scored.deltaOf(r.category, r.severity)))}::int[],
      ${arrayLiteral(counted.map((r) => SEVERITY_RANK[r.severity]))}::int[]) AS k(category, severity, delta, rank)`;
  const top = (where: SQL) =>
    queryRows<TScoredFinding & { fix: string | null }>(
      db,
      sql`SELECT f.id, f.category, f.severity, f.rule_id AS "ruleId", f.title,
            CASE WHEN f.category = ${TENANT_CONFIGURATION} THEN f.details->>'fix' END AS fix
          FROM findings f JOIN ${keys} ON k.category = f.category AND k.severity = f.severity
          WHERE ${open} AND ${where}
          ORDER BY k.delta DESC, k.rank DESC, f.id COLLATE "C" LIMIT ${POSTURE_TOP_LIMIT}`,
    );
  const best = await top(sql`true`);
  const wins = await top(
    sql`k.delta > 0 AND (f.category = ${TENANT_CONFIGURATION} OR f.rule_id = ANY(${arrayLiteral([...QUICK_WIN_RULES])}::text[]))`,
  );
  const found = new Map([...best, ...wins].map(({ fix, ...f }) => [f.id, fix === null ? f : { ...f, fix }]));
  return { score, grade, categories, ...rankFindings(scored, [...found.values()]) };
}

/** One point per completed scan, oldest first. */
export async function getPostureHistory(
  db: Db,
  input: { orgId: string },
): Promise<Array<{ score: number; at: string }>> {
  const rows = await db
    .select({ score: scans.postureScore, at: scans.completedAt })
    .from(scans)
    .where(and(eq(scans.orgId, input.orgId), eq(scans.status, "COMPLETE"), isNotNull(scans.postureScore)))
    .orderBy(asc(scans.completedAt), asc(scans.id));
  return rows.flatMap((r) => (r.score !== null && r.at ? [{ score: r.score, at: iso(r.at) }] : []));
}
