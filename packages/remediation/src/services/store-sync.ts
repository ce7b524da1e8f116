import { and, eq, sql } from "drizzle-orm";
import {
  SourceWriteError,
  type TDeployKeyImage,
  type TGrantImage,
  type TPermissionImage,
  type TWriteFile,
} from "@posture/connectors";
import {
  arrayLiteral,
  lockOrg,
  queryRows,
  type remediationSteps,
  type Db,
  type TRemediationResource,
  remediations,
} from "@posture/db";
import {
  changeStoredFile,
  changeStoredFiles,
  removeStoredGrant,
  restoreStoredGrant,
  type TStoredFileChange,
  type TStoredGrant,
  type TStoredPermission,
} from "@posture/workspace";
import { findingLink, recordRemediationEvent } from "./record";

// What a step's outcome changes besides the step: the resource store, the findings it fixes (or,
// on undo, re-opens) and the remediation's step counts, all in the step's own transaction.

export type TStepRow = typeof remediationSteps.$inferSelect;

/**
 * What `remediation_steps.pre_image` holds: the source's pre-image (what undo restores at the
 * source), the store's row as it was (what undo writes back to the store) and, while an undo is
 * under way, when it started on this step (a restore started but not recorded is re-read first).
 */
export type TPreImage = {
  source: TPermissionImage | TGrantImage | TDeployKeyImage | null;
  store?: TStoredPermission | TStoredGrant | null;
  undoStartedAt?: string;
};

export const preImageOf = (step: TStepRow): TPreImage | null =>
  step.preImage ? (step.preImage as unknown as TPreImage) : null;

const fileScope = (orgId: string, step: TStepRow) => {
  const r = step.resource as Extract<TRemediationResource, { kind: "permission" | "file_owner" }>;
  return { orgId, connectorId: step.connectorId, fileExternalId: r.fileId };
};

/** The role a downgrade lowers to, and the owner a transfer hands the file to (the plan's `after`). */
/** The file a step acts on, as the source writer names it. */
export const fileOf = (step: TStepRow): TWriteFile => {
  const r = step.resource;
  if (r.kind === "grant") throw new Error(`step ${step.id} acts on a grant, not a file`);
  return { id: r.fileId, driveId: r.driveId, ownerEmail: r.ownerEmail };
};
/** The OAuth grant a step revokes. */
export const grantOf = (step: TStepRow) => {
  const r = step.resource;
  if (r.kind !== "grant") throw new Error(`step ${step.id} acts on a file, not a grant`);
  return { id: r.grantId, clientId: r.clientId, userEmail: r.userEmail };
};
/** The permission a step changes. */
export const permissionIdOf = (step: TStepRow) => {
  const r = step.resource;
  if (r.kind !== "permission") throw new Error(`step ${step.id} does not name a permission`);
  return r.permissionId;
};
/** The deploy key a step deletes. */
export const keyIdOf = (step: TStepRow) => {
  const r = step.resource;
  if (r.kind !== "deploy_key") throw new Error(`step ${step.id} does not name a deploy key`);
  return r.keyId;
};
/** A source whose writer has no deploy keys (every one but GitHub). */
export const noDeployKeys = () =>
  new SourceWriteError(400, "unsupported", "This source has no deploy keys to delete");
export const targetRoleOf = (step: TStepRow): string => String(step.after?.role ?? "reader");
export const newOwnerOf = (step: TStepRow): string =>
  String(step.after?.ownerEmail ?? step.after?.owner ?? "");

/** What applying a step changes in the store: a file of its connector, a grant, or nothing. */
function storeChangeOf(
  step: TStepRow,
): { file: string; change: TStoredFileChange } | { grant: string } | null {
  const r = step.resource;
  switch (step.action) {
    case "remove_public_link":
    case "remove_external_user":
    case "remove_external_domain":
    case "remove_org_wide_link":
    case "remove_everyone_grant":
    case "remove_group_grant":
      if (r.kind !== "permission") return null;
      return { file: r.fileId, change: { kind: "remove_permission", permissionId: r.permissionId } };
    case "downgrade_permission":
      if (r.kind !== "permission") return null;
      return {
        file: r.fileId,
        change: { kind: "set_role", permissionId: r.permissionId, role: targetRoleOf(step) },
      };
    case "transfer_ownership":
      if (r.kind === "grant") return null;
      return { file: r.fileId, change: { kind: "set_owner", ownerEmail: newOwnerOf(step) } };
    case "revoke_oauth_grant":
      if (r.kind !== "grant") return null;
      return { grant: r.grantId };
    case "restrict_org_wide_link":
      // The store keeps who a permission reaches, not whether search finds it: nothing to change.
      return null;
    case "delete_deploy_key":
      // The store keeps no deploy keys (the finding's details name them): the next scan agrees.
      return null;
  }
}

