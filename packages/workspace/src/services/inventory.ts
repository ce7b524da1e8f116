import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import { orgFindingCounts, workspaceDrives, workspaceFiles, workspaceUsers, type Db } from "@posture/db";
import { iso, offsetPage } from "@posture/platform";
import { GITHUB_REPOSITORY_MIME } from "@posture/connectors";
import { likePattern, orgTotals } from "./snapshots";

export const INVENTORY_TYPES = ["users", "files", "shared-drives", "repositories"] as const;
export type TInventoryType = (typeof INVENTORY_TYPES)[number];

type TInventoryQuery = {
  orgId: string;
  type: TInventoryType;
  search?: string;
  /** Files only: the sensitivity label's name, matched case-insensitively. */
  label?: string;
  /** Files only: keep the files reaching the whole organization (true) or not (false). */
  orgWide?: boolean;
  /** Files only: keep the files at least this many people can open. */
  minReach?: number;
  limit: number;
  offset: number;
};

const metricsOf = (m: Record<string, number>): Record<string, number> => m;
const pct = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10);

/**
 * One page of the organization's users, files or shared drives. Search is a case-insensitive
 * substring over the same expressions the trigram indexes of migration 0008 cover; without a
 * search the total comes from the snapshot tallies rather than a count.
 */
export async function getInventory(db: Db, q: TInventoryQuery) {
  const totals = await orgTotals(db, { orgId: q.orgId });
  const term = q.search?.trim() ? likePattern(q.search.trim()) : null;
  const page = { limit: q.limit, offset: q.offset };
  const label = q.label?.trim() || null;

  if (q.type === "users") {
    const where = and(
      eq(workspaceUsers.orgId, q.orgId),
      term ? sql`lower(${workspaceUsers.email} || ' ' || ${workspaceUsers.name}) LIKE ${term}` : undefined,
    );
    const [rows, counted] = await Promise.all([
      db
        .select()
        .from(workspaceUsers)
        .where(where)
        .orderBy(asc(workspaceUsers.email), asc(workspaceUsers.id))
        .limit(q.limit)
        .offset(q.offset),
      term ? estimateWhere(db, workspaceUsers, where) : exactly(totals.users),
    ]);
    const { total, totalEstimated } = await settleTotal(
      db,
      workspaceUsers,
      where,
      rows.length,
      page,
      counted,
    );
    const m = totals.metrics;
    return {
      type: q.type,
      totalEstimated,
      ...offsetPage(
        rows.map((u) => ({
          id: u.id,
          email: u.email,
          name: u.name,
          isAdmin: u.isAdmin,
          mfaEnabled: u.mfaEnabled,
          status: u.status,
          lastSignInAt: u.lastLoginAt ? iso(u.lastLoginAt) : null,
          dormant: u.dormant,
          externalSharesOwned: u.externalSharesOwned,
          connectorId: u.connectorId,
        })),
        { total, ...page },
      ),
      metrics: metricsOf({
        total: totals.users,
        admins: m.admins,
        // Over the users whose MFA the source could read; `mfaUnknown` counts the others.
        mfaCoveragePct: pct(m.mfaEnabled, totals.users - m.mfaUnknown),
        withoutMfa: totals.users - m.mfaEnabled - m.mfaUnknown,
        mfaUnknown: m.mfaUnknown,
        dormant: m.dormant,
        suspended: m.suspended,
      }),
    };
  }

  if (q.type === "repositories") return repositoryInventory(db, q, term);

  if (q.type === "files") {
    const where = and(
      eq(workspaceFiles.orgId, q.orgId),
      term
        ? sql`lower(${workspaceFiles.name} || ' ' || ${workspaceFiles.ownerEmail}) LIKE ${term}`
        : undefined,
      label
        ? sql`EXISTS (SELECT 1 FROM unnest(${workspaceFiles.labels}) l WHERE lower(l) = ${label.toLowerCase()})`
        : undefined,
      q.orgWide === undefined ? undefined : eq(workspaceFiles.reachOrgWide, q.orgWide),
      q.minReach === undefined ? undefined : sql`${workspaceFiles.reachPeople} >= ${q.minReach}`,
    );
    const filtered = term || label || q.orgWide !== undefined || q.minReach !== undefined;
    const [rows, counted, internalFindings] = await Promise.all([
      db
        .select()
        .from(workspaceFiles)
        .where(where)
        .orderBy(desc(workspaceFiles.modifiedAt), desc(workspaceFiles.id))
        .limit(q.limit)
        .offset(q.offset),
      filtered ? estimateWhere(db, workspaceFiles, where) : exactly(totals.files),
      openInternalExposure(db, q.orgId),
    ]);
    const { total, totalEstimated } = await settleTotal(
      db,
      workspaceFiles,
      where,
      rows.length,
      page,
      counted,
    );
    const m = totals.metrics;
    return {
      type: q.type,
      totalEstimated,
      ...offsetPage(
        rows.map((f) => ({
          id: f.id,
          name: f.name,
          ownerEmail: f.ownerEmail,
          mimeType: f.mimeType,
          sharing: f.exposure,
          externalShares: f.externalPermissionCount,
          sensitivity: f.sensitivity,
          label: f.labels[0] ?? null,
          sharedDriveId: f.driveExternalId,
          sizeBytes: f.sizeBytes,
          modifiedAt: iso(f.modifiedAt),
          reach: { people: f.reachPeople, orgWide: f.reachOrgWide },
          connectorId: f.connectorId,
        })),
        { total, ...page },
      ),
      metrics: metricsOf({
        total: totals.files,
        public: m.filesPublic,
        external: m.filesExternal,
        internal: m.filesInternal,
        private: m.filesPrivate,
        sensitive: m.filesSensitive,
        labelled: m.filesLabelled,
        sensitiveLabelled: m.filesSensitiveLabelled,
        externallySharedPct: pct(m.filesPublic + m.filesExternal, totals.files),
        // Issue 30: what everyone inside, and so every AI assistant, can open.
        orgWide: m.filesOrgWide,
        orgWideSensitive: m.filesSensitiveOrgWide,
        orgWidePct: pct(m.filesOrgWide, totals.files),
        internalExposureFindings: internalFindings,
      }),
    };
  }

  const where = and(
    eq(workspaceDrives.orgId, q.orgId),
    term ? sql`lower(${workspaceDrives.name}) LIKE ${term}` : undefined,
  );
  const [rows, counted] = await Promise.all([
    db
      .select()
      .from(workspaceDrives)
      .where(where)
      .orderBy(desc(workspaceDrives.externalMemberCount), asc(workspaceDrives.name), asc(workspaceDrives.id))
      .limit(q.limit)
      .offset(q.offset),
    term ? estimateWhere(db, workspaceDrives, where) : exactly(totals.drives),
  ]);
  const { total, totalEstimated } = await settleTotal(db, workspaceDrives, where, rows.length, page, counted);
  return {
    type: q.type,
    totalEstimated,
    ...offsetPage(
      rows.map((d) => ({
        id: d.id,
        name: d.name,
        memberCount: d.memberCount,
        externalMemberCount: d.externalMemberCount,
        restrictionStatus: restrictionStatus(d),
        filesCount: d.fileCount,
        securityStatus: securityStatus(d),
        connectorId: d.connectorId,
      })),
      { total, ...page },
    ),
    metrics: metricsOf({
      total: totals.drives,
      withExternalMembers: totals.metrics.drivesWithExternalMembers,
      unrestricted: totals.metrics.drivesUnrestricted,
    }),
  };
}

