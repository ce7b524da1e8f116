import { sql } from "drizzle-orm";
import type { TAppGrant, TSharedDrive, TSourceFile, TSourceUser, TWorkspace } from "@posture/connectors";
import {
  arrayLiteral,
  createWritePipeline,
  SEVERITY_RANK,
  type Db,
  type TExposure,
  type TShareType,
} from "@posture/db";
import { domainIn, emailDomain } from "@posture/platform";
import { affected, bulkInsert } from "./bulk-insert";
import {
  baseSeverity,
  classifyPermission,
  DORMANT_DAYS,
  ratedSeverity,
  riskRank,
  sensitivityOf,
  stableId,
  widerExposure,
  widerRole,
} from "./classify";
import { DRIVE_COLUMNS, FILE_COLUMNS, PERMISSION_COLUMNS, SHARE_COLUMNS, USER_COLUMNS } from "./columns";
import { finishSnapshot, type TSnapshotCounts } from "./finish-snapshot";
import { emptyMetrics, SHARE_METRIC, tallyFile } from "./metrics";
import { rowsOf } from "./rows";
import { openTransaction } from "./transaction";

export type TSnapshotScope = { orgId: string; connectorId: string; scanId: string; now: Date };

/**
 * `full`: the scan streams every resource; whatever the store held that it did not see is gone.
 * `incremental`: users and shared drives still come whole (pruned as in a full snapshot), files
 * only as the change feeds report them (`file` replaces a stored file with its permissions and
 * sharing items; the `remove…` calls delete); every other stored file stays as it is.
 */
export type TSnapshotMode = "full" | "incremental";

/** What a committed snapshot holds: the store's totals for the connector, and the files it removed. */
export type TSnapshotResult = TSnapshotCounts & {
  /** Source ids of the files this snapshot deleted (gone from the source); empty for a first snapshot. */
  removedFileIds: string[];
};

/**
 * Receives one scan's resources as the scan reads them. Each call may flush a batch to the
 * database (hence the promise); nothing is visible to readers until `commit`.
 */
export type TWorkspaceSink = {
  user: (user: TSourceUser) => Promise<void>;
  file: (file: TSourceFile) => Promise<void>;
  drive: (drive: TSharedDrive) => Promise<void>;
  grant: (grant: TAppGrant) => Promise<void>;
  /** Incremental snapshots only: a file gone from the source, with its permissions and sharing items. */
  removeFile: (sourceFileId: string) => Promise<void>;
  /** Incremental snapshots only: every personal-drive file of this owner not reported by `file` is gone. */
  removeOwner: (ownerEmail: string) => Promise<void>;
  /** Incremental snapshots only: every file of this shared drive not reported by `file` is gone. */
  removeDrive: (driveId: string) => Promise<void>;
  /**
   * Runs a statement of the caller's in the snapshot's transaction, in turn with the snapshot's
   * own writes: it becomes visible with the snapshot, or is rolled back with it.
   */
  write: (statement: (tx: Db) => Promise<void>) => Promise<void>;
  commit: () => Promise<TSnapshotResult>;
  abort: () => Promise<void>;
};

const BATCH = 2_000;
const DAY_MS = 86_400_000;

type TBuffer = {
  table: string;
  columns: typeof USER_COLUMNS;
  rows: unknown[][];
  computed?: Array<[string, string]>;
};

/** Tables of a snapshot, written by upsert and pruned to what this scan saw. */
export const SNAPSHOT_TABLES = [
  "workspace_users",
  "workspace_files",
  "workspace_permissions",
  "workspace_shares",
  "workspace_drives",
] as const;

/**
 * Opens the connector's next resource-store snapshot: one transaction that upserts this scan's
 * rows in batches as the source is streamed (memory stays flat whatever the workspace's size;
 * unchanged rows are not rewritten) and at the end deletes the rows the scan no longer saw.
 * Readers see the previous snapshot until the commit.
 */
