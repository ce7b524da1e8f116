import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@posture/db";

/**
 * A connector's stored files as a full rescan compares its own with them: each file's `digest`
 * (the hash of the rows a snapshot wrote for it, `rowsDigest`), read once, in memory. A file whose
 * rows hash as stored is neither written nor probed: the rescan of an unchanged tenant sends the
 * database its changed, new and gone files only.
 */
export type TStoredDigests = {
  /** Whether the file is stored with exactly these rows; either way it is seen (not gone). */
  unchanged: (fileId: string, digest: string) => boolean;
  /** Ids of the stored files not seen since they were read: gone at the source. */
  unseen: () => string[];
};

/** Read this many at a time (keyset on the primary key): a million files never as one result. */
const PAGE = 50_000;
/** Marks a file seen; no digest is empty. */
const SEEN = "";
/** A stored file without a digest (written before it was kept, or changed since): never equal. */
const UNKNOWN = "?";

export async function readStoredDigests(tx: Db, connectorId: string): Promise<TStoredDigests> {
  const stored = new Map<string, string>();
  let after = "";
  for (;;) {
    const rows = await queryRows<{ id: string; digest: string | null }>(
      tx,
      sql`SELECT id, digest FROM workspace_files WHERE connector_id = ${connectorId} AND id > ${after}
          ORDER BY id LIMIT ${PAGE}`,
    );
    for (const r of rows) stored.set(r.id, r.digest ?? UNKNOWN);
    const last = rows.at(-1);
    if (!last || rows.length < PAGE) break;
    after = last.id;
  }
  return {
    unchanged: (fileId, digest) => {
      const was = stored.get(fileId);
      stored.set(fileId, SEEN);
      return was === digest;
    },
    unseen: () => [...stored].filter(([, d]) => d !== SEEN).map(([id]) => id),
  };
}
