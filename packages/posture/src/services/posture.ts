import { and, asc, eq, isNotNull, sql } from "drizzle-orm";
import { findings, scans, type Db } from "@posture/db";
import { iso } from "@posture/platform";
import { scorePosture } from "../engine";

/** The organization's posture from all its open findings, across connectors. */
export async function computeOrgPosture(db: Db, input: { orgId: string }) {
  const open = await db
    .select({
      id: findings.id,
      category: findings.category,
      severity: findings.severity,
      ruleId: findings.ruleId,
      title: findings.title,
      fix: sql<
        string | null
      >`CASE WHEN ${findings.category} = 'tenant_configuration' THEN ${findings.details}->>'fix' END`,
    })
    .from(findings)
    .where(and(eq(findings.orgId, input.orgId), eq(findings.status, "OPEN")));
  return scorePosture(open.map(({ fix, ...f }) => (fix === null ? f : { ...f, fix })));
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
