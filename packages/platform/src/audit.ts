import { auditLog, type Db } from "@posture/db";

export const AUDIT_ACTIONS = [
  "SIGN_IN",
  "SIGN_IN_FAILED",
  "SIGN_OUT",
  "API_KEY_CREATED",
  "API_KEY_REVOKED",
  "SCAN_TRIGGERED",
  "CONNECTOR_CONNECTED",
  "CONNECTOR_DISCONNECTED",
  "TICKET_CREATED",
  "WEBHOOK_CREATED",
  "WEBHOOK_DELETED",
  "POLICY_CHANGED",
  "TICKETING_CONFIGURED",
  "TRUSTED_DOMAIN_ADDED",
  "TRUSTED_DOMAIN_REMOVED",
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

/** Appends to the organization's chain; sequence and hashes are assigned by the database trigger. */
export async function recordAudit(db: Db, entry: TAuditEntry): Promise<void> {
  await db.insert(auditLog).values({
    orgId: entry.orgId,
    action: entry.action,
    target: entry.target,
    userId: entry.userId ?? null,
    userEmail: entry.userEmail,
    metadata: entry.metadata ?? {},
  });
}