export async function openWorkspaceSnapshot(
  db: Db,
  scope: TSnapshotScope & { workspace: TWorkspace; mode?: TSnapshotMode },
): Promise<TWorkspaceSink> {
  const open = openTransaction(db);
  const tx = await open.tx;
  const { orgId, connectorId, now } = scope;
  let fresh = false;
  try {
    // Two scans of one connector take turns; the second then brings the first's snapshot up to date.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`workspace:${connectorId}`}))`);
    fresh = await isEmpty(tx, connectorId);
    // The ids this snapshot wrote, per table: whatever else the connector had is gone at the source.
    // A first snapshot has nothing to prune, so it keeps no list.
    if (!fresh) {
      await tx.execute(
        sql`CREATE TEMP TABLE snapshot_seen (tbl text NOT NULL, id text NOT NULL) ON COMMIT DROP`,
      );
    }
  } catch (err) {
    await open.rollback();
    throw err;
  }
  const trustedRows = await tx.execute<{ domain: string }>(
    sql`SELECT domain FROM trusted_domains WHERE org_id = ${orgId}`,
  );
  const trusted = new Set(rowsOf<{ domain: string }>(trustedRows).map((r) => r.domain.toLowerCase()));
  const internal = new Set(scope.workspace.internalDomains.map((d) => d.toLowerCase()));

  const buffers: Record<string, TBuffer> = {
    users: { table: "workspace_users", columns: USER_COLUMNS, rows: [] },
    files: {
      table: "workspace_files",
      columns: FILE_COLUMNS,
      rows: [],
      computed: [["labels", `CASE WHEN u."_label" IS NULL THEN '{}'::text[] ELSE ARRAY[u."_label"] END`]],
    },
    permissions: { table: "workspace_permissions", columns: PERMISSION_COLUMNS, rows: [] },
    shares: {
      table: "workspace_shares",
      columns: SHARE_COLUMNS,
      rows: [],
      computed: [
        [
          "target_domains",
          `CASE WHEN u."_domain_list" = '' THEN '{}'::text[] ELSE string_to_array(u."_domain_list", ',') END`,
        ],
      ],
    },
    drives: {
      table: "workspace_drives",
      columns: DRIVE_COLUMNS,
      rows: [],
      computed: [["members", `u."_members"::jsonb`]],
    },
  };
  const counts: TSnapshotCounts = { users: 0, files: 0, drives: 0, permissions: 0, shares: 0, grants: 0 };
  const metrics = emptyMetrics();
  const externalByOwner = new Map<string, number>();
  const grants: TAppGrant[] = [];

  let changed = 0;
  // The next batch is built while the database writes this one.
  const pipeline = createWritePipeline();
  const flush = async (b: TBuffer) => {
    // A resource read twice (a page re-read) is written once: an upsert may not touch a row twice.
    const rows = [...new Map(b.rows.map((r) => [r[0] as string, r])).values()];
    b.rows = [];
    if (rows.length === 0) return;
    await pipeline.send(async () => {
      changed += await bulkInsert(tx, b.table, b.columns, rows, {
        computed: b.computed,
        upsert: fresh ? "all" : "changed",
      });
      if (fresh) return;
      await tx.execute(
        sql`INSERT INTO snapshot_seen (tbl, id) SELECT ${b.table}, unnest(${arrayLiteral(rows.map((r) => r[0]))}::text[])`,
      );
    });
  };
  const push = async (b: TBuffer, row: unknown[]) => {
    b.rows.push(row);
    if (b.rows.length >= BATCH) await flush(b);
  };

  return {
    user: async (u) => {
      counts.users++;
      const lastMs = u.lastLoginAt ? Date.parse(u.lastLoginAt) : null;
      // A source that could not say when the user last signed in (no licence or permission for
      // it) leaves idleness unknown: counting from creation would call every old account dormant.
      const sinceMs = u.unknown?.includes("lastLogin") ? NaN : (lastMs ?? Date.parse(u.createdAt));
      const idleDays = Number.isFinite(sinceMs)
        ? Math.max(0, Math.floor((now.getTime() - sinceMs) / DAY_MS))
        : null;
      const dormant = !u.suspended && idleDays !== null && idleDays >= DORMANT_DAYS;
      if (u.isAdmin) metrics.admins++;
      const mfa = u.unknown?.includes("mfa") ? null : u.mfaEnabled;
      if (mfa === null) metrics.mfaUnknown++;
      else if (mfa) metrics.mfaEnabled++;
      if (dormant) metrics.dormant++;
      if (u.suspended) metrics.suspended++;
      await push(buffers.users as TBuffer, [
        stableId("wsu", connectorId, u.id),
        orgId,
        connectorId,
        u.id,
        u.email.toLowerCase(),
        u.name,
        u.isAdmin,
        mfa,
        u.suspended ? "suspended" : "active",
        u.lastLoginAt,
        u.createdAt,
        dormant,
        idleDays,
      ]);
    },
    file: async (f) => {
      counts.files++;
      const fileId = stableId("wsf", connectorId, f.id);
      const owner = f.ownerEmail.toLowerCase();
      const label = f.label?.trim() || null;
      const sensitivity = sensitivityOf(f.name, label === null ? [] : [label]);
      let exposure: TExposure = "private";
      let externalCount = 0;
      const byType = new Map<TShareType, { role: string; targets: string[]; domains: Set<string> }>();
      for (const p of f.permissions) {
        // The owner's own grant is the file's owner column, not a share.
        if (p.role === "owner" || (p.type === "user" && p.emailAddress?.toLowerCase() === owner)) continue;
        const c = classifyPermission(p, internal);
        counts.permissions++;
        await push(buffers.permissions as TBuffer, [
          stableId("wsp", connectorId, `${f.id}/${p.id}`),
          orgId,
          connectorId,
          fileId,
          p.id,
          c.sharingType,
          c.target,
          p.role,
          c.domain,
        ]);
        if (c.sharingType === "internal") {
          exposure = widerExposure(exposure, "internal");
          continue;
        }
        exposure = widerExposure(exposure, c.sharingType === "public" ? "public" : "external");
        externalCount++;
        const item = byType.get(c.sharingType) ?? { role: "reader", targets: [], domains: new Set<string>() };
        item.role = widerRole(item.role, p.role);
        item.targets.push(c.target);
        if (c.domain) item.domains.add(c.domain);
        byType.set(c.sharingType, item);
      }
      if (externalCount > 0) externalByOwner.set(owner, (externalByOwner.get(owner) ?? 0) + 1);
      tallyFile(metrics, exposure, sensitivity, label !== null);
      for (const [type, item] of byType) {
        counts.shares++;
        metrics[SHARE_METRIC[type]]++;
        const domains = [...item.domains].sort();
        const base = baseSeverity(type, item.role, sensitivity);
        const severity = ratedSeverity(base, domains, trusted);
        // One address or domain (the first of the sorted outside targets); the list itself is
        // read from the permissions when the items are (`targets[]` of GET /sharing/items).
        const targets = [...new Set(item.targets)].sort();
        const target = targets[0] ?? "";
        await push(buffers.shares as TBuffer, [
          `${fileId}|${type}`,
          orgId,
          connectorId,
          fileId,
          f.id,
          f.name,
          owner,
          type,
          target,
          targets.length,
          domains.join(","),
          item.role,
          sensitivity,
          base,
          severity,
          SEVERITY_RANK[severity],
          riskRank(severity, sensitivity, type, targets.length),
        ]);
      }
      await push(buffers.files as TBuffer, [
        fileId,
        orgId,
        connectorId,
        f.id,
        f.name,
        f.mimeType,
        owner,
        f.driveId,
        sensitivity,
        exposure,
        externalCount,
        f.sizeBytes,
        f.modifiedAt,
        label,
      ]);
    },
    drive: async (d) => {
      counts.drives++;
      const members = d.members.map((m) => {
        const domain = emailDomain(m.email);
        return {
          email: m.email.toLowerCase(),
          role: m.role,
          external: domain !== null && !domainIn(internal, domain),
        };
      });
      if (members.some((m) => m.external)) metrics.drivesWithExternalMembers++;
      if (!d.restrictions.domainUsersOnly) metrics.drivesUnrestricted++;
      await push(buffers.drives as TBuffer, [
        stableId("wsd", connectorId, d.id),
        orgId,
        connectorId,
        d.id,
        d.name,
        JSON.stringify(members),
        members.length,
        members.filter((m) => m.external).length,
        d.restrictions.domainUsersOnly,
        d.restrictions.driveMembersOnly,
        d.restrictions.copyRequiresWriterPermission,
        d.fileCount,
      ]);
    },
    grant: async (g) => {
      counts.grants++;
      grants.push(g);
    },
    removeFile: () => Promise.reject(new Error("incremental snapshots: not yet")),
    removeOwner: () => Promise.reject(new Error("incremental snapshots: not yet")),
    removeDrive: () => Promise.reject(new Error("incremental snapshots: not yet")),
    write: (statement) => pipeline.send(() => statement(tx)),
    commit: async () => {
      try {
        for (const b of Object.values(buffers)) await flush(b);
        await pipeline.drain();
        if (!fresh) changed += await pruneUnseen(tx, connectorId);
        const totals = await open.commit((t) =>
          finishSnapshot(t, { ...scope, counts, metrics, externalByOwner, grants, changed }),
        );
        return { ...totals, removedFileIds: [] };
      } catch (err) {
        await open.rollback();
        throw err;
      }
    },
    abort: () => open.rollback(),
  };
}

/** Whether the connector has no stored rows yet (its first snapshot, or one after a disconnect). */
async function isEmpty(tx: Db, connectorId: string): Promise<boolean> {
  const probes = SNAPSHOT_TABLES.map(
    (table) => sql`EXISTS (SELECT 1 FROM ${sql.raw(table)} WHERE connector_id = ${connectorId})`,
  );
  const rows = rowsOf<{ stored: boolean }>(
    await tx.execute(sql`SELECT (${sql.join(probes, sql` OR `)}) AS stored`),
  );
  return rows[0]?.stored === false;
}

/** Deletes the connector's rows this snapshot did not write; returns how many. */
async function pruneUnseen(tx: Db, connectorId: string): Promise<number> {
  await tx.execute(sql`ANALYZE snapshot_seen`);
  let deleted = 0;
  for (const table of SNAPSHOT_TABLES) {
    deleted += affected(
      await tx.execute(sql`
        DELETE FROM ${sql.raw(table)} t WHERE t.connector_id = ${connectorId}
          AND NOT EXISTS (SELECT 1 FROM snapshot_seen s WHERE s.tbl = ${table} AND s.id = t.id)`),
    );
  }
  return deleted;
}
