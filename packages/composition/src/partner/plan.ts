import type { TPlanRemediation } from "@posture/partner";
import { isAppError } from "@posture/platform";
import { agentIdOf, createPlan } from "@posture/remediation";

/**
 * The partner's planner (issue 17, item 5): one remediation in one client through the engine's
 * own `createPlan`, as the partner (`isPartner`: the client must be managed and consenting, else
 * 404), marked with the partner action. The engine audits and emits in the client; who approves is
 * the client's rule (four eyes, partnerMayApprove). Its refusals come back as outcomes.
 */
export const planRemediation: TPlanRemediation = async (db, input, deps) => {
  const { target } = input;
  const agentIds = (target.apps ?? []).map((a) => agentIdOf(a.connectorId, a.clientKey));
  try {
    const plan = await createPlan(
      db,
      { orgId: input.partnerOrgId, actor: input.actor, isPartner: true },
      {
        organizationId: input.clientOrgId,
        ...(target.findingIds?.length ? { findingIds: target.findingIds } : {}),
        ...(target.shareIds?.length ? { shareIds: target.shareIds } : {}),
        ...(agentIds.length ? { agentIds } : {}),
      },
      deps,
      { partnerActionId: input.partnerActionId },
    );
    return {
      ok: true,
      remediationId: plan.id,
      status: plan.status,
      steps: plan.stepCount,
      predicted: {
        score: plan.predicted.score,
        grade: plan.predicted.grade,
        scoreDelta: plan.predicted.scoreDelta,
      },
    };
  } catch (err) {
    if (isAppError(err)) return { ok: false, error: { code: err.code, message: err.message } };
    throw err;
  }
};
