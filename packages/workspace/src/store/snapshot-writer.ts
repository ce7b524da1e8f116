import { sql } from "drizzle-orm";
import {
  groupsByEmail,
  type TAppGrant,
  type TSharedDrive,
  type TSourceFile,
  type TSourceGroup,
  type TSourceUser,
  type TWorkspace,
} from "@posture/connectors";
import {
  arrayLiteral,
  CONNECTOR_PARTITIONED,
  createWritePipeline,
  type Db,
  type TLockRetry,
  type TPartitionedTable,
  type TStoreVersion,
  workspaceGroups,
} from "@posture/db";
import { domainIn, emailDomain } from "@posture/platform";
import { affected, bulkInsert } from "./bulk-insert";
import { DORMANT_DAYS, stableId } from "./classify";
import {
  DRIVE_COLUMNS,
  DRIVE_COMPUTED,
  FILE_COLUMNS,
  FILE_COMPUTED,
  PERMISSION_COLUMNS,
  SHARE_COLUMNS,
  SHARE_COMPUTED,
  USER_COLUMNS,
  USER_COMPUTED,
} from "./columns";
import { fileRows, type TFileContext, type TFileRows } from "./file-rows";
import { finishSnapshot, type TSnapshotCounts } from "./finish-snapshot";
import { createFileChanges } from "./incremental-files";
import {
  emptyMetrics,
  FILE_METRIC_KEYS,
  METRIC_KEYS,
  SHARE_METRIC,
  tallyFile,
  type TSnapshotMetrics,
} from "./metrics";
import { storedFileTotals, type TFileMetrics, type TFileTotals } from "./metrics-sql";
import { rowsOf } from "./rows";
import { canStage, openStagedLoad, partitionMinFiles, type TStagedLoad } from "./staged-load";
import { readStoredDigests, type TStoredDigests } from "./stored-digests";
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
  /**
   * The store's version before and after this snapshot (null before: none yet), and whether it
   * changed any file, permission or shared drive: an AI reach refresh (`TAiReachCarry`) with the
   * files unchanged and the directory equal carries the rows of before to after.
   */
  storeBefore: TStoreVersion | null;
  storeAfter: TStoreVersion;
  filesChanged: boolean;
};

/** The tables reach is computed from besides the directory. */
const REACH_TABLES = ["workspace_files", "workspace_permissions", "workspace_drives"] as const;

async function storeVersionOf(tx: Db, connectorId: string): Promise<TStoreVersion | null> {
  const [row] = rowsOf<{ scan_id: string | null; store_version: number }>(
    await tx.execute(
      sql`SELECT scan_id, store_version FROM workspace_snapshots WHERE connector_id = ${connectorId}`,
    ),
  );
  return row ? { scanId: row.scan_id, storeVersion: Number(row.store_version) } : null;
}

/** The version the snapshot's last statements left (a store written without a row: -1, as the reach reads it). */
const versionAfter = async (tx: Db, connectorId: string): Promise<TStoreVersion> =>
  (await storeVersionOf(tx, connectorId)) ?? { scanId: null, storeVersion: -1 };

/**
 * Receives one scan's resources as the scan reads them. Each call may flush a batch to the
 * database (hence the promise); nothing is visible to readers until `commit`.
 */
