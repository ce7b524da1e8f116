import { and, asc, desc, eq, type SQL } from "drizzle-orm";
import { findings, type Db, type TSeverity } from "@posture/db";
import { notFound } from "@posture/platform";

export type TFindingView = {
  id: string;
  severity: TSeverity;
  title: string;
  resourceName: string;
  connectorType: string;
  status: "OPEN" | "RESOLVED";
  detectedAt: string;
  category: string;
  ruleId: string;
  connectorId: string;
  resolvedAt: string | null;
};

const columns = {
  id: findings.id,
  severity: findings.severity,
  title: findings.title,
  resourceName: findings.resourceName,
  connectorType: findings.connectorType,
  status: findings.status,
  detectedAt: findings.detectedAt,
  category: findings.category,
  ruleId: findings.ruleId,
  connectorId: findings.connectorId,
  resolvedAt: findings.resolvedAt,
};

type TRow = Pick<typeof findings.$inferSelect, keyof typeof columns>;

const toView = (r: TRow): TFindingView => ({
  ...r,
  detectedAt: r.detectedAt.toISOString(),
  resolvedAt: r.resolvedAt?.toISOString() ?? null,
});

export type TListFindings = {
  orgId: string;
  status: "OPEN" | "RESOLVED" | "all";
  severity?: TSeverity | undefined;
  limit: number;
  offset: number;
};

/** Most severe first, then newest; the order is total (id last) so offset pages never overlap. */
export async function listFindings(db: Db, q: TListFindings) {
  const where: SQL[] = [eq(findings.orgId, q.orgId)];
  if (q.status !== "all") where.push(eq(findings.status, q.status));
  if (q.severity) where.push(eq(findings.severity, q.severity));
  const rows = await db
    .select(columns)
    .from(findings)
    .where(and(...where))
    .orderBy(desc(findings.severityRank), desc(findings.detectedAt), asc(findings.id))
    .limit(q.limit + 1)
    .offset(q.offset);
  const page = rows.slice(0, q.limit).map(toView);
  return {
    findings: page,
    limit: q.limit,
    offset: q.offset,
    nextOffset: rows.length > q.limit ? q.offset + q.limit : null,
  };
}

export async function getFinding(db: Db, orgId: string, id: string) {
  const [row] = await db
    .select()
    .from(findings)
    .where(and(eq(findings.orgId, orgId), eq(findings.id, id)))
    .limit(1);
  if (!row) throw notFound("Finding");
  return row;
}
