import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import { findings, prepared, type Db, type TSeverity } from "@posture/db";
import { notFound } from "@posture/platform";
import { SEVERITY_RANK } from "./severity";

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

const p = {
  orgId: sql.placeholder("orgId"),
  status: sql.placeholder("status"),
  rank: sql.placeholder("rank"),
  limit: sql.placeholder("limit"),
  offset: sql.placeholder("offset"),
};

// One prepared shape per filter combination: this is the hottest list of the API.
function listQuery(db: Db, byStatus: boolean, byRank: boolean) {
  const name = `findings_list_${byStatus ? "s" : ""}${byRank ? "r" : ""}`;
  return prepared(db, name, (d) => {
    const where: SQL[] = [eq(findings.orgId, p.orgId)];
    if (byStatus) where.push(eq(findings.status, p.status));
    // By rank, not by name: the ordering index covers severity_rank.
    if (byRank) where.push(eq(findings.severityRank, p.rank));
    return d
      .select(columns)
      .from(findings)
      .where(and(...where))
      .orderBy(desc(findings.severityRank), desc(findings.detectedAt), desc(findings.id))
      .limit(p.limit)
      .offset(p.offset)
      .prepare(name);
  });
}

/**
 * Most severe first, then newest; the order is total (id last) so offset pages never overlap, and
 * all-descending so it is one backward scan of findings_org_order_idx.
 */
export async function listFindings(db: Db, q: TListFindings) {
  const rows = await listQuery(db, q.status !== "all", q.severity !== undefined).execute({
    orgId: q.orgId,
    status: q.status,
    rank: q.severity ? SEVERITY_RANK[q.severity] : 0,
    limit: q.limit + 1,
    offset: q.offset,
  });
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