export type TWorkspaceSink = {
  user: (user: TSourceUser) => Promise<void>;
  /**
   * The directory's groups, read whole, before the files (issue 30): stored in place of the
   * connector's previous ones, and used for the files' reach.
   */
  groups: (groups: readonly TSourceGroup[]) => Promise<void>;
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
  computed?: ReadonlyArray<readonly [string, string]>;
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
  scope: TSnapshotScope & {
    workspace: TWorkspace;
    mode?: TSnapshotMode;
    /**
     * A first snapshot with at least this many files keeps partitions of its own (default
     * `partitionMinFiles()`: 20,000, or POSTURE_PARTITION_MIN_FILES).
     */
    partitionMinFiles?: number;
    /** How long, how often the commit tries to attach them (tests: `staged-load.ts` has the default). */
    attachRetry?: TLockRetry;
  },
): Promise<TWorkspaceSink> {
  const incremental = scope.mode === "incremental";
  const open = openTransaction(db);
  const tx = await open.tx;
  const { orgId, connectorId, now } = scope;
  let fresh = false;
  let staged: TStagedLoad | null = null;
  let storeBefore: TStoreVersion | null = null;
  let digests: TStoredDigests | null = null;
  try {
    // Two scans of one connector take turns; the second then brings the first's snapshot up to date.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`workspace:${connectorId}`}))`);
    storeBefore = await storeVersionOf(tx, connectorId);
    // An incremental snapshot upserts even into an empty store: a file may be reported twice.
    fresh = !incremental && (await isEmpty(tx, connectorId));
    // A first snapshot on node-postgres loads the large tables into tables of its own, indexed
    // once at the end (docs/decisions.md, "partitions for first loads").
    if (fresh && canStage(tx)) staged = await openStagedLoad(tx, connectorId);
    // The ids this snapshot wrote, per table: whatever else the connector had is gone at the source.
    // A first snapshot has nothing to prune, so it keeps no list; an incremental one prunes only
    // users and drives (a few thousand ids), kept in memory.
    // A full rescan's files are compared with the stored ones' digests in memory: only changed,
    // new and gone files go to the database (`readStoredDigests`); users and drives by this list.
    if (!fresh && !incremental) {
      await tx.execute(
        sql`CREATE TEMP TABLE snapshot_seen (tbl text NOT NULL, id text NOT NULL) ON COMMIT DROP`,
      );
      digests = await readStoredDigests(tx, connectorId);
    }
  } catch (err) {
    await open.rollback();
    throw err;
  }
  const trustedRows = await tx.execute<{ domain: string }>(
    sql`SELECT domain FROM trusted_domains WHERE org_id = ${orgId}`,
  );
  const internal = new Set(scope.workspace.internalDomains.map((d) => d.toLowerCase()));
  // Reach (issue 30): the tenant's people are its active users as this snapshot reads them (all
  // of them, before the files, in both modes); groups as `groups` gives them.
  const people = new Set<string>();
  const groupMap = new Map<string, TSourceGroup>();
  const ctx: TFileContext = {
    orgId,
    connectorId,
    trusted: new Set(rowsOf<{ domain: string }>(trustedRows).map((r) => r.domain.toLowerCase())),
    internal,
    directory: {
      internal: { has: (d) => domainIn(internal, d) },
      groups: groupMap,
      peopleCount: () => people.size,
    },
  };

  const buffers: Record<string, TBuffer> = {
    users: {
      table: "workspace_users",
      columns: USER_COLUMNS,
      rows: [],
      computed: USER_COMPUTED,
    },
    files: { table: "workspace_files", columns: FILE_COLUMNS, rows: [], computed: FILE_COMPUTED },
    permissions: { table: "workspace_permissions", columns: PERMISSION_COLUMNS, rows: [] },
    shares: { table: "workspace_shares", columns: SHARE_COLUMNS, rows: [], computed: SHARE_COMPUTED },
    drives: { table: "workspace_drives", columns: DRIVE_COLUMNS, rows: [], computed: DRIVE_COMPUTED },
  };
  const counts: TSnapshotCounts = { users: 0, files: 0, drives: 0, permissions: 0, shares: 0, grants: 0 };
  const metrics = emptyMetrics();
  const externalByOwner = new Map<string, number>();
  const grants: TAppGrant[] = [];

  /** Incremental: the user and drive ids written (their tables' only rows pruned). */
  const seen: string[] = [];
  let changed = 0;
  const changedIn: Record<string, number> = {};
  // The next batch is built while the database writes this one.
  const pipeline = createWritePipeline();
  const flush = async (b: TBuffer) => {
    // A resource read twice (a page re-read) is written once: an upsert may not touch a row twice.
    const rows = [...new Map(b.rows.map((r) => [r[0] as string, r])).values()];
    b.rows = [];
    if (rows.length === 0) return;
    await pipeline.send(async () => {
      const n =
        staged && isPartitioned(b.table)
          ? await staged.write(b.table, b.columns, rows, b.computed)
          : await bulkInsert(tx, b.table, b.columns, rows, {
              computed: b.computed,
              upsert: fresh ? "all" : "changed",
            });
      changed += n;
      changedIn[b.table] = (changedIn[b.table] ?? 0) + n;
      if (fresh) return;
      if (incremental) {
        for (const r of rows) seen.push(r[0] as string);
        return;
      }
      await tx.execute(
        sql`INSERT INTO snapshot_seen (tbl, id) SELECT ${b.table}, unnest(${arrayLiteral(rows.map((r) => r[0]))}::text[])`,
      );
    });
  };
  const push = async (b: TBuffer, row: unknown[]) => {
    b.rows.push(row);
    if (b.rows.length >= BATCH) await flush(b);
  };

  // Incremental: the files reported since the last flush, by source id (the last report wins;
  // null: removed), then the owners and shared drives gone.
  const changes = createFileChanges(tx, connectorId);
  let pending = new Map<string, TFileRows | null>();
  const reported = new Set<string>();
  const goneOwners = new Set<string>();
  const goneDrives = new Set<string>();
  let fileCalls = 0;
  const flushChanges = async () => {
    if (pending.size === 0) return;
    const entries = [...pending];
    pending = new Map();
    await pipeline.send(() => changes.apply(entries));
  };
  const queueChange = async (sourceId: string, rows: TFileRows | null) => {
    // Re-inserted so that the map's order stays the order of last reports.
    pending.delete(sourceId);
    pending.set(sourceId, rows);
    if (pending.size >= BATCH) await flushChanges();
  };
  const change = async (sourceId: string, rows: TFileRows | null) => {
    if (!incremental) throw new Error("file removals are for incremental snapshots");
    fileCalls++;
    await queueChange(sourceId, rows);
  };

  /** The file totals after an incremental snapshot: the stored ones plus its changes. */
  const incrementalTotals = async (): Promise<{ totals: TFileTotals; stored: TStoredRow | null }> => {
    const [stored] = rowsOf<TStoredRow>(
      await tx.execute(sql`
        SELECT users, files, drives, permissions, shares, grants, metrics
        FROM workspace_snapshots WHERE connector_id = ${connectorId}`),
    );
    // No tallies to adjust (or tallies from before a metric existed): counted from the rows.
    if (!stored || FILE_METRIC_KEYS.some((k) => typeof stored.metrics[k] !== "number"))
      return { totals: await storedFileTotals(tx, connectorId), stored: stored ?? null };
    const d = changes.delta;
    return {
      stored,
      totals: {
        files: stored.files + d.files,
        permissions: stored.permissions + d.permissions,
        shares: stored.shares + d.shares,
        metrics: Object.fromEntries(
          FILE_METRIC_KEYS.map((k) => [k, (stored.metrics[k] ?? 0) + d.metrics[k]]),
        ) as TFileMetrics,
      },
    };
  };

  return {
    user: async (u) => {
      counts.users++;
      if (!u.suspended) people.add(u.id);
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
        [...new Set(u.assistants ?? [])].sort().join(","),
      ]);
    },
    file: async (f) => {
      const r = fileRows(f, ctx);
      if (incremental) {
        reported.add(f.id);
        return change(f.id, r);
      }
      counts.files++;
      counts.permissions += r.permissions.length;
      counts.shares += r.shares.length;
      if (r.externalCount > 0) externalByOwner.set(r.owner, (externalByOwner.get(r.owner) ?? 0) + 1);
      tallyFile(metrics, r.exposure, r.sensitivity, r.labelled, 1, r.orgWide);
      for (const t of r.shareTypes) metrics[SHARE_METRIC[t]]++;
      // A rescan: the file replaces its stored rows (the stale ones deleted) unless they hash the same.
      if (digests) return digests.unchanged(r.fileId, r.digest) ? undefined : queueChange(f.id, r);
      for (const p of r.permissions) await push(buffers.permissions as TBuffer, p);
      for (const s of r.shares) await push(buffers.shares as TBuffer, s);
      await push(buffers.files as TBuffer, r.file);
    },
    drive: async (d) => {
      counts.drives++;
      const members = d.members.map((m) => {
        const domain = emailDomain(m.email);
        return {
          email: m.email.toLowerCase(),
          role: m.role,
          external: domain !== null && !domainIn(ctx.internal, domain),
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
    groups: async (groups) => {
      groupMap.clear();
      for (const [email, group] of groupsByEmail(groups)) groupMap.set(email, group);
      await pipeline.send(() => replaceGroups(tx, { orgId, connectorId }, [...groupMap.values()]));
    },
    grant: async (g) => {
      counts.grants++;
      grants.push(g);
    },
    removeFile: (sourceFileId) => change(sourceFileId, null),
    removeOwner: async (ownerEmail) => {
      if (!incremental) throw new Error("file removals are for incremental snapshots");
      fileCalls++;
      goneOwners.add(ownerEmail.toLowerCase());
    },
    removeDrive: async (driveId) => {
      if (!incremental) throw new Error("file removals are for incremental snapshots");
      fileCalls++;
      goneDrives.add(driveId);
    },
    write: (statement) => pipeline.send(() => statement(tx)),
    commit: async () => {
      try {
        for (const b of Object.values(buffers)) await flush(b);
        if (!incremental) {
          let filesWritten = 0;
          let sharesTouched = false;
          if (digests) {
            // The stored files this rescan did not see are gone, with their permissions and items.
            await flushChanges();
            const gone = digests.unseen();
            for (let i = 0; i < gone.length; i += BATCH)
              await pipeline.send(() =>
                changes.apply(gone.slice(i, i + BATCH).map((id) => ["", null, id] as const)),
              );
            await pipeline.drain();
            // Files left alone keep their reach, but for the organization-wide ones' people count.
            filesWritten = changes.changed() + (await moveOrgWideReach(tx, connectorId, people.size));
            sharesTouched = changes.touched.fileIds.size > 0;
          }
          await pipeline.drain();
          const pruned = fresh
            ? null
            : await pruneUnseen(tx, connectorId, digests ? SEEN_TABLES : SNAPSHOT_TABLES);
          changed += (pruned?.total ?? 0) + filesWritten;
          // The graph is derived from the sharing items and shared drives alone.
          const graphChanged =
            sharesTouched || GRAPH_TABLES.some((t) => (changedIn[t] ?? 0) + (pruned?.byTable[t] ?? 0) > 0);
          const filesChanged =
            fresh ||
            filesWritten > 0 ||
            REACH_TABLES.some((t) => (changedIn[t] ?? 0) + (pruned?.byTable[t] ?? 0) > 0);
          const load = staged;
          await load?.settle(counts.files >= (scope.partitionMinFiles ?? partitionMinFiles()));
          let storeAfter: TStoreVersion | undefined;
          const totals = await open.commit(async (t) => {
            const result = await finishSnapshot(t, {
              ...scope,
              counts,
              metrics,
              owners: { externalByOwner },
              grants,
              changed,
              graphChanged,
              writeRow: true,
              shares: load?.shares(orgId),
            });
            storeAfter = await versionAfter(t, connectorId);
            // Last: attaching scans the DEFAULT partition under an ACCESS EXCLUSIVE lock held
            // until the commit, which follows at once (docs/decisions.md).
            await load?.attach(scope.attachRetry);
            return result;
          });
          if (!storeAfter) throw new Error("the snapshot committed without its version");
          return { ...totals, removedFileIds: [], storeBefore, storeAfter, filesChanged };
        }
        await flushChanges();
        await pipeline.drain();
        // Owners and shared drives gone: their stored files this snapshot did not report.
        const gone = await changes.filesOf([...goneOwners], [...goneDrives], reported);
        for (let i = 0; i < gone.length; i += BATCH)
          await changes.apply(gone.slice(i, i + BATCH).map((id) => [id, null] as const));
        const pruned = await pruneNotIn(tx, connectorId, ["workspace_users", "workspace_drives"], seen);
        changed += pruned.total + changes.changed();
        // Files not reported keep their reach, except that an organization-wide one is the
        // tenant's people count, which users joining or leaving move.
        const reachMoved = await moveOrgWideReach(tx, connectorId, people.size);
        changed += reachMoved;
        const drivesChanged = (changedIn.workspace_drives ?? 0) + (pruned.byTable.workspace_drives ?? 0) > 0;
        const filesChanged = changes.changed() > 0 || gone.length > 0 || reachMoved > 0 || drivesChanged;
        const { totals, stored } = await incrementalTotals();
        const final: TSnapshotCounts = {
          users: counts.users,
          drives: counts.drives,
          grants: counts.grants,
          files: totals.files,
          permissions: totals.permissions,
          shares: totals.shares,
        };
        const finalMetrics: TSnapshotMetrics = { ...metrics, ...totals.metrics };
        // Nothing changed: the stored row, tallies included, stays exactly as it is.
        const same =
          changed === 0 &&
          fileCalls === 0 &&
          stored !== null &&
          (Object.keys(final) as Array<keyof TSnapshotCounts>).every((k) => stored[k] === final[k]) &&
          METRIC_KEYS.every((k) => stored.metrics[k] === finalMetrics[k]);
        const { touched } = changes;
        let storeAfter: TStoreVersion | undefined;
        const result = await open.commit(async (t) => {
          const counted = await finishSnapshot(t, {
            ...scope,
            counts: final,
            metrics: finalMetrics,
            owners: { delta: touched.externalByOwner },
            grants,
            changed,
            writeRow: !same,
            graph: {
              fileIds: [...touched.fileIds],
              owners: [...touched.owners],
              domains: [...touched.domains],
              drives: drivesChanged,
            },
          });
          storeAfter = await versionAfter(t, connectorId);
          return counted;
        });
        if (!storeAfter) throw new Error("the snapshot committed without its version");
        return { ...result, removedFileIds: changes.removed(), storeBefore, storeAfter, filesChanged };
      } catch (err) {
        await open.rollback();
        throw err;
      }
    },
    abort: () => open.rollback(),
  };
}

const isPartitioned = (table: string): table is TPartitionedTable =>
  (CONNECTOR_PARTITIONED as readonly string[]).includes(table);

const GRAPH_TABLES = ["workspace_shares", "workspace_drives"] as const;

/** A rescan with the stored digests lists only these in `snapshot_seen` (its files are compared in memory). */
const SEEN_TABLES = ["workspace_users", "workspace_drives"] as const;

type TStoredRow = TSnapshotCounts & { metrics: Record<string, number> };

/**
 * An organization-wide file's reach is the tenant's people count, which users joining or leaving
 * move: one statement for all the files a snapshot did not write (their digest leaves the count
 * out, `rowsDigest`). Returns the files moved.
 */
async function moveOrgWideReach(tx: Db, connectorId: string, people: number): Promise<number> {
  return affected(
    await tx.execute(sql`
      UPDATE workspace_files SET reach_people = ${people}
      WHERE connector_id = ${connectorId} AND reach_org_wide AND reach_people <> ${people}`),
  );
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

/** Deletes the connector's rows of these tables whose ids are not in `ids`; returns how many. */
async function pruneNotIn(
  tx: Db,
  connectorId: string,
  tables: readonly string[],
  ids: readonly string[],
): Promise<{ total: number; byTable: Record<string, number> }> {
  const byTable: Record<string, number> = {};
  let total = 0;
  for (const table of tables) {
    const n = affected(
      await tx.execute(sql`
        DELETE FROM ${sql.raw(table)} WHERE connector_id = ${connectorId}
          AND NOT (id = ANY(${arrayLiteral(ids)}::text[]))`),
    );
    byTable[table] = n;
    total += n;
  }
  return { total, byTable };
}

/** Deletes the connector's rows of these tables this snapshot did not write; returns how many. */
async function pruneUnseen(
  tx: Db,
  connectorId: string,
  tables: readonly string[],
): Promise<{ total: number; byTable: Record<string, number> }> {
  await tx.execute(sql`ANALYZE snapshot_seen`);
  const byTable: Record<string, number> = {};
  let total = 0;
  for (const table of tables) {
    const n = affected(
      await tx.execute(sql`
        DELETE FROM ${sql.raw(table)} t WHERE t.connector_id = ${connectorId}
          AND NOT EXISTS (SELECT 1 FROM snapshot_seen s WHERE s.tbl = ${table} AND s.id = t.id)`),
    );
    byTable[table] = n;
    total += n;
  }
  return { total, byTable };
}

/** A connector's groups, replaced whole (a few thousand rows at most, with their members). */
async function replaceGroups(
  tx: Db,
  scope: { orgId: string; connectorId: string },
  groups: readonly TSourceGroup[],
): Promise<void> {
  await tx.execute(sql`DELETE FROM workspace_groups WHERE connector_id = ${scope.connectorId}`);
  for (let i = 0; i < groups.length; i += GROUP_BATCH) {
    const rows = groups.slice(i, i + GROUP_BATCH).map((g) => ({
      id: stableId("wsg", scope.connectorId, g.id),
      orgId: scope.orgId,
      connectorId: scope.connectorId,
      externalId: g.id,
      email: g.email.toLowerCase(),
      name: g.name,
      memberCount: g.memberCount,
      memberEmails: [...new Set((g.memberEmails ?? []).map((m) => m.toLowerCase()))].sort(),
    }));
    await tx.insert(workspaceGroups).values(rows).onConflictDoNothing();
  }
}

const GROUP_BATCH = 500;