/**
 * The source-code repositories of the organization's GitHub connectors (issue 31): stored as the
 * store's files (mimeType `application/vnd.github.repository`), so a repository's visibility is
 * its exposure (public: a public link; internal: everyone in the organization; private) and its
 * outside collaborators are its external shares. Ordered by last push, newest first; `total` is
 * counted (an organization's repositories are thousands, not millions).
 */
async function repositoryInventory(db: Db, q: TInventoryQuery, term: string | null) {
  const where = and(
    eq(workspaceFiles.orgId, q.orgId),
    eq(workspaceFiles.mimeType, GITHUB_REPOSITORY_MIME),
    term ? sql`lower(${workspaceFiles.name}) LIKE ${term}` : undefined,
  );
  const [rows, [counts]] = await Promise.all([
    db
      .select()
      .from(workspaceFiles)
      .where(where)
      .orderBy(desc(workspaceFiles.modifiedAt), desc(workspaceFiles.id))
      .limit(q.limit)
      .offset(q.offset),
    db
      .select({
        total: count(),
        public: sql<number>`count(*) FILTER (WHERE ${workspaceFiles.exposure} = 'public')::int`,
        internal: sql<number>`count(*) FILTER (WHERE ${workspaceFiles.reachOrgWide} AND ${workspaceFiles.exposure} <> 'public')::int`,
        withOutsideCollaborators: sql<number>`count(*) FILTER (WHERE ${workspaceFiles.externalPermissionCount} > (CASE WHEN ${workspaceFiles.exposure} = 'public' THEN 1 ELSE 0 END))::int`,
        sensitive: sql<number>`count(*) FILTER (WHERE ${workspaceFiles.sensitivity} = 'high')::int`,
      })
      .from(workspaceFiles)
      .where(where),
  ]);
  const total = Number(counts?.total ?? 0);
  return {
    type: q.type,
    totalEstimated: false,
    ...offsetPage(
      rows.map((f) => ({
        id: f.id,
        name: f.name,
        visibility:
          f.exposure === "public"
            ? ("public" as const)
            : f.reachOrgWide
              ? ("internal" as const)
              : ("private" as const),
        // The external permissions less the public visibility (a public link, counted there too).
        outsideCollaborators: f.externalPermissionCount - (f.exposure === "public" ? 1 : 0),
        sensitivity: f.sensitivity,
        signal: f.labels[0] ?? null,
        pushedAt: iso(f.modifiedAt),
        reach: { people: f.reachPeople, orgWide: f.reachOrgWide },
        connectorId: f.connectorId,
      })),
      { total, limit: q.limit, offset: q.offset },
    ),
    metrics: metricsOf({
      total,
      public: Number(counts?.public ?? 0),
      internal: Number(counts?.internal ?? 0),
      withOutsideCollaborators: Number(counts?.withOutsideCollaborators ?? 0),
      sensitive: Number(counts?.sensitive ?? 0),
    }),
  };
}

