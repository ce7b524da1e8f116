import { and, asc, eq, isNotNull, sql } from "drizzle-orm";
import { arrayLiteral, queryRows, scans, type Db } from "@posture/db";
import { iso } from "@posture/platform";
import { POSTURE_TOP_LIMIT, SEVERITY_RANK, type TSeverity } from "../engine";
import { QUICK_WIN_GROUP_CAP, QUICK_WIN_GROUPS, RULE_IDS, type TQuickWinGroup } from "../engine/rule-ids";
import {
  quickWinGroupOf,
  quickWinsOf,
  rankFindings,
  scoreCounts,
  type TCategoryCounts,
  type TGroupStats,
  type TPostureBreakdown,
  type TScoredFinding,
} from "../engine/score-posture";
import { TENANT_CONFIGURATION } from "../engine/tenant-findings";

/**
 * The organization's open findings counted per category and severity (the score's input), read
 * from org_finding_counts: kept exact by triggers on findings in every writing transaction
 * (migration 0023), so this is a few rows instead of counting every open finding.
 */
export async function openFindingCounts(
  db: Db,
  input: { orgId: string },
): Promise<{ counts: TCategoryCounts; rows: Array<{ category: string; severity: TSeverity; n: number }> }> {
  const rows = await queryRows<{ category: string; severity: TSeverity; n: number }>(
    db,
    sql`SELECT category, severity, open AS n FROM org_finding_counts
        WHERE org_id = ${input.orgId} AND open > 0 ORDER BY category COLLATE "C", severity`,
  );
  const counts: TCategoryCounts = new Map();
  for (const r of rows) {
    const c = counts.get(r.category) ?? { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 };
    c[r.severity] = r.n;
    counts.set(r.category, c);
  }
  return { counts, rows };
}

/** How many changes at the source fix a finding: its public links, outside grants or app grants. */
const STEPS_SQL = sql`GREATEST(1, COALESCE(
    CASE f.rule_id
      WHEN ${RULE_IDS.publicLink} THEN jsonb_array_length(CASE WHEN jsonb_typeof(f.details->'permissionIds') = 'array' THEN f.details->'permissionIds' END)
      WHEN ${RULE_IDS.externalShare} THEN (f.details->>'targetCount')::int
      WHEN ${RULE_IDS.orgWideLink} THEN jsonb_array_length(CASE WHEN jsonb_typeof(f.details->'permissionIds') = 'array' THEN f.details->'permissionIds' END)
      WHEN ${RULE_IDS.orgWideGrant} THEN jsonb_array_length(CASE WHEN jsonb_typeof(f.details->'permissionIds') = 'array' THEN f.details->'permissionIds' END)
      WHEN ${RULE_IDS.broadGroupGrant} THEN jsonb_array_length(CASE WHEN jsonb_typeof(f.details->'permissionIds') = 'array' THEN f.details->'permissionIds' END)
      ELSE (f.details->>'grantCount')::int
    END, 1))`;

/**
 * The organization's posture from all its open findings, across connectors, worked out in the
 * database: the counts per category and severity decide the score and every finding's scoreDelta,
 * so only the counts, the few findings the top-ten list names, and the quick wins' candidates
 * (each group's worst QUICK_WIN_GROUP_CAP findings, every tenant finding) are read (a 1M-file
 * organization has 171,000 open findings; reading them all cost 0.7 s a scan). Exactly what
 * `scorePosture` gives for the same findings: the lists are ranked by the same keys.
 */
