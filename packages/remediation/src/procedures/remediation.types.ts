import { offsetInput, ZOffsetMeta, ZTimestamp } from "@posture/platform";
import { REMEDIATION_ACTIONS, REMEDIATION_STATUSES, REMEDIATION_STEP_STATUSES } from "@posture/db";
import { z } from "zod";

// The wire shapes of /api/remediations and /api/posture/simulate (CONTRACT.md, "Remediation,
// scans, sandbox, MCP, partner depth"). Every procedure of the package reads them from here.

const ZId = z.string().min(1).max(64);
const ZIds = z.array(ZId).max(1_000);

export const ZPlaybook = z.strictObject({
  kind: z.literal("offboard_user"),
  /** The person leaving: every external share they own and their OAuth grants. */
  userEmail: z.email().max(320),
  /** Optional: their externally shared files become this internal user's. */
  transferTo: z.email().max(320).optional(),
});

export const ZPlanInput = z.strictObject({
  findingIds: ZIds.optional(),
  /** Sharing items (GET /api/sharing/items ids): each way a file leaves the organization. */
  shareIds: ZIds.optional(),
  /** AI agents / OAuth apps (GET /api/agents ids): every user's grant to them is revoked. */
  agentIds: ZIds.optional(),
  playbook: ZPlaybook.optional(),
  /** A quick win's group (GET /posture/breakdown `quickWins[].plan`): every open finding of it. */
  quickWin: z
    .enum([
      "public_links",
      "untrusted_shares",
      "trusted_shares",
      "unverified_broad_apps",
      "unverified_apps",
      "org_wide_links",
      "everyone_grants",
      "broad_group_grants",
    ])
    .optional()
    .describe(
      "A quick win's group (GET /posture/breakdown `quickWins[].plan`): every open finding of it. `org_wide_links`, `everyone_grants` and `broad_group_grants` are internal exposure: organization-wide links, grants to everyone in the tenant, broad groups' grants",
    ),
  orgWideLinks: z
    .enum(["remove", "restrict"])
    .optional()
    .describe(
      "What the plan does to the organization-wide links of its `org_wide_link` findings: `remove` (the default: remove_org_wide_link, the finding resolves) or `restrict` (restrict_org_wide_link: a searchable Google link becomes link-only, so nobody finds the file by search or an assistant's index without the link; the link stays, so the finding stays open, with the steps listed and Microsoft's links, never searchable, skipped)",
    ),
  /** A partner planning for a client it manages (partner principals only; else 404). */
  organizationId: ZId.optional(),
});
export type TPlanInput = z.infer<typeof ZPlanInput>;

export const ZStepResource = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("permission"),
    fileId: z.string(),
    driveId: z.string().nullable(),
    name: z.string(),
    ownerEmail: z.string(),
    permissionId: z.string(),
  }),
  z.object({
    kind: z.literal("file_owner"),
    fileId: z.string(),
    driveId: z.string().nullable(),
    name: z.string(),
    ownerEmail: z.string(),
  }),
  z.object({
    kind: z.literal("grant"),
    grantId: z.string(),
    clientId: z.string(),
    label: z.string(),
    userEmail: z.string(),
  }),
  z.object({
    kind: z.literal("deploy_key"),
    fileId: z.string().describe("The repository's full name, `owner/repo`"),
    driveId: z.string().nullable(),
    name: z.string(),
    ownerEmail: z.string(),
    keyId: z.string().describe("The deploy key's id at GitHub (an undo adds it back under a new one)"),
    title: z.string(),
  }),
]);

export const ZStepError = z.object({
  status: z.number().int().nullable(),
  code: z.string(),
  message: z.string(),
});

export const ZStep = z.object({
  id: z.string(),
  seq: z.number().int(),
  action: z.enum(REMEDIATION_ACTIONS),
  connectorId: z.string(),
  resource: ZStepResource,
  /** The grant or permission as it is (type, role, target…). */
  before: z.record(z.string(), z.unknown()),
  /** As it will be; null when it is removed. */
  after: z.record(z.string(), z.unknown()).nullable(),
  reversible: z.boolean(),
  irreversibleReason: z.string().nullable(),
  findingIds: z.array(z.string()),
  people: z.array(z.string()),
  status: z.enum(REMEDIATION_STEP_STATUSES),
  error: ZStepError.nullable(),
  appliedAt: ZTimestamp.nullable(),
  revertedAt: ZTimestamp.nullable(),
});
export type TStep = z.infer<typeof ZStep>;