/**
 * Open findings of category `internal_exposure` (organization-wide links, everyone grants, broad
 * group grants): the trigger-kept counts of migration 0023, at most four rows, never the findings.
 */
async function openInternalExposure(db: Db, orgId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`coalesce(sum(${orgFindingCounts.open}), 0)::int` })
    .from(orgFindingCounts)
    .where(and(eq(orgFindingCounts.orgId, orgId), eq(orgFindingCounts.category, "internal_exposure")));
  return Number(row?.n ?? 0);
}

type TDriveFlags = { domainUsersOnly: boolean; driveMembersOnly: boolean; externalMemberCount: number };

/** `restricted` (domain users and members only), `partial` (one of the two) or `open`. */
export function restrictionStatus(d: TDriveFlags): "restricted" | "partial" | "open" {
  if (d.domainUsersOnly && d.driveMembersOnly) return "restricted";
  return d.domainUsersOnly || d.driveMembersOnly ? "partial" : "open";
}

/** `at_risk`: outsiders in a drive open to outsiders; `review`: outsiders or no restriction; else `ok`. */
export function securityStatus(d: TDriveFlags): "at_risk" | "review" | "ok" {
  if (d.externalMemberCount > 0 && !d.domainUsersOnly) return "at_risk";
  return d.externalMemberCount > 0 || restrictionStatus(d) === "open" ? "review" : "ok";
}

type TInventoryTable = typeof workspaceUsers | typeof workspaceFiles | typeof workspaceDrives;

/**
 * Past this many matches (by the planner's estimate) a searched page's `total` is the estimate:
 * counting a common phrase's matches in a million files rechecks every one of them through the
 * trigram index (≈ 14,000 rows, 60–120 ms at 1M, issue 15), ten times the page itself. Below it
 * the count is exact and cheap.
 */
export const EXACT_COUNT_UP_TO = 5_000;

/** A total, and whether it is the planner's estimate rather than a count. */
type TTotal = { total: number; totalEstimated: boolean };
type TCounted = { exact: number } | { estimate: number };

const exactly = async (n: number): Promise<TCounted> => ({ exact: n });

/** The planner's estimate of the matching rows: EXPLAIN's plan rows, a planning's cost, no scan. */
async function estimateWhere(db: Db, table: TInventoryTable, where: SQL | undefined): Promise<TCounted> {
  const plan = rowsOf<{ "QUERY PLAN": Array<{ Plan: { "Plan Rows": number } }> | string }>(
    await db.execute(
      sql`EXPLAIN (FORMAT JSON) ${db
        .select({ one: sql`1` })
        .from(table)
        .where(where)}`,
    ),
  );
  const raw = plan[0]?.["QUERY PLAN"];
  const parsed =
    typeof raw === "string" ? (JSON.parse(raw) as Array<{ Plan: { "Plan Rows": number } }>) : raw;
  return { estimate: Math.max(0, Math.round(parsed?.[0]?.Plan["Plan Rows"] ?? 0)) };
}

/**
 * A searched page's total: exact whenever it costs nothing more (a short page ends the matches at
 * `offset + rows`) or little (an estimate under EXACT_COUNT_UP_TO: counted), else the estimate,
 * raised to at least one past the page so that `nextOffset` still leads on. Paging stays exact:
 * the last page is always a short one.
 */
async function settleTotal(
  db: Db,
  table: TInventoryTable,
  where: SQL | undefined,
  rows: number,
  page: { limit: number; offset: number },
  counted: TCounted,
): Promise<TTotal> {
  if ("exact" in counted) return { total: counted.exact, totalEstimated: false };
  if (rows < page.limit && (rows > 0 || page.offset === 0))
    return { total: page.offset + rows, totalEstimated: false };
  if (counted.estimate < EXACT_COUNT_UP_TO || rows === 0) {
    const [row] = await db.select({ n: count() }).from(table).where(where);
    return { total: row?.n ?? 0, totalEstimated: false };
  }
  return { total: Math.max(counted.estimate, page.offset + rows + 1), totalEstimated: true };
}

function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
