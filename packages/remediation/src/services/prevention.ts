import { and, eq, ne, sql } from "drizzle-orm";
import {
  connectors,
  mostSevere,
  organizations,
  preventionRules,
  queryRows,
  remediations,
  type Db,
  type TRemediationActor,
  type TSeverity,
} from "@posture/db";
import { SYSTEM_ACTOR, type TJobQueue, type TRuntime, audit } from "@posture/platform";
import { ruleMatches } from "@posture/posture";
import { applyJobId, REMEDIATION_APPLY_JOB } from "./apply";
import { draftPlan } from "./draft";
import { insertPlan, stepsOf } from "./plan";
import { predictScore } from "./simulate";
import { recordRemediationEvent } from "./record";
import { writerFor as defaultWriterFor, type TWriterFor } from "./writer";

// Prevention rules that act (issue 19): after a scan wrote its findings, each enabled rule with an
// acting action plans a remediation over the new findings it matches and the action can fix. Under
// the organization's cap on changes per scan it is approved by the system and applied; beyond the
// cap it waits for an administrator's approval; a rule in dry run only records its plan. With four
// eyes on, only a rule a second person approved is applied by the system (issue 28); the plans of
// any other wait for an administrator other than the rule's maker. All of it
// happens in the scan's own transaction (the plan, its audit and `prevention.triggered` commit with
// the findings); the apply jobs are queued once it committed (`startPreventionApplies`).

export type TPreventionAction = "REVOKE_PUBLIC_LINK" | "REMOVE_EXTERNAL_ACCESS" | "REVOKE_OAUTH_GRANT";

type TNewFinding = {
  id: string;
  rule_id: string;
  category: string;
  severity: TSeverity;
  resource_type: string;
};

/** Which findings an action can fix at the source. */
const FIXES: Record<TPreventionAction, (f: TNewFinding) => boolean> = {
  REVOKE_PUBLIC_LINK: (f) => f.rule_id === "public_link",
  REMOVE_EXTERNAL_ACCESS: (f) => f.rule_id === "external_share",
  REVOKE_OAUTH_GRANT: (f) => f.resource_type === "app",
};

export type TPreventionResult = {
  /** Deliveries recorded in the scan's transaction, to dispatch after it commits. */
  deliveryIds: string[];
  /** Remediations moved to APPLYING, whose jobs are queued after the commit. */
  applying: string[];
  /** Every plan made, with what became of it. */
  plans: Array<{
    ruleId: string;
    remediationId: string;
    outcome: "applying" | "awaiting_approval" | "dry_run";
  }>;
};

/**
 * Four eyes over a rule that acts: its current acting configuration was approved by someone other
 * than the person who set it (POST /api/prevention-rules/{id}/approve). Widening a rule clears it.
 */
const approvedRule = (rule: typeof preventionRules.$inferSelect): boolean =>
  rule.approvedBy !== null && rule.approvedBy.userId !== rule.actingSetBy?.userId;

/**
 * Runs in the scan's transaction (`tx`), after its findings were written: the acting prevention
 * rules' plans over the scan's new findings. `now` is the scan's time: its new findings carry it.
 */