/**
 * The store after steps were applied, in their order: the files they touch are written once per
 * connector (changeStoredFiles). Returns, per step, the store's row as it was (kept for undo).
 */
export async function storeAfterApply(
  tx: Db,
  q: { orgId: string; steps: readonly TStepRow[] },
): Promise<Array<TStoredPermission | TStoredGrant | null>> {
  const { orgId, steps } = q;
  const before: Array<TStoredPermission | TStoredGrant | null> = steps.map(() => null);
  const files = new Map<string, Array<{ at: number; fileExternalId: string; change: TStoredFileChange }>>();
  for (const [at, step] of steps.entries()) {
    const change = storeChangeOf(step);
    if (!change) continue;
    if ("grant" in change) {
      before[at] = await removeStoredGrant(tx, {
        connectorId: step.connectorId,
        grantExternalId: change.grant,
      });
      continue;
    }
    const batch = files.get(step.connectorId) ?? [];
    batch.push({ at, fileExternalId: change.file, change: change.change });
    files.set(step.connectorId, batch);
  }
  for (const [connectorId, batch] of files) {
    const changed = await changeStoredFiles(tx, { orgId, connectorId }, batch);
    for (const [i, { at }] of batch.entries()) before[at] = changed[i]?.before ?? null;
  }
  return before;
}

/** The store after a step was undone (`restoredId`: the id the source gave the restored permission or grant). */
export async function storeAfterUndo(
  tx: Db,
  q: { orgId: string; step: TStepRow; restoredId: string | null },
) {
  const { orgId, step, restoredId } = q;
  const r = step.resource;
  const pre = preImageOf(step);
  switch (step.action) {
    case "remove_public_link":
    case "remove_external_user":
    case "remove_external_domain":
    case "remove_org_wide_link":
    case "remove_everyone_grant":
    case "remove_group_grant": {
      const stored = pre?.store as TStoredPermission | null | undefined;
      if (!stored) return;
      await changeStoredFile(tx, fileScope(orgId, step), {
        kind: "add_permission",
        permission: { ...stored, externalId: restoredId ?? stored.externalId },
      });
      return;
    }
    case "downgrade_permission": {
      if (r.kind !== "permission") return;
      const role =
        (pre?.store as TStoredPermission | null | undefined)?.role ?? (pre?.source as TPermissionImage)?.role;
      if (role)
        await changeStoredFile(tx, fileScope(orgId, step), {
          kind: "set_role",
          permissionId: r.permissionId,
          role,
        });
      return;
    }
    case "transfer_ownership": {
      if (r.kind !== "file_owner") return;
      await changeStoredFile(tx, fileScope(orgId, step), { kind: "set_owner", ownerEmail: r.ownerEmail });
      // The new owner's grant as it was before the transfer (the source keeps them on the file).
      const stored = pre?.store as TStoredPermission | null | undefined;
      if (stored)
        await changeStoredFile(tx, fileScope(orgId, step), { kind: "add_permission", permission: stored });
      return;
    }
    case "revoke_oauth_grant": {
      const stored = pre?.store as TStoredGrant | null | undefined;
      if (!stored) return;
      await restoreStoredGrant(
        tx,
        { orgId, connectorId: step.connectorId },
        { ...stored, externalId: restoredId ?? stored.externalId },
      );
      return;
    }
  }
}

/** Takes the lock every writer of the organization's findings takes (the scan pipeline's too). */
export const lockFindings = (tx: Db, orgId: string) => tx.execute(lockOrg(orgId, "findings"));

/**
 * Resolves the findings these steps (decided, in order) name whose every step (in this
 * remediation) is now applied or found already gone, with `finding.resolved` for each, naming
 * the last of the steps that names it. Returns the deliveries to dispatch.
 */
