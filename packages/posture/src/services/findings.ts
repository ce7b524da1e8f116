import { and, count, desc, eq, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { findings, orgPostureSummary, prepared, SEVERITY_RANK, type Db, type TSeverity } from "@posture/db";
import { firstOr404, iso, offsetPage } from "@posture/platform";

export type TFindingView = {
  id: string;
  severity: TSeverity;
  title: string;
  resourceName: string;
  connectorType: string;
  status: "OPEN" | "RESOLVED" | "ACCEPTED";
  detectedAt: string;
  category: string;
  ruleId: string;
  connectorId: string;
  resolvedAt: string | null;
  /** Tenant-configuration findings only: the benchmark recommendation the failing check implements. */
  benchmark?: { name: string; version: string; id: string };
  /** Tenant-configuration findings only: the settings read, what was expected, and the fix. */
  tenantCheck?: { settings: Record<string, unknown>; expected: string; fix: string };
};

export type TTenantDetails = {
  benchmark: { name: string; version: string; id: string };
  settings: Record<string, unknown>;
  expected: string;
  fix: string;
};

/** The columns of a finding as the API shows it (the list, the detail, the NDJSON export). */
export const findingColumns = {
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
  // Only tenant-configuration findings carry a benchmark; other rows read no details at all.
  tenant: sql<TTenantDetails | null>`CASE WHEN ${findings.category} = 'tenant_configuration' THEN ${findings.details} END`,
};

export type TFindingRow = Pick<
  typeof findings.$inferSelect,
  Exclude<keyof typeof findingColumns, "tenant">
> & {
  tenant: TTenantDetails | null;
};

/** A tenant-configuration finding's benchmark and check, as the view carries them; {} for others. */
export const tenantFields = (
  tenant: TTenantDetails | null,
): Pick<TFindingView, "benchmark" | "tenantCheck"> =>
  tenant?.benchmark
    ? {
        benchmark: tenant.benchmark,
        tenantCheck: {
          settings: tenant.settings ?? {},
          expected: tenant.expected ?? "",
          fix: tenant.fix ?? "",
        },
      }
    : {};

/** A finding's columns with its timestamps already ISO text: what findingView builds the view from. */
export type TFindingViewSource = Omit<TFindingView, "benchmark" | "tenantCheck"> & {
  tenant: TTenantDetails | null;
};

/**
 * The one builder of a finding's view: the list, the detail and the export (whose NDJSON lines
 * equal GET /findings/{id}) all go through it, so fields, their order and the tenant details are
 * decided here once. Timestamps come in as text: the list formats its Dates, the export reads
 * text the database formatted (no Date per row at a million rows).
 */
export const findingView = (r: TFindingViewSource): TFindingView => ({
  id: r.id,
  severity: r.severity,
  title: r.title,
  resourceName: r.resourceName,
  connectorType: r.connectorType,
  status: r.status,
  detectedAt: r.detectedAt,
  category: r.category,
  ruleId: r.ruleId,
  connectorId: r.connectorId,
  resolvedAt: r.resolvedAt,
  ...tenantFields(r.tenant),
});

export const toFindingView = (r: TFindingRow): TFindingView =>
  findingView({ ...r, detectedAt: iso(r.detectedAt), resolvedAt: iso(r.resolvedAt) });

/** The list's filters (ZFindingFilters): GET /findings and GET /findings/export apply exactly these. */
export type TFindingFilters = {
  status: "OPEN" | "RESOLVED" | "ACCEPTED" | "all";
  severity?: TSeverity | undefined;
  category?: string | undefined;
};

export type TListFindings = TFindingFilters & { orgId: string; limit: number; offset: number };

/** The filters that narrow: `status=all` does not; a severity is matched by its rank. */
export function activeFilters(f: TFindingFilters) {
  return {
    status: f.status === "all" ? undefined : f.status,
    rank: f.severity ? SEVERITY_RANK[f.severity] : undefined,
    category: f.category,
  };
}

type TParam<T> = T | SQLWrapper;

/**
 * The filters as conditions on findings, the organization first. Values are literal (the export)
 * or placeholders of a prepared statement (the list); an absent one does not narrow.
 */
export function findingFilterConditions(v: {
  orgId: TParam<string>;
  status?: TParam<"OPEN" | "RESOLVED" | "ACCEPTED"> | undefined;
  rank?: TParam<number> | undefined;
  category?: TParam<string> | undefined;
}): SQL[] {
  const conditions: SQL[] = [eq(findings.orgId, v.orgId)];
  if (v.status !== undefined) conditions.push(eq(findings.status, v.status));
  // By rank, not by name: the ordering index covers severity_rank.
  if (v.rank !== undefined) conditions.push(eq(findings.severityRank, v.rank));
  if (v.category !== undefined) conditions.push(eq(findings.category, v.category));
  return conditions;
}

const p = {
  orgId: sql.placeholder("orgId"),
  status: sql.placeholder("status"),
  rank: sql.placeholder("rank"),
  category: sql.placeholder("category"),
  limit: sql.placeholder("limit"),
  offset: sql.placeholder("offset"),
};

// One prepared shape per filter combination: this is the hottest list of the API.
function listQueries(db: Db, byStatus: boolean, byRank: boolean, byCategory: boolean) {
  const name = `findings_list_${byStatus ? "s" : ""}${byRank ? "r" : ""}${byCategory ? "c" : ""}`;
  return prepared(db, name, (d) => {
    const where = and(
      ...findingFilterConditions({
        orgId: p.orgId,
        status: byStatus ? p.status : undefined,
        rank: byRank ? p.rank : undefined,
        category: byCategory ? p.category : undefined,
      }),
    );
    return {
      page: d
        .select(findingColumns)
        .from(findings)
        .where(where)
        .orderBy(desc(findings.severityRank), desc(findings.detectedAt), desc(findings.id))
        .limit(p.limit)
        .offset(p.offset)
        .prepare(name),
      // Answered from findings_org_order_idx alone (org, status, rank lead it); for open findings,
      // openTotal reads the posture summary instead.
      total: d.select({ n: count() }).from(findings).where(where).prepare(`${name}_total`),
    };
  });
}

const OPEN_COUNT_BY_RANK: Record<number, SQL> = {
  4: sql`${orgPostureSummary.openCritical}`,
  3: sql`${orgPostureSummary.openHigh}`,
  2: sql`${orgPostureSummary.openMedium}`,
  1: sql`${orgPostureSummary.openLow}`,
  0: sql`${orgPostureSummary.openCritical} + ${orgPostureSummary.openHigh} + ${orgPostureSummary.openMedium} + ${orgPostureSummary.openLow}`,
};

/**
 * The number of open findings (of one severity rank, or all with 0), from the organization's
 * posture summary: one primary-key read instead of counting every open row, which is what the
 * default listing asks for on every page (47 ms for 90,000 open findings, against 0.1 ms for the
 * page itself). The summary is kept exact by the findings triggers, in the writing transactions.
 */
async function openTotal(db: Db, orgId: string, rank: number): Promise<number> {
  const q = prepared(db, `findings_open_total_${rank}`, (d) =>
    d
      .select({ n: sql<number>`(${OPEN_COUNT_BY_RANK[rank]})::int` })
      .from(orgPostureSummary)
      .where(eq(orgPostureSummary.orgId, sql.placeholder("orgId")))
      .prepare(`findings_open_total_${rank}`),
  );
  const [row] = await q.execute({ orgId });
  // No summary row: the organization never had a finding.
  return row?.n ?? 0;
}

/**
 * Most severe first, then newest; the order is total (id last) so offset pages never overlap, and
 * all-descending so it is one backward scan of findings_org_order_idx.
 */
export async function listFindings(db: Db, q: TListFindings) {
  const f = activeFilters(q);
  const queries = listQueries(db, f.status !== undefined, f.rank !== undefined, f.category !== undefined);
  const params = {
    orgId: q.orgId,
    status: q.status,
    rank: f.rank ?? 0,
    category: f.category ?? "",
    limit: q.limit,
    offset: q.offset,
  };
  const [rows, total] = await Promise.all([
    queries.page.execute(params),
    // The posture summary counts by severity only: a category is counted from the rows.
    q.status === "OPEN" && q.category === undefined
      ? openTotal(db, q.orgId, params.rank)
      : queries.total.execute(params).then(([r]) => r?.n ?? 0),
  ]);
  return offsetPage(rows.map(toFindingView), { total, limit: q.limit, offset: q.offset }, "findings");
}

/** One finding in the list's shape; another organization's id is a 404, as a missing one. */
export async function getFindingView(db: Db, input: { orgId: string; id: string }): Promise<TFindingView> {
  const row = firstOr404(
    await db
      .select(findingColumns)
      .from(findings)
      .where(and(eq(findings.orgId, input.orgId), eq(findings.id, input.id)))
      .limit(1),
    "Finding",
  );
  return toFindingView(row);
}

export async function getFinding(db: Db, input: { orgId: string; id: string }) {
  return firstOr404(
    await db
      .select()
      .from(findings)
      .where(and(eq(findings.orgId, input.orgId), eq(findings.id, input.id)))
      .limit(1),
    "Finding",
  );
}
