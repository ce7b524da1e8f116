import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import { workspaceDrives, workspaceFiles, workspaceUsers, type Db } from "@posture/db";
import { iso, offsetPage } from "@posture/platform";
import { likePattern, orgTotals } from "./snapshots";

export const INVENTORY_TYPES = ["users", "files", "shared-drives"] as const;
export type TInventoryType = (typeof INVENTORY_TYPES)[number];

type TInventoryQuery = {
  orgId: string;
  type: TInventoryType;
  search?: string;
  /** Files only: the sensitivity label's name, matched case-insensitively. */
  label?: string;
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
  const label = q.label?.trim() || null;

  if (q.type === "users") {
    const where = and(
      eq(workspaceUsers.orgId, q.orgId),
      term ? sql`lower(${workspaceUsers.email} || ' ' || ${workspaceUsers.name}) LIKE ${term}` : undefined,
    );
    const [rows, total] = await Promise.all([
      db
        .select()
        .from(workspaceUsers)
        .where(where)
        .orderBy(asc(workspaceUsers.email), asc(workspaceUsers.id))
        .limit(q.limit)
        .offset(q.offset),
      term ? countWhere(db, workspaceUsers, where) : totals.users,
    ]);
    const m = totals.metrics;
    return {
      type: q.type,
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

  if (q.type === "files") {
    const where = and(
      eq(workspaceFiles.orgId, q.orgId),
      term
        ? sql`lower(${workspaceFiles.name} || ' ' || ${workspaceFiles.ownerEmail}) LIKE ${term}`
        : undefined,
      label
        ? sql`EXISTS (SELECT 1 FROM unnest(${workspaceFiles.labels}) l WHERE lower(l) = ${label.toLowerCase()})`
        : undefined,
    );
    const [rows, total] = await Promise.all([
      db
        .select()
        .from(workspaceFiles)
        .where(where)
        .orderBy(desc(workspaceFiles.modifiedAt), desc(workspaceFiles.id))
        .limit(q.limit)
        .offset(q.offset),
      term || label ? countWhere(db, workspaceFiles, where) : totals.files,
    ]);
    const m = totals.metrics;
    return {
      type: q.type,
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
      }),
    };
  }

  const where = and(
    eq(workspaceDrives.orgId, q.orgId),
    term ? sql`lower(${workspaceDrives.name}) LIKE ${term}` : undefined,
  );
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(workspaceDrives)
      .where(where)
      .orderBy(desc(workspaceDrives.externalMemberCount), asc(workspaceDrives.name), asc(workspaceDrives.id))
      .limit(q.limit)
      .offset(q.offset),
    term ? countWhere(db, workspaceDrives, where) : totals.drives,
  ]);
  return {
    type: q.type,
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

async function countWhere(
  db: Db,
  table: typeof workspaceUsers | typeof workspaceFiles | typeof workspaceDrives,
  where: SQL | undefined,
): Promise<number> {
  const [row] = await db.select({ n: count() }).from(table).where(where);
  return row?.n ?? 0;
}
