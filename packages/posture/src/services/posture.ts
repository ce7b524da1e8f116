import { and, asc, eq, isNotNull, sql } from "drizzle-orm";
import { arrayLiteral, queryRows, scans, type Db } from "@posture/db";
import { iso } from "@posture/platform";
import {
  QUICK_WIN_RULES,
  SCORE_CANDIDATES,
  scorePostureOf,
  type TScoredFinding,
  type TSeverityCount,
} from "../engine";

/** A finding one action fixes: a quick-win rule's, or a failing tenant check's. */
const quickWin = sql`(category = 'tenant_configuration' OR rule_id = ANY(${arrayLiteral([...QUICK_WIN_RULES])}::text[]))`;

/**
 * The organization's posture from all its open findings, across connectors, without holding them:
 * one pass counts them per category and severity and picks the few the breakdown can name (see
 * `scorePostureOf`), so a first scan of a large tenant (170,000 open findings at 1M files) scores
 * in constant memory. Equal to `scorePosture` over every open finding.
 */
export async function computeOrgPosture(db: Db, input: { orgId: string }) {
  const rows = await queryRows<TScoredFinding & { title: string; fix: string | null; total: number }>(
    db,
    sql`SELECT f.id, f.category, f.severity, f.rule_id AS "ruleId", f.total, x.title,
          CASE WHEN f.category = 'tenant_configuration' THEN x.details->>'fix' END AS fix
        FROM (
          SELECT id, category, severity, rule_id,
            count(*) OVER (PARTITION BY category, severity)::int AS total,
            row_number() OVER (PARTITION BY category, severity ORDER BY id COLLATE "C") AS nth,
            row_number() OVER (PARTITION BY category, severity, ${quickWin} ORDER BY id COLLATE "C") AS nth_alike,
            ${quickWin} AS quick
          FROM findings WHERE org_id = ${input.orgId} AND status = 'OPEN') f
        JOIN findings x ON x.id = f.id
        WHERE f.nth <= ${SCORE_CANDIDATES} OR (f.quick AND f.nth_alike <= ${SCORE_CANDIDATES})`,
  );
  // Every category and severity with an open finding has its first one among the rows.
  const counts = new Map<string, TSeverityCount>();
  for (const r of rows)
    counts.set(`${r.category}\u0000${r.severity}`, {
      category: r.category,
      severity: r.severity,
      count: r.total,
    });
  const candidates = rows.map(({ total: _, fix, ...f }) => (fix === null ? f : { ...f, fix }));
  return scorePostureOf(
    [...counts.values()].sort((a, b) => (a.category < b.category ? -1 : a.category > b.category ? 1 : 0)),
    candidates,
  );
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
