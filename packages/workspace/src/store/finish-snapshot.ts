import { sql, type SQL } from "drizzle-orm";
import type { TAppGrant } from "@posture/connectors";
import {
  analyzeAfterWrite,
  arrayLiteral,
  CONNECTOR_PARTITIONED,
  newId,
  unnestRows,
  type Db,
  type TArrayColumn,
} from "@posture/db";
import { bulkInsert } from "./bulk-insert";
import { rebuildFlowGraph, updateFlowGraph, type TGraphChanges } from "./flow-graph";
import type { TSnapshotMetrics } from "./metrics";
import { rowsOf } from "./rows";

/** Each owner's count of externally shared files, as (email, n) rows. */
const OWNER_COLUMNS: readonly TArrayColumn[] = [
  ["email", "text"],
  ["n", "int"],
];

export type TSnapshotCounts = {
  users: number;
  files: number;
  drives: number;
  permissions: number;
  shares: number;
  grants: number;
};

type TFinishInput = {
  orgId: string;
  connectorId: string;
  scanId: string;
  now: Date;
  counts: TSnapshotCounts;
  metrics: TSnapshotMetrics;
  /**
   * Each user's count of externally shared files: every owner's, tallied by a full snapshot, or
   * or an incremental snapshot's changes to them.
   */
  owners: { externalByOwner: Map<string, number> } | { delta: Map<string, number> };
  grants: TAppGrant[];
  /** Rows written or deleted by the snapshot; 0 for an unchanged rescan. */
  changed: number;
  /**
   * A full snapshot: whether it wrote or deleted sharing items or shared drives, the rows the
   * graph is derived from (an unchanged tenant's users' idle days move daily: no reason to
   * rebuild a million-file graph). Absent: whenever it changed anything.
   */
  graphChanged?: boolean;
  /** False for an incremental snapshot that changed nothing: its stored row stays as it is. */
  writeRow: boolean;
  /** An incremental snapshot's changes: the graph is brought up to date around them. */
  graph?: TGraphChanges;
  /**
   * A first snapshot loaded into tables of its own, not yet attached: its sharing items' table,
   * and all the organization's items as the graph must read them (the parent's and the load's).
   */
  shares?: { table: string; all: SQL };
};

/** The snapshot's last statements, in its transaction: tallies, approvals, grant history, graph. */
export async function finishSnapshot(tx: Db, input: TFinishInput): Promise<TSnapshotCounts> {
  const { orgId, connectorId } = input;
  if ("externalByOwner" in input.owners) {
    await tx.execute(sql`
      UPDATE workspace_users w SET external_shares_owned = coalesce(u.n, 0)
      FROM workspace_users w2
        LEFT JOIN ${unnestRows(OWNER_COLUMNS, [...input.owners.externalByOwner])}
        ON u.email = w2.email
      WHERE w.id = w2.id AND w2.connector_id = ${connectorId} AND w.external_shares_owned <> coalesce(u.n, 0)`);
  } else {
    // Users this snapshot wrote (added, re-addressed, or changed otherwise): their tallies are
    // counted afresh; everyone else's move by the changed files' difference.
    const written = rowsOf<{ email: string }>(
      await tx.execute(
        sql`SELECT DISTINCT email FROM workspace_users WHERE connector_id = ${connectorId} AND age(xmin) = 0`,
      ),
    );
    const recount = new Set(written.map((w) => w.email));
    const delta = [...input.owners.delta].filter(([email, n]) => n !== 0 && !recount.has(email));
    if (delta.length > 0) {
      await tx.execute(sql`
        UPDATE workspace_users w SET external_shares_owned = w.external_shares_owned + u.n
        FROM ${unnestRows(OWNER_COLUMNS, delta)}
        WHERE w.org_id = ${orgId} AND w.email = u.email AND w.connector_id = ${connectorId}`);
    }
    if (recount.size > 0) {
      // A file is shared outside exactly when it has a sharing item (of its owner): counted on
      // the items' owner index.
      const emails = sql`${arrayLiteral([...recount])}::text[]`;
      await tx.execute(sql`
        UPDATE workspace_users w SET external_shares_owned = coalesce(c.n, 0)
        FROM unnest(${emails}) AS e(email)
          LEFT JOIN (SELECT owner_email, count(DISTINCT file_id)::int AS n FROM workspace_shares
            WHERE org_id = ${orgId} AND owner_email = ANY(${emails}) AND connector_id = ${connectorId}
            GROUP BY owner_email) c ON c.owner_email = e.email
        WHERE w.org_id = ${orgId} AND w.email = e.email AND w.connector_id = ${connectorId}
          AND w.external_shares_owned <> coalesce(c.n, 0)`);
    }
  }
  // Approvals outlive snapshots: item ids are stable, so active ones carry over to the new rows.
  await tx.execute(sql`
    UPDATE ${sql.raw(`"${input.shares?.table ?? "workspace_shares"}"`)} s SET approved_until = a.until
    FROM (SELECT item_id, max(expires_at) AS until FROM sharing_approvals
          WHERE org_id = ${orgId} AND withdrawn_at IS NULL AND lapsed_at IS NULL AND expires_at > now() GROUP BY item_id) a
    WHERE s.connector_id = ${connectorId} AND s.id = a.item_id AND s.approved_until IS DISTINCT FROM a.until`);
  await recordGrantChanges(tx, input);
  if (input.writeRow) {
    await tx.execute(sql`
      INSERT INTO workspace_snapshots (connector_id, org_id, scan_id, taken_at, users, files, drives, permissions, shares, grants, metrics)
      VALUES (${connectorId}, ${orgId}, ${input.scanId}, ${input.now.toISOString()}, ${input.counts.users}, ${input.counts.files},
        ${input.counts.drives}, ${input.counts.permissions}, ${input.counts.shares}, ${input.counts.grants},
        ${JSON.stringify(input.metrics)}::jsonb)
      ON CONFLICT (connector_id) DO UPDATE SET scan_id = excluded.scan_id, taken_at = excluded.taken_at,
        users = excluded.users, files = excluded.files, drives = excluded.drives,
        permissions = excluded.permissions, shares = excluded.shares, grants = excluded.grants,
        metrics = excluded.metrics`);
  }
  // An unchanged rescan leaves the graph as it is (trusted-domain changes rebuild it themselves).
  const [built] = rowsOf<{ n: number }>(
    await tx.execute(sql`SELECT count(*)::int AS n FROM flow_summaries WHERE org_id = ${orgId}`),
  );
  const rebuild = !built?.n || (!input.graph && (input.graphChanged ?? input.changed > 0));
  if (rebuild) await rebuildFlowGraph(tx, orgId, input.shares?.all);
  // Only files and shared drives make the graph: users' changes leave it as it is.
  else if (input.graph && (input.graph.fileIds.length > 0 || input.graph.drives))
    await updateFlowGraph(tx, orgId, input.graph);
  await analyzeAfterLoad(tx, input, rebuild);
  return input.counts;
}

