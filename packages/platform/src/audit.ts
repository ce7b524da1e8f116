import { auditLog, type Db } from "@posture/db";
import type { TActor } from "./actor";
import { desc, eq } from "drizzle-orm";
import { appendKeyedAudit, auditKey, lockAuditChain } from "./audit-chain";
import { noteReadWrite } from "./data-epochs";

export const AUDIT_ACTIONS = [
  "SIGN_IN",
  "SIGN_IN_FAILED",
  "SIGN_OUT",
  "API_KEY_CREATED",
  "API_KEY_REVOKED",
  "SCAN_TRIGGERED",
  "CONNECTOR_CONNECTED",
  "CONNECTOR_DISCONNECTED",
  "CONNECTOR_UPDATED",
  "TICKET_CREATED",
  "TICKET_UPDATED_BY_TRACKER",
  "TICKET_CLOSED_IN_TRACKER",
  "WEBHOOK_CREATED",
  "WEBHOOK_DELETED",
  "WEBHOOK_REDELIVERED",
  "WEBHOOK_TESTED",
  "WEBHOOK_SECRET_ROTATED",
  "POLICY_CHANGED",
  "TICKETING_CONFIGURED",
  "TRUSTED_DOMAIN_ADDED",
  "TRUSTED_DOMAIN_REMOVED",
  "COMPLIANCE_REPORT_CREATED",
  "EVIDENCE_PACKAGE_REQUESTED",
  "POSTURE_REPORT_EXPORTED",
  "PARTNER_SETTINGS_UPDATED",
  "PARTNER_GROUP_CHANGED",
  "PARTNER_STANDARD_CHANGED",
  "PARTNER_ACTION_CREATED",
  "SHARE_APPROVED",
  "SHARE_APPROVAL_WITHDRAWN",
  "INCIDENT_CREATED",
  "INCIDENT_UPDATED",
  "INCIDENT_SETTINGS_CHANGED",
  "EXPOSURE_SETTINGS_CHANGED",
  "AUDIT_CHAIN_KEYED",
  "REMEDIATION_PLANNED",
  "REMEDIATION_APPROVED",
  "REMEDIATION_CANCELLED",
  "REMEDIATION_SETTINGS_CHANGED",
  "REMEDIATION_APPLY_STARTED",
  "REMEDIATION_APPLIED",
  "REMEDIATION_FAILED",
  "REMEDIATION_UNDO_REQUESTED",
  "REMEDIATION_UNDO_STARTED",
  "REMEDIATION_UNDO_FAILED",
  "REMEDIATION_REVERTED",
  "SANDBOX_CREATED",
  "SANDBOX_SCENARIO_STARTED",
  "SANDBOX_SCENARIO_FINISHED",
  "SANDBOX_RESET",
  "FINDINGS_EXPORTED",
  "PARTNER_CLIENT_READ",
  "PARTNER_ACCESS_WITHDRAWN",
  "PARTNER_ACCESS_GRANTED",
  "PARTNER_LINK_CHANGED",
] as const;
export type TAuditAction = (typeof AUDIT_ACTIONS)[number];

export type TAuditEntry = {
  orgId: string;
  action: TAuditAction;
  target: string;
  userId?: string | null;
  userEmail: string;
  metadata?: Record<string, unknown>;
};

/**
 * Appends to the organization's chain. With the process's audit key set (every server process
 * sets it at start: gateway, scheduler, CLI) the row is linked and MACed here (audit-chain.ts);
 * without one, the database trigger chains it with the plain hash, and the verifier reports it as
 * unkeyed — refused once the organization's chain holds a keyed row.
 */
export async function recordAudit(db: Db, entry: TAuditEntry): Promise<void> {
  noteReadWrite(entry.orgId);
  const key = auditKey();
  const row = {
    orgId: entry.orgId,
    action: entry.action,
    target: entry.target,
    userId: entry.userId ?? null,
    userEmail: entry.userEmail,
    metadata: entry.metadata ?? {},
  };
  if (key) {
    // A transaction of its own, or a savepoint in the caller's: the chain lock lasts until commit.
    await db.transaction((tx) => appendKeyedAudit(tx, key, row));
    return;
  }
  // Without a key the database trigger chains the row with the plain hash: acceptable only for a
  // chain that was never keyed (tests, rows from before 0006). After a keyed row it would break
  // the chain for good, so it is refused and the caller's transaction rolls back.
  await db.transaction(async (tx) => {
    await tx.execute(lockAuditChain(entry.orgId));
    const [last] = await tx
      .select({ chain: auditLog.chain })
      .from(auditLog)
      .where(eq(auditLog.orgId, entry.orgId))
      .orderBy(desc(auditLog.seq))
      .limit(1);
    if (last?.chain === "hmac") {
      throw new Error(
        "audit key not set: this organization's audit chain is keyed, and an unkeyed row would break it (every process calls setAuditKey at start)",
      );
    }
    await tx.insert(auditLog).values(row);
  });
}

/**
 * The one audit helper for services: call it with the mutation's transaction (`tx`), so the
 * change and its audit row commit together or not at all.
 */
export function audit(
  tx: Db,
  scope: { orgId: string; actor: TActor },
  entry: { action: TAuditAction; target: string; metadata?: Record<string, unknown> },
): Promise<void> {
  return recordAudit(tx, {
    orgId: scope.orgId,
    action: entry.action,
    target: entry.target,
    userId: scope.actor.userId,
    userEmail: scope.actor.email,
    // Which program acted (e.g. an MCP client), when the request declared one.
    metadata:
      scope.actor.client === undefined ? entry.metadata : { ...entry.metadata, client: scope.actor.client },
  });
}
