import { and, asc, count, desc, eq, gt, inArray, isNull, lte, or, sql } from "drizzle-orm";
import {
  SEVERITY_RANK,
  workspacePermissions,
  workspaceShares,
  type Db,
  type TSeverity,
  type TShareType,
} from "@posture/db";
import { offsetPage } from "@posture/platform";
import { orgTotals } from "./snapshots";

export const SHARE_SORTS = ["riskRank", "severity", "resourceName", "ownerEmail", "target"] as const;
export type TShareSort = (typeof SHARE_SORTS)[number];

const SORT_COLUMN = {
  riskRank: workspaceShares.riskRank,
  severity: workspaceShares.severityRank,
  resourceName: workspaceShares.resourceName,
  ownerEmail: workspaceShares.ownerEmail,
  target: workspaceShares.target,
} as const;

type TItemsQuery = {
  orgId: string;
  type?: TShareType;
  severity?: TSeverity;
  sort: TShareSort;
  order?: "asc" | "desc";
  limit: number;
  offset: number;
};

/** Not covered by an approval right now (an expired approval no longer hides anything). */
export const notApproved = () =>
  or(isNull(workspaceShares.approvedUntil), lte(workspaceShares.approvedUntil, sql`now()`));

/**
 * One page of external shares. Every order ends with the item id in the same direction, a total
 * order matching an index, so consecutive offsets never repeat or skip an item. Approved items
 * leave the list (and its ranking) until their approval expires.
 */
export async function listSharingItems(db: Db, q: TItemsQuery) {
  const order = q.order ?? (q.sort === "riskRank" || q.sort === "severity" ? "desc" : "asc");
  const dir = order === "desc" ? desc : asc;
  const where = and(
    eq(workspaceShares.orgId, q.orgId),
    q.type ? eq(workspaceShares.sharingType, q.type) : undefined,
    q.severity ? eq(workspaceShares.severityRank, SEVERITY_RANK[q.severity]) : undefined,
    notApproved(),
  );
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(workspaceShares)
      .where(where)
      .orderBy(dir(SORT_COLUMN[q.sort]), dir(workspaceShares.id))
      .limit(q.limit)
      .offset(q.offset),
    q.severity ? countItems(db, where) : totalWithoutSeverity(db, q.orgId, q.type),
  ]);
  const targets = await targetsOf(db, q.orgId, rows);
  return {
    ...offsetPage(
      rows.map((s) => ({
        id: s.id,
        resourceName: s.resourceName,
        ownerEmail: s.ownerEmail,
        sharingType: s.sharingType,
        target: s.target,
        targets: targets.get(`${s.fileId}|${s.sharingType}`) ?? [s.target],
        targetCount: s.targetCount,
        permission: s.permission,
        severity: s.severity,
        riskRank: s.riskRank,
        sensitivity: s.sensitivity,
        trustedDomain: s.severity !== s.baseSeverity,
      })),
      { total, limit: q.limit, offset: q.offset },
    ),
    sort: q.sort,
    order,
  };
}

/**
 * Every outside address or domain of each item of a page, sorted: the permissions of the item's
 * file with the item's sharing type (one indexed read for the page).
 */
async function targetsOf(
  db: Db,
  orgId: string,
  items: Array<{ fileId: string }>,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (items.length === 0) return out;
  const rows = await db
    .selectDistinct({
      fileId: workspacePermissions.fileId,
      sharingType: workspacePermissions.sharingType,
      target: workspacePermissions.target,
    })
    .from(workspacePermissions)
    .where(
      and(
        eq(workspacePermissions.orgId, orgId),
        inArray(workspacePermissions.fileId, [...new Set(items.map((i) => i.fileId))]),
      ),
    )
    .orderBy(workspacePermissions.fileId, workspacePermissions.sharingType, workspacePermissions.target);
  for (const r of rows) {
    const key = `${r.fileId}|${r.sharingType}`;
    const list = out.get(key);
    if (list) list.push(r.target);
    else out.set(key, [r.target]);
  }
  return out;
}

async function countItems(db: Db, where: ReturnType<typeof and>): Promise<number> {
  const [row] = await db.select({ n: count() }).from(workspaceShares).where(where);
  return row?.n ?? 0;
}

/** Snapshot tallies minus the approved items: no count over the whole share table per page. */
async function totalWithoutSeverity(db: Db, orgId: string, type?: TShareType): Promise<number> {
  const totals = await orgTotals(db, { orgId });
  const m = totals.metrics;
  const all =
    type === "public"
      ? m.sharesPublic
      : type === "external_user"
        ? m.sharesExternalUser
        : type === "external_domain"
          ? m.sharesExternalDomain
          : totals.shares;
  const [approved] = await db
    .select({ n: count() })
    .from(workspaceShares)
    .where(
      and(
        eq(workspaceShares.orgId, orgId),
        sql`${workspaceShares.approvedUntil} IS NOT NULL`,
        gt(workspaceShares.approvedUntil, sql`now()`),
        type ? eq(workspaceShares.sharingType, type) : undefined,
      ),
    );
  return Math.max(0, all - (approved?.n ?? 0));
}
