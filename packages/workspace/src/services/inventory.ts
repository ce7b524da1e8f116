import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import { workspaceDrives, workspaceFiles, workspaceUsers, type Db } from "@posture/db";
import { iso } from "@posture/platform";
import { likePattern, orgTotals } from "./snapshots";

export const INVENTORY_TYPES = ["users", "files", "shared-drives"] as const;
export type TInventoryType = (typeof INVENTORY_TYPES)[number];

type TInventoryQuery = {
  orgId: string;
  type: TInventoryType;
  search?: string;
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
  const totals = await orgTotals(db, q.orgId);
  const term = q.search?.trim() ? likePattern(q.search.trim()) : null;
  const page = { limit: q.limit, offset: q.offset };

  if (q.type === "users") {
    const where = and(
      eq(workspaceUsers.orgId, q.orgId),
      term ? sql`lower(${workspaceUsers.email} || ' ' || ${workspaceUsers.name}) LIKE ${term}` : undefined,
    );
    const { rows, total } = await pageOf(db, workspaceUsers, q, {
      where,
      orderBy: [asc(workspaceUsers.email), asc(workspaceUsers.id)],
      total: term ? null : totals.users,
    });
    const m = totals.metrics;
    return {
      type: q.type,
      rows: rows.map((u) => ({
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
      total,
      ...page,
      metrics: metricsOf({
        total: totals.users,
        admins: m.admins,
        mfaCoveragePct: pct(m.mfaEnabled, totals.users),
        withoutMfa: totals.users - m.mfaEnabled,
        dormant: m.dormant,
        suspended: m.suspended,
      }),
    };
  }

  if (q.type === "files") {
    const where = and(
      eq(workspaceFiles.orgId, q.orgId),
      term
        ? sql`lower(${workspaceFiles.name} || ' ' || ${workspaceFiles.ownerEmail}) LIKE ${term}`
        : undefined,
    );
    const { rows, total } = await pageOf(db, workspaceFiles, q, {
      where,
      orderBy: [desc(workspaceFiles.modifiedAt), desc(workspaceFiles.id)],
      total: term ? null : totals.files,
    });
    const m = totals.metrics;
    return {
      type: q.type,
      rows: rows.map((f) => ({
        id: f.id,
        name: f.name,
        ownerEmail: f.ownerEmail,
        mimeType: f.mimeType,
        sharing: f.exposure,
        externalShares: f.externalPermissionCount,
        sensitivity: f.sensitivity,
        sharedDriveId: f.driveExternalId,
        sizeBytes: f.sizeBytes,
        modifiedAt: iso(f.modifiedAt),
        connectorId: f.connectorId,
      })),
      total,
      ...page,
      metrics: metricsOf({
        total: totals.files,
        public: m.filesPublic,
        external: m.filesExternal,
        internal: m.filesInternal,
        private: m.filesPrivate,
        sensitive: m.filesSensitive,
        externallySharedPct: pct(m.filesPublic + m.filesExternal, totals.files),
      }),
    };
  }

  const where = and(
    eq(workspaceDrives.orgId, q.orgId),
    term ? sql`lower(${workspaceDrives.name}) LIKE ${term}` : undefined,
  );
  const { rows, total } = await pageOf(db, workspaceDrives, q, {
    where,
    orderBy: [desc(workspaceDrives.externalMemberCount), asc(workspaceDrives.name), asc(workspaceDrives.id)],
    total: term ? null : totals.drives,
  });
  return {
    type: q.type,
    rows: rows.map((d) => ({
      id: d.id,
      name: d.name,
      memberCount: d.memberCount,
      externalMemberCount: d.externalMemberCount,
      restrictionStatus: restrictionStatus(d),
      filesCount: d.fileCount,
      securityStatus: securityStatus(d),
      connectorId: d.connectorId,
    })),
    total,
    ...page,
    metrics: metricsOf({
      total: totals.drives,
      withExternalMembers: totals.metrics.drivesWithExternalMembers,
      unrestricted: totals.metrics.drivesUnrestricted,
    }),
  };
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
 * One page in the given order, and the total: the snapshot's tally when there is one (no search),
 * else from the page's own statement (`count(*) OVER ()`), so a search's trigram scan runs once
 * rather than once for the page and again for a count. A page past the last match has no row to
 * carry the total; the matches are then counted on their own.
 */
async function pageOf<T extends TInventoryTable>(
  db: Db,
  table: T,
  q: { limit: number; offset: number },
  o: { where: SQL | undefined; orderBy: SQL[]; total: number | null },
): Promise<{ rows: Array<T["$inferSelect"]>; total: number }> {
  const source = table as TInventoryTable;
  if (o.total !== null) {
    const rows = await db
      .select()
      .from(source)
      .where(o.where)
      .orderBy(...o.orderBy)
      .limit(q.limit)
      .offset(q.offset);
    return { rows: rows as Array<T["$inferSelect"]>, total: o.total };
  }
  const found = await db
    .select({ row: source, total: sql<number>`count(*) OVER ()`.mapWith(Number) })
    .from(source)
    .where(o.where)
    .orderBy(...o.orderBy)
    .limit(q.limit)
    .offset(q.offset);
  const first = found[0];
  if (first) return { rows: found.map((f) => f.row as T["$inferSelect"]), total: first.total };
  if (q.offset === 0) return { rows: [], total: 0 };
  const [counted] = await db.select({ n: count() }).from(source).where(o.where);
  return { rows: [], total: counted?.n ?? 0 };
}
