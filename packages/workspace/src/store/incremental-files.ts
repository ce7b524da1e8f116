import { sql } from "drizzle-orm";
import {
  arrayLiteral,
  SHARE_TYPES,
  type Db,
  type TExposure,
  type TSensitivity,
  type TShareType,
} from "@posture/db";
import { affected, bulkInsert } from "./bulk-insert";
import { stableId } from "./classify";
import { FILE_COLUMNS, FILE_COMPUTED, PERMISSION_COLUMNS, SHARE_COLUMNS, SHARE_COMPUTED } from "./columns";
import { shareId, type TFileRows } from "./file-rows";
import { emptyMetrics, SHARE_METRIC, tallyFile, type TSnapshotMetrics } from "./metrics";
import { rowsOf } from "./rows";

/** What an incremental snapshot's file changes did to the connector's file totals (new minus old). */
export type TFileDelta = { files: number; permissions: number; shares: number; metrics: TSnapshotMetrics };

/**
 * What the file changes touched: the flow graph and the owners' tallies are brought up to date
 * from it. The graph is derived from sharing items only, so only files with items (before or
 * after) count for it.
 */
export type TTouched = {
  /** workspace_files ids of the files written or deleted that had or have sharing items. */
  fileIds: Set<string>;
  /** Owners (lower case) of those items, before and after. */
  owners: Set<string>;
  /** Outside domains of their sharing items, before and after. */
  domains: Set<string>;
  /** Per owner, the change in their count of externally shared files. */
  externalByOwner: Map<string, number>;
};

/** A file's new rows, or null (gone): by source id, with the stored id when known. */
export type TFileChangeEntry = readonly [sourceId: string, rows: TFileRows | null, storedId?: string];

const ids = (values: readonly unknown[]) => sql`${arrayLiteral(values)}::text[]`;

/**
 * Applies file changes to the stored snapshot, a batch at a time, inside the snapshot's
 * transaction: each changed file replaces its stored row, permissions and sharing items (rows no
 * longer present deleted, the rest upserted only where they differ, so item ids and approvals
 * stay); each removed one is deleted with them. Keeps, as it goes, the difference the batch made
 * to the file totals (read from the rows it replaces), so the commit needs no recount.
 */
