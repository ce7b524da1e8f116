import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { TChangeCursor, TSourceAdapter, TSourceGroup } from "@posture/connectors";
import { changeCursors, queryRows, workspaceSnapshots, type Db } from "@posture/db";
import { DEFAULT_BROAD_GROUP_THRESHOLD, type TFullScanReason } from "@posture/posture";

/**
 * What a scan is about to do, decided before it reads: the changes since a stored cursor, or
 * everything, and why. `storeAhead`: the store holds a snapshot whose findings never committed
 * (a scan died between the two), so files it removed then must be looked for among the findings.
 */
export type TScanPlan =
  | { kind: "incremental"; since: TChangeCursor; rulesKey: string; storeAhead: boolean }
  | { kind: "full"; reason: TFullScanReason };

/**
 * Bump when a file rule changes what it finds: the stored findings of unchanged files were judged
 * by the old rules, so every connector's next scan must be a full one.
 */
const FILE_RULES_VERSION = 2;

/**
 * What file findings and reach depend on besides the file itself: the tenant's own domains, the
 * domains the organization trusts, the rules, the broad-group threshold and the directory's
 * groups (their sizes and members: a file's reach and its `broad_group_grant` follow them).
 * Stored with the cursor; a change makes the next scan full.
 */
export function rulesKeyOf(
  internalDomains: readonly string[],
  trustedDomains: readonly string[],
  directory: { broadGroupThreshold: number; groups: readonly TSourceGroup[] } = {
    broadGroupThreshold: DEFAULT_BROAD_GROUP_THRESHOLD,
    groups: [],
  },
): string {
  const sorted = (list: readonly string[]) => [...new Set(list.map((d) => d.toLowerCase()))].sort();
  const groups = createHash("sha256");
  for (const g of [...directory.groups].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
    groups.update(JSON.stringify([g.id, g.email.toLowerCase(), g.memberCount, sorted(g.memberEmails ?? [])]));
  return createHash("sha256")
    .update(
      JSON.stringify([
        FILE_RULES_VERSION,
        sorted(internalDomains),
        sorted(trustedDomains),
        directory.broadGroupThreshold,
        groups.digest("hex"),
      ]),
    )
    .digest("hex");
}

/**
 * Full or incremental: full when asked, when the source has no change feed, or when there is no
 * stored cursor to start from (or no snapshot in the store to apply changes to).
 */
export async function planScan(
  db: Db,
  input: { connectorId: string; adapter: TSourceAdapter; fullRequested: boolean },
): Promise<TScanPlan> {
  if (input.fullRequested) return { kind: "full", reason: "requested" };
  if (!input.adapter.changeFeed) return { kind: "full", reason: "no_feed" };
  const [stored] = await db
    .select()
    .from(changeCursors)
    .where(eq(changeCursors.connectorId, input.connectorId));
  const [snapshot] = await db
    .select({ takenAt: workspaceSnapshots.takenAt })
    .from(workspaceSnapshots)
    .where(eq(workspaceSnapshots.connectorId, input.connectorId));
  if (!stored || !snapshot) return { kind: "full", reason: "first" };
  return {
    kind: "incremental",
    since: { source: stored.source, feeds: stored.feeds },
    rulesKey: stored.rulesKey,
    // A scan stamps its snapshot and its cursor with the same time. A snapshot newer than the
    // cursor was committed by a scan that died before its findings; an older one was left as it
    // was by scans that changed nothing in the store (they write no snapshot row).
    storeAhead: snapshot.takenAt.getTime() > stored.updatedAt.getTime(),
  };
}

/**
 * Stores where the feeds stand, in the transaction of the scan's findings (`tx`): the cursor never
 * runs ahead of the findings.
 */
export async function saveCursor(
  tx: Db,
  input: {
    orgId: string;
    connectorId: string;
    scanId: string;
    cursor: TChangeCursor;
    rulesKey: string;
    now: Date;
  },
): Promise<void> {
  const row = {
    connectorId: input.connectorId,
    orgId: input.orgId,
    source: input.cursor.source,
    feeds: input.cursor.feeds,
    rulesKey: input.rulesKey,
    scanId: input.scanId,
    updatedAt: input.now,
  };
  await tx
    .insert(changeCursors)
    .values(row)
    .onConflictDoUpdate({ target: changeCursors.connectorId, set: row });
}

/** A full scan of a source without feeds leaves no cursor: a stale one would be read from later. */
export async function dropCursor(tx: Db, connectorId: string): Promise<void> {
  await tx.delete(changeCursors).where(eq(changeCursors.connectorId, connectorId));
}

/**
 * Open file findings whose file the store no longer holds. Only needed when the store ran ahead of
 * the findings: the files an earlier, unfinished scan removed are not removed again, so their
 * findings are found here instead.
 */
export async function orphanedFileFindings(db: Db, connectorId: string): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`SELECT DISTINCT f.resource_id AS id FROM findings f
        WHERE f.connector_id = ${connectorId} AND f.status = 'OPEN' AND f.resource_type = 'file'
          AND NOT EXISTS (SELECT 1 FROM workspace_files w WHERE w.connector_id = ${connectorId} AND w.external_id = f.resource_id)`,
  );
  return rows.map((r) => r.id);
}