export async function computeOrgPosture(db: Db, input: { orgId: string }): Promise<TPostureBreakdown> {
  const open = sql`f.org_id = ${input.orgId} AND f.status = 'OPEN'`;
  // One pass: the counts per category and severity, and per quick-win group (rule, trustedOnly)
  // with the changes at the source its findings take.
  const trusted = sql`COALESCE((f.details->>'trustedOnly')::boolean, false)`;
  const grouped = sql`f.rule_id = ANY(${arrayLiteral([...new Set(QUICK_WIN_GROUPS.map((g) => g.ruleId))])}::text[])`;
  const tallies = await queryRows<{
    category: string;
    severity: TSeverity;
    rule_id: string;
    trusted: boolean | null;
    n: number;
    steps: number | null;
  }>(
    db,
    sql`SELECT f.category, f.severity, CASE WHEN ${grouped} THEN f.rule_id END AS rule_id,
          CASE WHEN ${grouped} THEN ${trusted} END AS trusted, count(*)::int AS n,
          sum(CASE WHEN ${grouped} THEN ${STEPS_SQL} END)::int AS steps
        FROM findings f WHERE ${open} GROUP BY 1, 2, 3, 4`,
  );
  const counts: TCategoryCounts = new Map();
  const stats = new Map<
    string,
    TGroupStats & { counts: Array<{ category: string; severity: TSeverity; n: number }> }
  >();
  for (const r of tallies) {
    const c = counts.get(r.category) ?? { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 };
    c[r.severity] += r.n;
    counts.set(r.category, c);
    const g =
      r.rule_id === null ? null : quickWinGroupOf({ ruleId: r.rule_id, trustedOnly: r.trusted ?? false });
    if (!g) continue;
    const st = stats.get(g.key) ?? { total: 0, steps: 0, counts: [] };
    st.total += r.n;
    st.steps += r.steps ?? r.n;
    st.counts.push({ category: r.category, severity: r.severity, n: r.n });
    stats.set(g.key, st);
  }
  // In the order the keys are read (category in code-point order, then severity).
  const counted = [...counts]
    .flatMap(([category, c]) =>
      (Object.keys(c) as TSeverity[]).filter((sev) => c[sev] > 0).map((severity) => ({ category, severity })),
    )
    .sort((a, b) =>
      a.category < b.category
        ? -1
        : a.category > b.category
          ? 1
          : a.severity < b.severity
            ? -1
            : a.severity > b.severity
              ? 1
              : 0,
    );
  const scored = scoreCounts(counts);
  const { score, grade, categories } = scored;
  if (counted.length === 0) return { score, grade, categories, topImprovements: [], quickWins: [] };
  // Each (category, severity)'s scoreDelta and rank, joined to the findings to order them.
  const keys = sql`unnest(${arrayLiteral(counted.map((r) => r.category))}::text[],
      ${arrayLiteral(counted.map((r) => r.severity))}::text[],
      ${arrayLiteral(counted.map((r) => scored.deltaOf(r.category, r.severity)))}::int[],
      ${arrayLiteral(counted.map((r) => SEVERITY_RANK[r.severity]))}::int[]) AS k(category, severity, delta, rank)`;
  const best = await queryRows<TScoredFinding>(
    db,
    sql`SELECT f.id, f.category, f.severity, f.rule_id AS "ruleId", f.title
        FROM findings f JOIN ${keys} ON k.category = f.category AND k.severity = f.severity
        WHERE ${open}
        ORDER BY k.delta DESC, k.rank DESC, f.id COLLATE "C" LIMIT ${POSTURE_TOP_LIMIT}`,
  );
  // Quick wins: every tenant finding, and each group's worst findings.
  const groupWhere = (g: TQuickWinGroup) =>
    g.trustedOnly === null
      ? sql`f.rule_id = ${g.ruleId}`
      : sql`f.rule_id = ${g.ruleId} AND ${trusted} = ${g.trustedOnly}`;
  const candidateSelect = sql`f.id, f.category, f.severity, f.rule_id AS "ruleId", f.title,
      CASE WHEN f.category = ${TENANT_CONFIGURATION} THEN f.details->>'fix' END AS fix,
      ${trusted} AS "trustedOnly", ${STEPS_SQL} AS steps`;
  const parts = [
    sql`(SELECT ${candidateSelect} FROM findings f WHERE ${open} AND f.category = ${TENANT_CONFIGURATION})`,
    ...QUICK_WIN_GROUPS.map(
      (g) => sql`(SELECT ${candidateSelect} FROM findings f WHERE ${open} AND ${groupWhere(g)}
        ORDER BY f.severity_rank DESC, f.id COLLATE "C" LIMIT ${QUICK_WIN_GROUP_CAP})`,
    ),
  ];
  const candidates = await queryRows<TScoredFinding & { fix: string | null; steps: number }>(
    db,
    sql.join(parts, sql` UNION ALL `),
  );
  const quickWins = quickWinsOf(
    counts,
    candidates.map(({ fix, ...f }) => (fix === null ? f : { ...f, fix })),
    stats,
  );
  return { score, grade, categories, ...rankFindings(scored, best), quickWins };
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
