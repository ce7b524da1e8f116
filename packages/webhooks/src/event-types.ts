import { z } from "zod";
import { ANOMALY_TYPES, REMEDIATION_STATUSES, ROLES, SEVERITIES } from "@posture/db";

// The spec's Events table: one schema per event, exactly its data fields.
const ZSeverity = z.enum(SEVERITIES);
const ZCount = z.number().int().min(0);
const ZLink = z.url();

export const ZScanCompletedData = z.strictObject({
  connectorId: z.string().min(1),
  connectorName: z.string(),
  score: z.number().int().min(0).max(100),
  findingsTotal: ZCount,
  findingsNew: ZCount,
  link: ZLink,
});

export const ZFindingNewData = z.strictObject({
  findingId: z.string().min(1),
  severity: ZSeverity,
  title: z.string(),
  resource: z.string(),
  link: ZLink,
});

export const ZFindingResolvedData = z.strictObject({
  findingId: z.string().min(1),
  title: z.string(),
  link: ZLink,
  /** Resolved by a remediation's step: the step's action and its remediation (null: a scan saw it gone). */
  action: z.string().min(1).nullable(),
  remediationId: z.string().min(1).nullable(),
});

/**
 * A tracker's signed webhook moved a ticketed finding (issue 32): the ticket was closed as done
 * (`done`: the finding stays OPEN until a scan confirms, flagged), closed as won't do
 * (`declined`: ACCEPTED, risk accepted in the tracker) or reopened (`reopened`: OPEN again).
 */
export const ZFindingTicketUpdatedData = z.strictObject({
  findingId: z.string().min(1),
  title: z.string(),
  link: ZLink,
  provider: z.enum(["jira", "github", "linear"]),
  externalId: z.string().min(1),
  trackerState: z.enum(["done", "declined", "reopened"]),
  findingStatus: z.enum(["OPEN", "RESOLVED", "ACCEPTED"]),
});

export const ZPolicyViolationData = z.strictObject({
  ruleId: z.string().min(1),
  severity: ZSeverity,
  count: ZCount,
});

export const ZPreventionTriggeredData = z.strictObject({
  ruleId: z.string().min(1),
  action: z.string().min(1),
  count: ZCount,
  severity: ZSeverity,
  /** An acting rule's remediation, and what became of it: applying (under the cap), waiting for approval, or a dry run (null: ALERT_ONLY). */
  remediationId: z.string().min(1).nullable(),
  outcome: z.enum(["applying", "awaiting_approval", "dry_run"]).nullable(),
});

export const ZAlertGroupedData = z.strictObject({
  category: z.string().min(1),
  severity: ZSeverity,
  count: ZCount,
  title: z.string(),
  link: ZLink,
});

// Contract events beyond the spec's six (receivers ignore events they do not know).

/** A scheduled portfolio report (WEEKLY / MONTHLY) of a partner is ready to download. */
export const ZPartnerReportReadyData = z.strictObject({
  reportId: z.string().min(1),
  schedule: z.enum(["WEEKLY", "MONTHLY"]),
  periodStart: z.iso.datetime(),
  periodEnd: z.iso.datetime(),
  clients: ZCount,
  link: ZLink,
});

/** A managed organization needs attention: a source turned unhealthy, or its score dropped ≥ 10 points. */
export const ZClientUnhealthyData = z.strictObject({
  orgId: z.string().min(1),
  name: z.string(),
  reason: z.enum(["source_unhealthy", "score_drop"]),
  sources: z.array(z.strictObject({ connectorId: z.string(), name: z.string(), healthStatus: z.string() })),
  score: z.number().int().min(0).max(100).nullable(),
  previousScore: z.number().int().min(0).max(100).nullable(),
  link: ZLink,
});

// Events beyond the spec's six (CONTRACT: receivers ignore events they do not know).
export const ZAnomalyDetectedData = z.strictObject({
  anomalyId: z.string().min(1),
  principal: z.string(),
  type: z.enum(ANOMALY_TYPES),
  severity: ZSeverity,
  confidence: z.number().min(0).max(1),
  at: z.iso.datetime(),
  link: ZLink,
});

const ZIncidentStatus = z.enum(["OPEN", "INVESTIGATING", "CONTAINED", "RESOLVED", "CLOSED"]);
const ZIncidentPriority = z.enum(["P1", "P2", "P3", "P4"]);

export const ZIncidentCreatedData = z.strictObject({
  incidentId: z.string().min(1),
  title: z.string(),
  status: ZIncidentStatus,
  priority: ZIncidentPriority,
  assignee: z.string(),
  linkedFindingCount: ZCount,
  link: ZLink,
});

export const ZIncidentUpdatedData = z.strictObject({
  incidentId: z.string().min(1),
  title: z.string(),
  status: ZIncidentStatus,
  priority: ZIncidentPriority,
  assignee: z.string(),
  /** What changed: status, priority, assignee, note, postMortem. */
  changes: z.array(z.string()),
  /** The status before this change, when the status moved. */
  previousStatus: ZIncidentStatus.nullable(),
  link: ZLink,
});