export function createFileChanges(tx: Db, connectorId: string) {
  const delta: TFileDelta = { files: 0, permissions: 0, shares: 0, metrics: emptyMetrics() };
  const touched: TTouched = {
    fileIds: new Set(),
    owners: new Set(),
    domains: new Set(),
    externalByOwner: new Map(),
  };
  const owned = (owner: string, by: number) =>
    touched.externalByOwner.set(owner, (touched.externalByOwner.get(owner) ?? 0) + by);
  /** Source ids deleted and not written again since. */
  const removed = new Set<string>();
  let changed = 0;

  /**
   * Entries: a file's new rows, or null for a file gone (its source id, or its stored id when the
   * caller has it: a full snapshot's files not seen again).
   */
  const apply = async (entries: ReadonlyArray<TFileChangeEntry>) => {
    if (entries.length === 0) return;
    const fileIds: string[] = [];
    const gone: string[] = [];
    const written: TFileRows[] = [];
    for (const [sourceId, rows, storedId] of entries) {
      const id = rows?.fileId ?? storedId ?? stableId("wsf", connectorId, sourceId);
      fileIds.push(id);
      if (rows && rows.shares.length > 0) touched.fileIds.add(id);
      if (rows) written.push(rows);
      else gone.push(id);
    }

    // What the stored rows counted for, taken out of the totals.
    const before = rowsOf<{
      id: string;
      exposure: TExposure;
      sensitivity: TSensitivity;
      labelled: boolean;
      org_wide: boolean;
      owner_email: string;
      external: boolean;
    }>(
      await tx.execute(sql`
        SELECT id, exposure, sensitivity, cardinality(labels) > 0 AS labelled, reach_org_wide AS org_wide, owner_email,
          external_permission_count > 0 AS external
        FROM workspace_files WHERE connector_id = ${connectorId} AND id = ANY(${ids(fileIds)})`),
    );
    // Only a file shared outside has sharing items: the others' need no probe.
    const shareIds: string[] = [];
    for (const f of before) {
      delta.files--;
      tallyFile(delta.metrics, f.exposure, f.sensitivity, f.labelled, -1, f.org_wide);
      if (!f.external) continue;
      touched.fileIds.add(f.id);
      owned(f.owner_email, -1);
      for (const t of SHARE_TYPES) shareIds.push(shareId(f.id, t));
    }
    const items =
      shareIds.length === 0
        ? []
        : rowsOf<{ sharing_type: TShareType; owner_email: string; target_domains: string[] }>(
            await tx.execute(sql`
              SELECT sharing_type, owner_email, target_domains FROM workspace_shares
              WHERE connector_id = ${connectorId} AND id = ANY(${ids(shareIds)})`),
          );
    for (const s of items) {
      delta.shares--;
      delta.metrics[SHARE_METRIC[s.sharing_type]]--;
      touched.owners.add(s.owner_email);
      for (const d of s.target_domains) touched.domains.add(d);
    }
    const [perms] = rowsOf<{ n: number }>(
      await tx.execute(
        sql`SELECT count(*)::int AS n FROM workspace_permissions
          WHERE connector_id = ${connectorId} AND file_id = ANY(${ids(fileIds)})`,
      ),
    );
    delta.permissions -= perms?.n ?? 0;

    // What the new rows count for.
    const permissionRows: unknown[][] = [];
    const shareRows: unknown[][] = [];
    for (const r of written) {
      delta.files++;
      tallyFile(delta.metrics, r.exposure, r.sensitivity, r.labelled, 1, r.orgWide);
      delta.permissions += r.permissions.length;
      delta.shares += r.shares.length;
      for (const t of r.shareTypes) delta.metrics[SHARE_METRIC[t]]++;
      if (r.shares.length > 0) touched.owners.add(r.owner);
      if (r.externalCount > 0) owned(r.owner, 1);
      for (const d of r.domains) touched.domains.add(d);
      for (const p of r.permissions) permissionRows.push(p);
      for (const s of r.shares) shareRows.push(s);
      removed.delete(r.sourceId);
    }

    // The rows no longer present, then the files gone.
    changed += affected(
      await tx.execute(sql`
        DELETE FROM workspace_permissions WHERE connector_id = ${connectorId} AND file_id = ANY(${ids(fileIds)})
          AND NOT (id = ANY(${ids(permissionRows.map((p) => p[0]))}))`),
    );
    if (shareIds.length > 0) {
      changed += affected(
        await tx.execute(sql`
          DELETE FROM workspace_shares WHERE connector_id = ${connectorId} AND id = ANY(${ids(shareIds)})
            AND NOT (id = ANY(${ids(shareRows.map((s) => s[0]))}))`),
      );
    }
    if (gone.length > 0) {
      const deleted = rowsOf<{ external_id: string }>(
        await tx.execute(
          sql`DELETE FROM workspace_files WHERE connector_id = ${connectorId} AND id = ANY(${ids(gone)}) RETURNING external_id`,
        ),
      );
      changed += deleted.length;
      for (const d of deleted) removed.add(d.external_id);
    }
    changed += await bulkInsert(
      tx,
      "workspace_files",
      FILE_COLUMNS,
      written.map((r) => r.file),
      { computed: FILE_COMPUTED, upsert: "changed" },
    );
    changed += await bulkInsert(tx, "workspace_permissions", PERMISSION_COLUMNS, permissionRows, {
      upsert: "changed",
    });
    changed += await bulkInsert(tx, "workspace_shares", SHARE_COLUMNS, shareRows, {
      computed: SHARE_COMPUTED,
      upsert: "changed",
    });
  };

  /**
   * Source ids of the stored files of these owners' personal drives and of these shared drives,
   * except those in `keep` (reported by this snapshot): the files an `ownerGone` / `driveGone` ends.
   */
  const filesOf = async (owners: readonly string[], drives: readonly string[], keep: ReadonlySet<string>) => {
    if (owners.length === 0 && drives.length === 0) return [];
    const rows = rowsOf<{ external_id: string }>(
      await tx.execute(sql`
        SELECT external_id FROM workspace_files WHERE connector_id = ${connectorId}
          AND ((drive_external_id IS NULL AND owner_email = ANY(${ids(owners)}))
            OR drive_external_id = ANY(${ids(drives)}))`),
    );
    return rows.map((r) => r.external_id).filter((id) => !keep.has(id));
  };

  return {
    apply,
    filesOf,
    delta,
    touched,
    removed: () => [...removed],
    changed: () => changed,
  };
}

export type TFileChanges = ReturnType<typeof createFileChanges>;