export async function resolveFindings(
  tx: Db,
  input: { orgId: string; remediationId: string; steps: readonly TStepRow[]; publicUrl: string; now: Date },
): Promise<string[]> {
  const lastStep = new Map<string, TStepRow>();
  for (const step of input.steps) for (const id of step.findingIds) lastStep.set(id, step);
  if (lastStep.size === 0) return [];
  const resolved = await queryRows<{ id: string; title: string }>(
    tx,
    sql`UPDATE findings f SET status = 'RESOLVED', resolved_at = ${input.now.toISOString()}::timestamptz,
          resolved_by = ${input.remediationId},
          -- Open, it was seen by its connector's latest scan (lastSeenAt in docs/export.md): resolved, its row says so.
          last_seen_scan_id = CASE WHEN f.category = 'tenant_configuration' THEN f.last_seen_scan_id ELSE coalesce(
            (SELECT s.id FROM scans s WHERE s.org_id = f.org_id AND s.connector_id = f.connector_id AND s.status = 'COMPLETE'
              ORDER BY s.completed_at DESC, s.id DESC LIMIT 1), f.last_seen_scan_id) END
        WHERE f.org_id = ${input.orgId} AND f.id = ANY(${arrayLiteral([...lastStep.keys()])}::text[]) AND f.status = 'OPEN'
          -- The findings a step not yet done names, read once for the batch (not once per finding).
          AND f.id NOT IN (SELECT x FROM remediation_steps s, unnest(s.finding_ids) AS x
            WHERE s.remediation_id = ${input.remediationId} AND s.status NOT IN ('APPLIED', 'ALREADY_GONE')
              AND x IS NOT NULL)
        RETURNING f.id, f.title`,
  );
  // As the steps were decided one by one: each step's findings, by id.
  const seq = (f: { id: string }) => lastStep.get(f.id)?.seq ?? 0;
  resolved.sort((a, b) => seq(a) - seq(b) || (a.id < b.id ? -1 : 1));
  const deliveries: string[] = [];
  for (const f of resolved) {
    const step = lastStep.get(f.id);
    if (!step) continue;
    deliveries.push(
      ...(await recordRemediationEvent(tx, {
        orgId: input.orgId,
        type: "finding.resolved",
        data: {
          findingId: f.id,
          title: f.title,
          link: findingLink(input.publicUrl, f.id),
          action: step.action,
          remediationId: input.remediationId,
        },
      })),
    );
  }
  return deliveries;
}

/** Re-opens the findings this remediation resolved that an undone step names. */
export async function reopenFindings(
  tx: Db,
  input: { orgId: string; remediationId: string; step: TStepRow },
) {
  if (input.step.findingIds.length === 0) return 0;
  const reopened = await queryRows<{ id: string }>(
    tx,
    sql`UPDATE findings SET status = 'OPEN', resolved_at = NULL, resolved_by = NULL
        WHERE org_id = ${input.orgId} AND id = ANY(${arrayLiteral(input.step.findingIds)}::text[])
          AND status = 'RESOLVED' AND resolved_by = ${input.remediationId}
        RETURNING id`,
  );
  return reopened.length;
}

/** Keeps `remediations.step_counts` equal to its steps' statuses. */
export async function refreshStepCounts(tx: Db, remediationId: string): Promise<Record<string, number>> {
  const rows = await queryRows<{ status: string; n: number }>(
    tx,
    sql`SELECT status, count(*)::int AS n FROM remediation_steps WHERE remediation_id = ${remediationId} GROUP BY status`,
  );
  const counts = Object.fromEntries(rows.map((r) => [r.status, r.n]));
  await tx.execute(
    sql`UPDATE remediations SET step_counts = ${JSON.stringify(counts)}::jsonb WHERE id = ${remediationId}`,
  );
  return counts;
}

/**
 * The remediation's row, locked for the caller's transaction: its status moves under this lock.
 * With `orgId`, another organization's id is not found.
 */
export async function lockRemediation(tx: Db, id: string, orgId?: string) {
  const [rem] = await tx
    .select()
    .from(remediations)
    .where(
      orgId === undefined
        ? eq(remediations.id, id)
        : and(eq(remediations.id, id), eq(remediations.orgId, orgId)),
    )
    .for("update");
  return rem;
}
