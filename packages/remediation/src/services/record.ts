import type { Db } from "@posture/db";
import { recordAudit, type TActor, type TAuditAction } from "@posture/platform";
import { recordEvent, type TEmitInput, type TEventType } from "@posture/webhooks";

// The remediation's events and audit entries, in the caller's transaction (the outbox and the
// audit chain commit with the state change they describe, or not at all).

/**
 * Records one event and its pending deliveries (the transactional outbox) through the webhooks
 * registry, which validates the data; returns the delivery ids to dispatch after commit.
 */
export async function recordRemediationEvent<T extends TEventType>(
  tx: Db,
  input: TEmitInput<T>,
): Promise<string[]> {
  return (await recordEvent(tx, input)).deliveryIds;
}

/** The remediation's audit actions. */
export type TRemediationAuditAction = Extract<TAuditAction, `REMEDIATION_${string}`>;

/** Appends to the organization's audit chain in the caller's transaction. */
export function auditRemediation(
  tx: Db,
  scope: { orgId: string; actor: TActor },
  entry: { action: TRemediationAuditAction; target: string; metadata?: Record<string, unknown> },
): Promise<void> {
  return recordAudit(tx, {
    orgId: scope.orgId,
    action: entry.action,
    target: entry.target,
    userId: scope.actor.userId,
    userEmail: scope.actor.email,
    metadata: entry.metadata,
  });
}

export const remediationLink = (publicUrl: string, id: string) =>
  `${publicUrl.replace(/\/$/, "")}/api/remediations/${id}`;
export const findingLink = (publicUrl: string, id: string) =>
  `${publicUrl.replace(/\/$/, "")}/api/findings/${id}`;
