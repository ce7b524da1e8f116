import { sql } from "drizzle-orm";
import type { Db } from "@posture/db";
import { rowsOf } from "../rows";

// Tests' view of a connector's store, shared by the store's integration tests.

const strip = (row: Record<string, unknown>, keys: readonly string[]) => {
  const out = { ...row };
  for (const k of keys) delete out[k];
  return out;
};
const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();

/**
 * Everything a snapshot stores for a connector, without the ids derived from the connector
 * (rows are matched by their sources' ids; graph node ids are mapped back to them).
 */
export async function storeContent(db: Db, t: { orgId: string; connectorId: string }) {
  const q = async (query: ReturnType<typeof sql>) => rowsOf<Record<string, unknown>>(await db.execute(query));
  const own = ["id", "org_id", "connector_id"];
  const users = await q(sql`SELECT * FROM workspace_users WHERE connector_id = ${t.connectorId}`);
  const files = await q(sql`SELECT * FROM workspace_files WHERE connector_id = ${t.connectorId}`);
  const drives = await q(sql`SELECT * FROM workspace_drives WHERE connector_id = ${t.connectorId}`);
  const permissions = await q(sql`
    SELECT p.*, f.external_id AS file_external_id FROM workspace_permissions p
    LEFT JOIN workspace_files f ON f.id = p.file_id WHERE p.connector_id = ${t.connectorId}`);
  const shares = await q(sql`SELECT * FROM workspace_shares WHERE connector_id = ${t.connectorId}`);
  const [snapshot] = await q(sql`
    SELECT users, files, drives, permissions, shares, grants, metrics
    FROM workspace_snapshots WHERE connector_id = ${t.connectorId}`);
  // Graph ids name files and drives by their row ids: mapped back to the sources' ids.
  const external = new Map<string, string>();
  for (const f of files) external.set(String(f.id), `F(${String(f.external_id)})`);
  for (const d of drives) external.set(String(d.id), `D(${String(d.external_id)})`);
  const unmap = (s: unknown) =>
    String(s).replace(/ws[fd]_[A-Za-z0-9_-]{27}/g, (id) => external.get(id) ?? id);
  const nodes = await q(sql`SELECT * FROM flow_nodes WHERE org_id = ${t.orgId}`);
  const edges = await q(sql`SELECT * FROM flow_edges WHERE org_id = ${t.orgId}`);
  const [summary] = await q(sql`SELECT * FROM flow_summaries WHERE org_id = ${t.orgId}`);
  return {
    users: sorted(users.map((r) => strip(r, own))),
    files: sorted(files.map((r) => strip(r, own))),
    drives: sorted(drives.map((r) => strip(r, own))),
    permissions: sorted(permissions.map((r) => strip(r, [...own, "file_id"]))),
    shares: sorted(shares.map((r) => strip(r, [...own, "file_id", "approved_until"]))),
    snapshot,
    nodes: sorted(nodes.map((n) => ({ ...strip(n, ["org_id"]), id: unmap(n.id) }))),
    edges: sorted(
      edges.map((e) => ({ ...strip(e, ["org_id"]), source: unmap(e.source), target: unmap(e.target) })),
    ),
    summary: summary ? strip(summary, ["org_id", "built_at"]) : null,
  };
}
