import { sql } from "drizzle-orm";
import type { TPermission, TPermissionRole, TSourceFile } from "@posture/connectors";
import { arrayLiteral, newId, type Db, type TSharingType } from "@posture/db";
import { emailDomain } from "@posture/platform";
import { fileRows } from "./file-rows";
import { updateFlowGraph } from "./flow-graph";
import { createFileChanges } from "./incremental-files";
import { FILE_METRIC_KEYS } from "./metrics";
import { rowsOf } from "./rows";

// The resource store after a remediation changed the source (issue 19): the one file a step
// touched is written again exactly as a snapshot would write it (its permissions, its sharing
// items re-derived by `fileRows`, the connector's totals, its owner's tally and the flow graph
// around it), so the inventory and the sharing items follow at once, before the next scan.

/** A permission as the store keeps it (workspace_permissions), by its id at the source. */
export type TStoredPermission = {
  externalId: string;
  sharingType: TSharingType;
  target: string;
  role: string;
  targetDomain: string | null;
};

export type TStoredFileChange =
  | { kind: "remove_permission"; permissionId: string }
  | { kind: "set_role"; permissionId: string; role: string }
  | { kind: "add_permission"; permission: TStoredPermission }
  | { kind: "set_owner"; ownerEmail: string };

export type TStoredFileScope = { orgId: string; connectorId: string; fileExternalId: string };

type TFileRow = {
  id: string;
  external_id: string;
  name: string;
  mime_type: string;
  owner_email: string;
  drive_external_id: string | null;
  labels: string[];
  size_bytes: string | number;
  modified_at: Date | string;
};

/** The stored permission as the source would report it: classified again to the same row. */
function asSourcePermission(p: TStoredPermission): TPermission {
  const role = p.role as TPermissionRole;
  switch (p.sharingType) {
    case "public":
      return { id: p.externalId, type: "anyone", role };
    case "external_domain":
      return { id: p.externalId, type: "domain", role, domain: p.target };
    default:
      return p.target.includes("@")
        ? { id: p.externalId, type: "user", role, emailAddress: p.target }
        : { id: p.externalId, type: "domain", role, domain: p.target };
  }
}

/**
 * Changes one stored file and re-derives what the store derives from it. Returns the stored
 * permission the change removed or changed (what undo puts back), null when the store does not
 * hold the file or the permission (nothing to follow: the next scan will).
 */
export async function changeStoredFile(
  tx: Db,
  scope: TStoredFileScope,
  change: TStoredFileChange,
): Promise<{ before: TStoredPermission | null } | null> {
  const [result] = await changeStoredFiles(tx, scope, [{ fileExternalId: scope.fileExternalId, change }]);
  return result ?? null;
}

type TStoredFileState = { file: TFileRow; owner: string; permissions: TStoredPermission[]; changed: boolean };

/** One change laid over a file's stored state: what it removed or changed, or null (nothing to do). */
function changeState(
  state: TStoredFileState,
  change: TStoredFileChange,
): { before: TStoredPermission | null } | null {
  let before: TStoredPermission | null = null;
  switch (change.kind) {
    case "remove_permission":
      before = state.permissions.find((p) => p.externalId === change.permissionId) ?? null;
      if (!before) return null;
      state.permissions = state.permissions.filter((p) => p.externalId !== change.permissionId);
      break;
    case "set_role":
      before = state.permissions.find((p) => p.externalId === change.permissionId) ?? null;
      if (!before) return null;
      state.permissions = state.permissions.map((p) =>
        p.externalId === change.permissionId ? { ...p, role: change.role } : p,
      );
      break;
    case "add_permission":
      state.permissions = [
        ...state.permissions.filter((p) => p.externalId !== change.permission.externalId),
        change.permission,
      ];
      break;
    case "set_owner":
      state.owner = change.ownerEmail.toLowerCase();
      // The new owner's own grant becomes the owner column: returned, so undo can put it back.
      before = state.permissions.find((p) => p.target === state.owner) ?? null;
      break;
  }
  state.changed = true;
  return { before };
}