/**
 * A snapshot that wrote a good part of the store (a first load: all of it) gives the planner the
 * tables' statistics before it commits (ANALYZE counts the transaction's own rows), as autovacuum
 * would a minute later, or never where it is off. Without them the next scans' statements picked
 * plans many times slower: the 1M organization's first incremental rescans took 9.0 s unchanged and
 * 20.1 s with 1 % changed, against 2.6 s and 5.1 s with statistics (docs/decisions.md). Costs about
 * 3 s after a 1M-file first load.
 */
async function analyzeAfterLoad(tx: Db, input: TFinishInput, graphRebuilt: boolean): Promise<void> {
  const c = input.counts;
  const rows = c.users + c.files + c.drives + c.permissions + c.shares;
  const scope = { connectorId: input.connectorId, written: input.changed, rows };
  // A load that kept its own tables analyzed them when it built their indexes.
  const tables = input.shares ? UNPARTITIONED : [...UNPARTITIONED, ...CONNECTOR_PARTITIONED];
  for (const table of tables) await analyzeAfterWrite(tx, table, scope);
  if (graphRebuilt) {
    await analyzeAfterWrite(tx, "flow_nodes", scope);
    await analyzeAfterWrite(tx, "flow_edges", scope);
  }
}

const UNPARTITIONED = ["workspace_users", "workspace_drives"] as const;

const sameScopes = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join(" ") === [...b].sort().join(" ");

/**
 * Compares this scan's grants with the previous scan's (still in oauth_grants: the findings
 * transaction replaces them after this one commits) and keeps what changed for agent timelines.
 */
async function recordGrantChanges(tx: Db, input: TFinishInput): Promise<void> {
  const previous = rowsOf<{ external_id: string; client_id: string; user_email: string; scopes: string[] }>(
    await tx.execute(
      sql`SELECT external_id, client_id, user_email, scopes FROM oauth_grants WHERE connector_id = ${input.connectorId}`,
    ),
  );
  // First snapshot of this connector: nothing to compare with.
  if (previous.length === 0) return;
  const before = new Map(previous.map((p) => [p.external_id, p]));
  const at = input.now.toISOString();
  const events: unknown[][] = [];
  // One row of oauth_grant_events, in the column order below.
  const record = (
    grant: { clientId: string; externalId: string; userEmail: string },
    kind: "granted" | "scopes_changed" | "revoked",
    scopes: readonly string[],
    previousScopes: readonly string[],
    when: string,
  ) =>
    events.push([
      newId("gev"),
      input.orgId,
      input.connectorId,
      grant.clientId,
      grant.externalId,
      grant.userEmail,
      kind,
      scopes.join(" "),
      previousScopes.join(" "),
      when,
    ]);
  const seen = new Set<string>();
  for (const g of input.grants) {
    seen.add(g.id);
    const prev = before.get(g.id);
    const grant = { clientId: g.clientId, externalId: g.id, userEmail: g.userEmail };
    if (!prev) record(grant, "granted", g.scopes, [], g.grantedAt);
    else if (!sameScopes(prev.scopes, g.scopes)) record(grant, "scopes_changed", g.scopes, prev.scopes, at);
  }
  for (const p of previous) {
    if (!seen.has(p.external_id)) {
      record(
        { clientId: p.client_id, externalId: p.external_id, userEmail: p.user_email },
        "revoked",
        [],
        p.scopes,
        at,
      );
    }
  }
  const split = (col: string) =>
    `CASE WHEN u."${col}" = '' THEN '{}'::text[] ELSE string_to_array(u."${col}", ' ') END`;
  for (let i = 0; i < events.length; i += 2_000) {
    await bulkInsert(
      tx,
      "oauth_grant_events",
      [
        ["id", "text"],
        ["org_id", "text"],
        ["connector_id", "text"],
        ["client_id", "text"],
        ["grant_external_id", "text"],
        ["user_email", "text"],
        ["kind", "text"],
        ["_scopes", "text"],
        ["_previous", "text"],
        ["at", "timestamptz"],
      ],
      events.slice(i, i + 2_000),
      {
        computed: [
          ["scopes", split("_scopes")],
          ["previous_scopes", split("_previous")],
        ],
      },
    );
  }
}