export const ZIncidentDeadlineApproachingData = z.strictObject({
  incidentId: z.string().min(1),
  title: z.string(),
  status: ZIncidentStatus,
  priority: ZIncidentPriority,
  /** gdpr | hipaa: the clock (GET /api/incidents/{id} `deadlines`). */
  regulation: z.string().min(1),
  dueAt: z.iso.datetime(),
  link: ZLink,
});

// Remediation at the source (issue 19): a plan, and what applying or undoing it did.
const ZRemediationStatus = z.enum(REMEDIATION_STATUSES);

/** A remediation was planned (manually, by a quick win or by a prevention rule). */
export const ZRemediationPlannedData = z.strictObject({
  remediationId: z.string().min(1),
  status: ZRemediationStatus,
  origin: z.enum(["manual", "prevention", "quick_win"]),
  dryRun: z.boolean(),
  /** Changes at the source the plan holds, and the findings they fix completely. */
  stepCount: ZCount,
  findingCount: ZCount,
  /** The posture score now and as predicted once applied. */
  scoreBefore: z.number().int().min(0).max(100),
  predictedScore: z.number().int().min(0).max(100),
  plannedBy: z.string(),
  link: ZLink,
});

/** A remediation's apply finished with every step applied or already gone (APPLIED) or some failed (PARTIAL). */
export const ZRemediationAppliedData = z.strictObject({
  remediationId: z.string().min(1),
  status: z.enum(["APPLIED", "PARTIAL"]),
  stepCount: ZCount,
  applied: ZCount,
  alreadyGone: ZCount,
  failed: ZCount,
  /** Findings resolved by the apply. */
  resolvedFindings: ZCount,
  link: ZLink,
});

/** A remediation's apply failed: no step could be applied. */
export const ZRemediationFailedData = z.strictObject({
  remediationId: z.string().min(1),
  status: z.literal("FAILED"),
  stepCount: ZCount,
  failed: ZCount,
  /** The first step's refusal, in the source's words. */
  error: z.string(),
  link: ZLink,
});

/** A remediation was undone: its reversible applied steps were restored at the source. */
export const ZRemediationRevertedData = z.strictObject({
  remediationId: z.string().min(1),
  status: z.literal("REVERTED"),
  reverted: ZCount,
  /** Applied steps that could not be put back (irreversible, or the source refused). */
  notReverted: ZCount,
  link: ZLink,
});

// Four eyes (issue 28): every change that loosens a control or changes a tenant is announced, with
// who made it, so a receiver can alert on one person acting alone.

/** A person who acted (an API key is its creator), their role, and the credential they used (the system: no role). */
const ZPerson = z.strictObject({
  email: z.string(),
  role: z.enum(ROLES).nullable(),
  credential: z.enum(["session", "api_key", "system"]),
});

const ZSettingsValues = z.strictObject({
  fourEyes: z.boolean(),
  preventionChangeCap: ZCount,
  partnerMayApprove: z.boolean(),
});

/** PATCH /api/remediation-settings changed something. */
export const ZRemediationSettingsChangedData = z.strictObject({
  previous: ZSettingsValues,
  current: ZSettingsValues,
  changed: z.array(z.enum(["fourEyes", "preventionChangeCap", "partnerMayApprove"])),
  /** A control was loosened: four eyes turned off, the prevention cap raised, or partner approval allowed. */
  weakened: z.boolean(),
  changedBy: ZPerson,
  link: ZLink,
});

/** With four eyes on, one person asked to undo a remediation: it waits for a different person's undo. */
export const ZRemediationUndoRequestedData = z.strictObject({
  remediationId: z.string().min(1),
  status: z.enum(["APPLIED", "PARTIAL"]),
  requestedBy: ZPerson,
  /** Applied steps the undo would put back at the source. */
  reversibleSteps: ZCount,
  link: ZLink,
});

/** An undo started (REVERTING): who asked, and who confirmed (null: four eyes off, one person). */
export const ZRemediationRevertingData = z.strictObject({
  remediationId: z.string().min(1),
  status: z.literal("REVERTING"),
  requestedBy: ZPerson,
  confirmedBy: ZPerson.nullable(),
  reversibleSteps: ZCount,
  link: ZLink,
});

/** An undo put nothing back (every restore refused): the remediation is back as it was. */
export const ZRemediationUndoFailedData = z.strictObject({
  remediationId: z.string().min(1),
  status: z.enum(["APPLIED", "PARTIAL"]),
  notReverted: ZCount,
});

/** A prevention rule was created, changed, deleted or approved. */
export const ZPreventionRuleChangedData = z.strictObject({
  ruleId: z.string().min(1),
  name: z.string(),
  change: z.enum(["created", "updated", "deleted", "approved"]),
  action: z.string().min(1),
  enabled: z.boolean(),
  dryRun: z.boolean(),
  /** The rule changes the tenant after a scan (enabled, an acting action, not a dry run). */
  acting: z.boolean(),
  /** This change made the rule act, or act on more (its standing approval was cleared). */
  widened: z.boolean(),
  /** With four eyes on, an acting rule's plans are applied by the system only once `approved`. */
  approval: z.enum(["approved", "pending", "not_needed"]),
  changedBy: ZPerson,
});