const ZScore = z.number().int().min(0).max(100);
const ZCount = z.number().int().nonnegative();

export const ZPrediction = z.object({
  score: ZScore,
  grade: z.string(),
  scoreDelta: z.number().int(),
  /** The score and grade now, which the prediction starts from. */
  before: z.object({ score: ZScore, grade: z.string() }),
});

export const ZControlChange = z.object({
  framework: z.string(),
  controlId: z.string(),
  title: z.string(),
  before: z.enum(["SATISFIED", "PARTIAL", "GAP"]),
  after: z.enum(["SATISFIED", "PARTIAL", "GAP"]),
});

export const ZActor = z.object({
  kind: z.enum(["session", "api_key", "system"]),
  email: z.string(),
  organizationId: z.string(),
});

/** Four eyes: who asked for the undo, and the different person who confirmed it (null: not yet, or four eyes off). */
const ZUndoPerson = ZActor.extend({ role: z.string() });
export const ZUndoRequest = z.object({
  requestedBy: ZUndoPerson,
  requestedAt: ZTimestamp,
  confirmedBy: ZUndoPerson.nullable(),
  confirmedAt: ZTimestamp.nullable(),
});

export const ZRemediationSummary = z.object({
  id: z.string(),
  organizationId: z.string(),
  status: z.enum(REMEDIATION_STATUSES),
  origin: z.enum(["manual", "prevention", "quick_win"]),
  preventionRuleId: z.string().nullable(),
  dryRun: z.boolean(),
  predicted: ZPrediction,
  stepCount: ZCount,
  /** Steps per status. */
  stepCounts: z.record(z.string(), ZCount),
  reversible: z.boolean(),
  plannedBy: ZActor,
  approvedBy: ZActor.nullable(),
  createdAt: ZTimestamp,
  approvedAt: ZTimestamp.nullable(),
  finishedAt: ZTimestamp.nullable(),
  undoUntil: ZTimestamp.nullable(),
  revertedAt: ZTimestamp.nullable(),
  /** The undo asked for (with four eyes on, waiting for a different person's until `confirmedBy`). */
  undoRequest: ZUndoRequest.nullable(),
});

/** What the plan was asked for but does not change, and why (no action can fix it, already gone…). */
export const ZSkipped = z.object({
  findingId: z.string().nullable(),
  /** Another reference when it is not a finding (`file:<id>` for a file the transfer leaves). */
  ref: z.string().nullable(),
  reason: z.string(),
});

export const ZRemediation = ZRemediationSummary.extend({
  request: z.record(z.string(), z.unknown()),
  steps: z.array(ZStep),
  controls: z.array(ZControlChange),
  /** Everyone who loses or changes access, once each. */
  people: z.array(z.string()),
  /** The open findings the steps fix completely (they resolve when the plan is applied). */
  fixedFindingIds: z.array(z.string()),
  skipped: z.array(ZSkipped),
});
export type TRemediation = z.infer<typeof ZRemediation>;

export const ZRemediationIdInput = z.strictObject({ id: ZId });

export const ZListRemediationsInput = offsetInput(50, 500).extend({
  status: z.enum(REMEDIATION_STATUSES).optional(),
  organizationId: ZId.optional(),
});
export const ZListRemediationsOutput = ZOffsetMeta.extend({ remediations: z.array(ZRemediationSummary) });

export const ZSimulateInput = z.strictObject({
  findingIds: ZIds.optional(),
  trustedDomains: z.array(z.string().min(1).max(253)).max(100).optional(),
  agentIds: ZIds.optional(),
});
export const ZSimulateOutput = z.object({
  score: ZScore,
  grade: z.string(),
  scoreDelta: z.number().int(),
  before: z.object({ score: ZScore, grade: z.string() }),
  /** How many open findings the what-if resolves, and the controls whose status would change. */
  resolvedFindings: ZCount,
  controls: z.array(ZControlChange),
});
export type TSimulateOutput = z.infer<typeof ZSimulateOutput>;

export const ZRemediationSettings = z.object({
  /**
   * Two different people for every plan, undo and acting prevention rule; only an OWNER signed in
   * may loosen these settings while it is on.
   */
  fourEyes: z.boolean(),
  /** Prevention rules apply at most this many changes per scan; beyond it their plan waits for approval. */
  preventionChangeCap: z.number().int().min(0).max(10_000),
  /** The managing partner's admins may approve this organization's plans. */
  partnerMayApprove: z.boolean(),
});
export const ZUpdateRemediationSettings = ZRemediationSettings.partial().strict();
