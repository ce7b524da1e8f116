import { and, arrayContains, eq } from "drizzle-orm";
import { events, webhookDeliveries, webhookSubscriptions, type Db } from "@posture/db";
import { recordAudit, type TActor, type TAuditAction } from "@posture/platform";
import { z } from "zod";

// The remediation's events and audit entries, in the caller's transaction (the outbox and the
// audit chain commit with the state change they describe, or not at all).

const ZCounts = z.record(z.string(), z.number().int().min(0));
const ZLink = z.url();

/**
 * The data of the events remediation records. `finding.resolved` and `prevention.triggered` are
 * the spec's, with the action and the remediation added (receivers ignore fields they do not know).
 */
export const REMEDIATION_EVENT_SCHEMAS = {
  "remediation.applied": z.strictObject({
    remediationId: z.string().min(1),
    status: z.enum(["APPLIED", "PARTIAL"]),
    counts: ZCounts,
    link: ZLink,
  }),
  "remediation.failed": z.strictObject({
    remediationId: z.string().min(1),
    status: z.literal("FAILED"),
    counts: ZCounts,
    link: ZLink,
  }),
  "remediation.reverted": z.strictObject({
    remediationId: z.string().min(1),
    status: z.literal("REVERTED"),
    counts: ZCounts,
    /** Steps that stayed applied: irreversible ones, and restores the source refused. */
    notReverted: z.number().int().min(0),
    link: ZLink,
  }),
  "finding.resolved": z.strictObject({
    findingId: z.string().min(1),
    title: z.string(),
    link: ZLink,
    action: z.string().min(1),
    remediationId: z.string().min(1),
  }),
  "prevention.triggered": z.strictObject({
    ruleId: z.string().min(1),
    action: z.string().min(1),
    count: z.number().int().min(0),
    severity: z.enum(["CRITICAL", "HIGH", "MEDIUM", "LOW"]),
    remediationId: z.string().min(1),
    /** What became of the plan: applied (under the cap), waiting for approval, or a dry run. */
    outcome: z.enum(["applying", "awaiting_approval", "dry_run"]),
  }),
} as const;

export type TRemediationEventType = keyof typeof REMEDIATION_EVENT_SCHEMAS;
export type TRemediationEventData<T extends TRemediationEventType> = z.infer<
  (typeof REMEDIATION_EVENT_SCHEMAS)[T]
>;

/**
 * Records one event and its pending deliveries (the transactional outbox), exactly as webhooks'
 * `recordEvent` does, validated against the shapes above: the webhooks registry does not know the
 * remediation events (nor the added fields) yet. Returns the delivery ids to dispatch after commit.
 */
export async function recordRemediationEvent<T extends TRemediationEventType>(
  tx: Db,
  input: { orgId: string; type: T; data: TRemediationEventData<T> },
): Promise<string[]> {
  const data: unknown = REMEDIATION_EVENT_SCHEMAS[input.type].parse(input.data);
  const [event] = await tx
    .insert(events)
    .values({ orgId: input.orgId, type: input.type, data: JSON.stringify(data) })
    .returning({ id: events.id, createdAt: events.createdAt });
  if (!event) throw new Error("event insert returned no row");
  const subs = await tx
    .select({ id: webhookSubscriptions.id })
    .from(webhookSubscriptions)
    .where(
      and(
        eq(webhookSubscriptions.orgId, input.orgId),
        eq(webhookSubscriptions.status, "active"),
        arrayContains(webhookSubscriptions.events, [input.type]),
      ),
    );
  if (subs.length === 0) return [];
  const rows = await tx
    .insert(webhookDeliveries)
    .values(
      subs.map((s) => ({
        orgId: input.orgId,
        subscriptionId: s.id,
        eventId: event.id,
        event: input.type,
        nextAttemptAt: event.createdAt,
      })),
    )
    .returning({ id: webhookDeliveries.id });
  return rows.map((r) => r.id);
}

/** The remediation's audit actions (platform's AUDIT_ACTIONS lists them at merge). */
export type TRemediationAuditAction =
  | "REMEDIATION_APPLY_STARTED"
  | "REMEDIATION_APPLIED"
  | "REMEDIATION_FAILED"
  | "REMEDIATION_UNDO_STARTED"
  | "REMEDIATION_REVERTED"
  | "REMEDIATION_PLANNED"
  | "REMEDIATION_APPROVED";

/** Appends to the organization's audit chain in the caller's transaction. */
export function auditRemediation(
  tx: Db,
  scope: { orgId: string; actor: TActor },
  entry: { action: TRemediationAuditAction; target: string; metadata?: Record<string, unknown> },
): Promise<void> {
  return recordAudit(tx, {
    orgId: scope.orgId,
    action: entry.action as TAuditAction,
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
