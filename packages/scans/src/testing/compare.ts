import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@posture/db";

/**
 * A connector's resource store and open findings, without the ids a snapshot assigns: two
 * connectors reading the same tenant state must give equal answers, however they got there.
 */
export async function storeAndFindingsOf(db: Db, connectorId: string) {
  const rows = (query: ReturnType<typeof sql>) =>
    queryRows<{ row: Record<string, unknown> }>(db, query).then((r) => r.map((x) => x.row));
  return {
    users: await rows(sql`SELECT to_jsonb(t) - 'id' - 'org_id' - 'connector_id' AS row
      FROM workspace_users t WHERE connector_id = ${connectorId} ORDER BY external_id`),
    files: await rows(sql`SELECT to_jsonb(t) - 'id' - 'org_id' - 'connector_id' AS row
      FROM workspace_files t WHERE connector_id = ${connectorId} ORDER BY external_id`),
    drives: await rows(sql`SELECT to_jsonb(t) - 'id' - 'org_id' - 'connector_id' AS row
      FROM workspace_drives t WHERE connector_id = ${connectorId} ORDER BY external_id`),
    permissions: await rows(sql`SELECT (to_jsonb(p) - 'id' - 'org_id' - 'connector_id' - 'file_id')
        || jsonb_build_object('file', f.external_id) AS row
      FROM workspace_permissions p JOIN workspace_files f ON f.id = p.file_id
      WHERE p.connector_id = ${connectorId} ORDER BY f.external_id, p.external_id`),
    shares: await rows(sql`SELECT to_jsonb(t) - 'id' - 'org_id' - 'connector_id' - 'file_id' AS row
      FROM workspace_shares t WHERE connector_id = ${connectorId} ORDER BY file_external_id, sharing_type, target`),
    snapshot: await rows(sql`SELECT jsonb_build_object('users', users, 'files', files, 'drives', drives,
        'permissions', permissions, 'shares', shares, 'grants', grants, 'metrics', metrics) AS row
      FROM workspace_snapshots WHERE connector_id = ${connectorId}`),
    findings: await rows(sql`SELECT jsonb_build_object('fingerprint', fingerprint, 'rule', rule_id,
        'severity', severity, 'title', title, 'resource', resource_id, 'type', resource_type, 'details', details) AS row
      FROM findings WHERE connector_id = ${connectorId} AND status = 'OPEN' ORDER BY fingerprint`),
    grants:
      await rows(sql`SELECT jsonb_build_object('id', external_id, 'client', client_id, 'scopes', scopes) AS row
      FROM oauth_grants WHERE connector_id = ${connectorId} ORDER BY external_id`),
  };
}