/** The file's rows as a snapshot would write them, from its stored state after the changes. */
function rowsOfState(state: TStoredFileState, orgId: string, connectorId: string, trusted: Set<string>) {
  const { file, owner, permissions } = state;
  // The workspace's own domains, as the stored classification had them: the internal grants'.
  const internal = new Set<string>();
  for (const p of permissions) {
    if (p.sharingType !== "internal" || p.target === "") continue;
    internal.add((p.target.includes("@") ? emailDomain(p.target) : p.target) ?? p.target);
  }
  const ownerDomain = emailDomain(owner);
  if (ownerDomain) internal.add(ownerDomain);
  const source: TSourceFile = {
    id: file.external_id,
    name: file.name,
    mimeType: file.mime_type,
    ownerEmail: owner,
    driveId: file.drive_external_id,
    permissions: permissions.map(asSourcePermission),
    modifiedAt: new Date(file.modified_at).toISOString(),
    sizeBytes: Number(file.size_bytes),
    label: file.labels[0] ?? null,
  };
  return fileRows(source, { orgId, connectorId, internal, trusted });
}

/**
 * Changes stored files of one connector, in the order given (several may change one file), and
 * re-derives what the store derives from them once for all: each file is written again exactly
 * as changing it alone would write it, with one statement per table for the whole batch. Returns,
 * per change, what changeStoredFile returns for it.
 */