/**
 * A test delivery (POST /api/webhooks/{id}/test): sent to the one subscription asked, whatever
 * events it subscribed to, never fanned out. Receivers acknowledge it like any other event.
 */
export const ZWebhookTestData = z.strictObject({
  subscriptionId: z.string().min(1),
  /** Who asked for the test (the user's email, or the API key's creator). */
  requestedBy: z.string(),
  message: z.string(),
});

// Partner depth (issue 17): events of a partner organization about its clients.

/** A managed client withdrew its partner's access, or granted it again. */
export const ZPartnerAccessChangedData = z.strictObject({
  clientOrgId: z.string().min(1),
  clientName: z.string(),
  access: z.enum(["granted", "withdrawn"]),
  /** The client's user who changed it. */
  changedBy: z.string(),
});

/** A client departed from a rule of a standard assigned to it (one event per new drift). */
export const ZPartnerDriftDetectedData = z.strictObject({
  driftId: z.string().min(1),
  standardId: z.string().min(1),
  standardName: z.string(),
  clientOrgId: z.string().min(1),
  clientName: z.string(),
  /** The rule within the standard: `policy:<ruleId>`, `prevention:<ruleId>`, `trusted_domain:<domain>`, `min_score`. */
  rule: z.string().min(1),
  severity: ZSeverity,
  link: ZLink,
});

const ZCampaignData = z.strictObject({
  campaignId: z.string().min(1),
  kind: z.enum(["oauth_app", "ai_agent", "outside_domain", "anomaly"]),
  subject: z.string(),
  title: z.string(),
  severity: ZSeverity,
  clientOrgIds: z.array(z.string()),
  clientCount: ZCount,
  firstSeenAt: z.iso.datetime(),
  link: ZLink,
});

/** The cross-client radar found one subject in N or more clients (a new campaign, or one back after resolving). */
export const ZPortfolioCampaignDetectedData = ZCampaignData;
/** A campaign reached more clients, or its severity rose. */
export const ZPortfolioCampaignUpdatedData = ZCampaignData;

/**
 * Webhook delivery envelope for a partner's subscription with `includeClients` (issue 17): a
 * client's event carries `client: {orgId, name}` beside `event`, `data`, `id` and `createdAt`.
 */

export const EVENT_DATA_SCHEMAS = {
  "scan.completed": ZScanCompletedData,
  "finding.new": ZFindingNewData,
  "finding.resolved": ZFindingResolvedData,
  "finding.ticket.updated": ZFindingTicketUpdatedData,
  "policy.violation": ZPolicyViolationData,
  "prevention.triggered": ZPreventionTriggeredData,
  "alert.grouped": ZAlertGroupedData,
  "partner.report.ready": ZPartnerReportReadyData,
  "client.unhealthy": ZClientUnhealthyData,
  "anomaly.detected": ZAnomalyDetectedData,
  "incident.created": ZIncidentCreatedData,
  "incident.updated": ZIncidentUpdatedData,
  "incident.deadline.approaching": ZIncidentDeadlineApproachingData,
  "remediation.planned": ZRemediationPlannedData,
  "remediation.applied": ZRemediationAppliedData,
  "remediation.failed": ZRemediationFailedData,
  "remediation.reverted": ZRemediationRevertedData,
  "remediation.settings.changed": ZRemediationSettingsChangedData,
  "remediation.undo.requested": ZRemediationUndoRequestedData,
  "remediation.reverting": ZRemediationRevertingData,
  "remediation.undo.failed": ZRemediationUndoFailedData,
  "prevention.rule.changed": ZPreventionRuleChangedData,
  "webhook.test": ZWebhookTestData,
  "partner.access.changed": ZPartnerAccessChangedData,
  "partner.drift.detected": ZPartnerDriftDetectedData,
  "portfolio.campaign.detected": ZPortfolioCampaignDetectedData,
  "portfolio.campaign.updated": ZPortfolioCampaignUpdatedData,
} as const;

export type TEventType = keyof typeof EVENT_DATA_SCHEMAS;
export type TEventData<T extends TEventType> = z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>;

export const EVENT_TYPES = Object.keys(EVENT_DATA_SCHEMAS) as [TEventType, ...TEventType[]];
export const ZEventType = z.enum(EVENT_TYPES);

/** Events only ever sent to one subscription on request: not subscribed to, never fanned out. */
export const DIRECT_EVENT_TYPES = ["webhook.test"] as const satisfies readonly TEventType[];

/** What a subscription may ask for: every event but the direct ones. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter(
  (t) => !(DIRECT_EVENT_TYPES as readonly string[]).includes(t),
) as [TEventType, ...TEventType[]];
export const ZSubscribableEventType = z.enum(SUBSCRIBABLE_EVENT_TYPES);