export async function planPrevention(
  tx: Db,
  input: { orgId: string; connectorId: string; scanId: string; now: Date; runtime: TRuntime },
  deps: { writerFor?: TWriterFor } = {},
): Promise<TPreventionResult> {
  const result: TPreventionResult = { deliveryIds: [], applying: [], plans: [] };
  const rules = await tx
    .select()
    .from(preventionRules)
    .where(
      and(
        eq(preventionRules.orgId, input.orgId),
        eq(preventionRules.enabled, true),
        ne(preventionRules.action, "ALERT_ONLY"),
      ),
    )
    .orderBy(preventionRules.createdAt, preventionRules.id);
  if (rules.length === 0) return result;
  const fresh = await queryRows<TNewFinding>(
    tx,
    sql`SELECT id, rule_id, category, severity, resource_type
        FROM findings WHERE connector_id = ${input.connectorId} AND last_seen_scan_id = ${input.scanId}
          AND status = 'OPEN' AND detected_at = ${input.now.toISOString()}::timestamptz ORDER BY id`,
  );
  if (fresh.length === 0) return result;
  const [connector] = await tx.select().from(connectors).where(eq(connectors.id, input.connectorId));
  const [org] = await tx
    .select({ cap: organizations.preventionChangeCap, fourEyes: organizations.remediationFourEyes })
    .from(organizations)
    .where(eq(organizations.id, input.orgId));
  if (!connector || !org) return result;
  // No call to the source here: a connector whose writer cannot be built (credentials
  // unusable) has its plans wait for an administrator.
  let canWrite = connector.writeAccess;
  try {
    (deps.writerFor ?? defaultWriterFor)(tx, connector, input.runtime);
  } catch {
    canWrite = false;
  }
  let capLeft = org.cap;
  const planner: TRemediationActor = { ...SYSTEM_ACTOR, orgId: input.orgId };
  // A finding is acted on by the first rule that matches it (rules in creation order).
  const taken = new Set<string>();

  for (const rule of rules) {
    const action = rule.action as TPreventionAction;
    const hits = fresh.filter(
      (f) =>
        !taken.has(f.id) &&
        ruleMatches(rule.match, { category: f.category, ruleId: f.rule_id, severity: f.severity }) &&
        FIXES[action](f),
    );
    if (hits.length === 0) continue;
    // The same planner as POST /remediations, over the store this scan just wrote.
    const draft = await draftPlan(tx, { orgId: input.orgId, findingIds: hits.map((h) => h.id) });
    const steps = stepsOf(draft);
    if (steps.length === 0) continue;
    for (const h of hits) taken.add(h.id);
    const findingIds = draft.fixed.map((f) => f.id);
    const predicted = await predictScore(tx, { orgId: input.orgId, resolved: draft.fixed });
    // Four eyes: the system applies a rule's plan only when a second person stands behind the rule.
    const standing = !org.fourEyes || approvedRule(rule);
    const outcome: "applying" | "awaiting_approval" | "dry_run" = rule.dryRun
      ? "dry_run"
      : steps.length <= capLeft && canWrite && standing
        ? "applying"
        : "awaiting_approval";
    const remediationId = await insertPlan(tx, {
      orgId: input.orgId,
      origin: "prevention",
      preventionRuleId: rule.id,
      dryRun: rule.dryRun,
      request: {
        findingIds,
        preventionRuleId: rule.id,
        scanId: input.scanId,
        action,
        // Who stands behind the rule, for the plan's approval (approve.ts `authorsOf`).
        ...(rule.actingSetBy
          ? { ruleSetBy: { userId: rule.actingSetBy.userId, email: rule.actingSetBy.email } }
          : {}),
        ...(approvedRule(rule) && rule.approvedBy
          ? { ruleApprovedBy: { userId: rule.approvedBy.userId, email: rule.approvedBy.email } }
          : {}),
      },
      predicted,
      plannedBy: planner,
      steps,
    });
    const scope = { orgId: input.orgId, actor: SYSTEM_ACTOR };
    await audit(tx, scope, {
      action: "REMEDIATION_PLANNED",
      target: remediationId,
      metadata: { preventionRuleId: rule.id, steps: steps.length, outcome, ruleApproved: approvedRule(rule) },
    });
    if (outcome === "applying") {
      capLeft -= steps.length;
      const now = new Date();
      await tx
        .update(remediations)
        .set({ status: "APPLYING", approvedBy: planner, approvedAt: now, applyStartedAt: now })
        .where(eq(remediations.id, remediationId));
      await audit(tx, scope, {
        action: "REMEDIATION_APPROVED",
        target: remediationId,
        metadata: { preventionRuleId: rule.id, cap: org.cap },
      });
      await audit(tx, scope, {
        action: "REMEDIATION_APPLY_STARTED",
        target: remediationId,
        metadata: { steps: steps.length },
      });
      result.applying.push(remediationId);
    }
    result.plans.push({ ruleId: rule.id, remediationId, outcome });
    result.deliveryIds.push(
      ...(await recordRemediationEvent(tx, {
        orgId: input.orgId,
        type: "prevention.triggered",
        data: {
          ruleId: rule.id,
          action,
          count: hits.length,
          severity: mostSevere(hits.map((h) => h.severity)),
          remediationId,
          outcome,
        },
      })),
    );
  }
  return result;
}

/** After the scan's transaction committed: the jobs of the plans prevention applies. */
export async function startPreventionApplies(
  jobs: TJobQueue,
  remediationIds: readonly string[],
): Promise<void> {
  for (const id of remediationIds)
    await jobs.enqueue(REMEDIATION_APPLY_JOB, { remediationId: id }, { jobId: applyJobId(id) });
}