export async function changeStoredFiles(
  tx: Db,
  scope: { orgId: string; connectorId: string },
  changes: ReadonlyArray<{ fileExternalId: string; change: TStoredFileChange }>,
): Promise<Array<{ before: TStoredPermission | null } | null>> {
  const { orgId, connectorId } = scope;
  if (changes.length === 0) return [];
  // The connector's snapshots take the same lock: a scan writing the store and this change take turns.
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`workspace:${connectorId}`}))`);
  const externalIds = [...new Set(changes.map((c) => c.fileExternalId))];
  const files = rowsOf<TFileRow>(
    await tx.execute(sql`
      SELECT id, external_id, name, mime_type, owner_email, drive_external_id, labels, size_bytes, modified_at
      FROM workspace_files WHERE connector_id = ${connectorId}
        AND external_id = ANY(${arrayLiteral(externalIds)}::text[])`),
  );
  const states = new Map<string, TStoredFileState>();
  for (const file of files)
    states.set(file.external_id, { file, owner: file.owner_email, permissions: [], changed: false });
  if (files.length > 0) {
    const stored = rowsOf<{
      file_id: string;
      external_id: string;
      sharing_type: TSharingType;
      target: string;
      role: string;
      target_domain: string | null;
    }>(
      await tx.execute(sql`
        SELECT file_id, external_id, sharing_type, target, role, target_domain FROM workspace_permissions
        WHERE connector_id = ${connectorId} AND file_id = ANY(${arrayLiteral(files.map((f) => f.id))}::text[])
        ORDER BY file_id, external_id`),
    );
    const byId = new Map(files.map((f) => [f.id, states.get(f.external_id)]));
    for (const p of stored)
      byId.get(p.file_id)?.permissions.push({
        externalId: p.external_id,
        sharingType: p.sharing_type,
        target: p.target,
        role: p.role,
        targetDomain: p.target_domain,
      });
  }
  const results = changes.map(({ fileExternalId, change }) => {
    const state = states.get(fileExternalId);
    return state ? changeState(state, change) : null;
  });
  const written = [...states.values()].filter((s) => s.changed);
  if (written.length === 0) return results;

  const trusted = rowsOf<{ domain: string }>(
    await tx.execute(sql`SELECT domain FROM trusted_domains WHERE org_id = ${orgId}`),
  );
  const trustedSet = new Set(trusted.map((t) => t.domain.toLowerCase()));
  const fileChanges = createFileChanges(tx, connectorId);
  await fileChanges.apply(
    written.map((s) => [s.file.external_id, rowsOfState(s, orgId, connectorId, trustedSet)] as const),
  );
  const { delta, touched } = fileChanges;
  const metrics = FILE_METRIC_KEYS.map((k) => sql`${k}::text, ${delta.metrics[k]}::int`);
  await tx.execute(sql`
    UPDATE workspace_snapshots SET files = files + ${delta.files}, permissions = permissions + ${delta.permissions},
      shares = shares + ${delta.shares},
      metrics = (SELECT jsonb_object_agg(k, coalesce((metrics->>k)::int, 0) + coalesce((d->>k)::int, 0))
                 FROM jsonb_object_keys(metrics || d) AS k)
    FROM (SELECT jsonb_build_object(${sql.join(metrics, sql`, `)}) AS d) x
    WHERE connector_id = ${connectorId}`);
  for (const [email, n] of touched.externalByOwner) {
    if (n === 0) continue;
    await tx.execute(sql`
      UPDATE workspace_users SET external_shares_owned = greatest(external_shares_owned + ${n}, 0)
      WHERE connector_id = ${connectorId} AND email = ${email}`);
  }
  // Approvals follow their item (a restored item is covered again while its approval lasts).
  const fileIds = arrayLiteral(written.map((s) => s.file.id));
  await tx.execute(sql`
    UPDATE workspace_shares s SET approved_until = a.until
    FROM (SELECT item_id, max(expires_at) AS until FROM sharing_approvals
          WHERE org_id = ${orgId} AND withdrawn_at IS NULL AND lapsed_at IS NULL AND expires_at > now() GROUP BY item_id) a
    WHERE s.connector_id = ${connectorId} AND s.file_id = ANY(${fileIds}::text[]) AND s.id = a.item_id
      AND s.approved_until IS DISTINCT FROM a.until`);
  if (touched.fileIds.size > 0) {
    await updateFlowGraph(tx, orgId, {
      fileIds: [...touched.fileIds],
      owners: [...touched.owners],
      domains: [...touched.domains],
      drives: false,
    });
  }
  return results;
}

/** An app's grant as the store keeps it (oauth_grants), what undo writes back. */
export type TStoredGrant = {
  externalId: string;
  clientId: string;
  label: string;
  kind: "ai_agent" | "oauth_app" | "service_account";
  publisher: string;
  isKnownPublisher: boolean;
  scopes: string[];
  userEmail: string;
  grantedAt: string;
  /** How the app read data and where its agent kind came from (issue 30); absent in older undo states. */
  access?: "application" | "delegated";
  agentSource?: string | null;
};

/** Removes a revoked grant from the store; returns it as it was (null: not stored). */
export async function removeStoredGrant(
  tx: Db,
  scope: { connectorId: string; grantExternalId: string },
): Promise<TStoredGrant | null> {
  const [row] = rowsOf<{
    external_id: string;
    client_id: string;
    label: string;
    kind: TStoredGrant["kind"];
    publisher: string;
    is_known_publisher: boolean;
    scopes: string[];
    user_email: string;
    granted_at: Date | string;
    access: "application" | "delegated";
    agent_source: string | null;
  }>(
    await tx.execute(sql`
      DELETE FROM oauth_grants WHERE connector_id = ${scope.connectorId} AND external_id = ${scope.grantExternalId}
      RETURNING external_id, client_id, label, kind, publisher, is_known_publisher, scopes, user_email, granted_at,
        access, agent_source`),
  );
  if (!row) return null;
  await tx.execute(
    sql`UPDATE workspace_snapshots SET grants = greatest(grants - 1, 0) WHERE connector_id = ${scope.connectorId}`,
  );
  return {
    externalId: row.external_id,
    clientId: row.client_id,
    label: row.label,
    kind: row.kind,
    publisher: row.publisher,
    isKnownPublisher: row.is_known_publisher,
    scopes: row.scopes,
    userEmail: row.user_email,
    grantedAt: new Date(row.granted_at).toISOString(),
    access: row.access,
    agentSource: row.agent_source,
  };
}

/** Puts a restored grant back in the store (under the id the source gave it back). */
export async function restoreStoredGrant(
  tx: Db,
  scope: { orgId: string; connectorId: string },
  grant: TStoredGrant,
): Promise<void> {
  const inserted = rowsOf<{ id: string }>(
    await tx.execute(sql`
      INSERT INTO oauth_grants (id, org_id, connector_id, external_id, client_id, label, kind, publisher,
        is_known_publisher, scopes, user_email, granted_at, access, agent_source)
      VALUES (${newId("grt")}, ${scope.orgId}, ${scope.connectorId},
        ${grant.externalId}, ${grant.clientId}, ${grant.label}, ${grant.kind}, ${grant.publisher},
        ${grant.isKnownPublisher}, ${arrayLiteral(grant.scopes)}::text[], ${grant.userEmail}, ${grant.grantedAt}::timestamptz,
        ${grant.access ?? "delegated"}, ${grant.agentSource ?? null})
      ON CONFLICT (connector_id, external_id) DO NOTHING RETURNING id`),
  );
  if (inserted.length > 0)
    await tx.execute(
      sql`UPDATE workspace_snapshots SET grants = grants + 1 WHERE connector_id = ${scope.connectorId}`,
    );
}
