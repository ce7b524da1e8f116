import { PLAN_IDS, type TPlanId } from "@posture/db";

export { PLAN_IDS, type TPlanId };

export type TFeatures = {
  apiAccess: boolean;
  flowGuard: boolean;
  agentGuard: boolean;
  ueba: boolean;
  ticketing: boolean;
  complianceExport: boolean;
  whiteLabel: boolean;
};
export type TFeature = keyof TFeatures;

export type TPlanLimits = { sourcesMax: number | null; scansPerDay: number | null; features: TFeatures };

const none: TFeatures = {
  apiAccess: false,
  flowGuard: false,
  agentGuard: false,
  ueba: false,
  ticketing: false,
  complianceExport: false,
  whiteLabel: false,
};
const business: TFeatures = {
  ...none,
  apiAccess: true,
  flowGuard: true,
  agentGuard: true,
  ueba: true,
  ticketing: true,
  complianceExport: true,
};

export const PLANS: Record<TPlanId, TPlanLimits> = {
  free: { sourcesMax: 1, scansPerDay: 2, features: none },
  starter: { sourcesMax: 3, scansPerDay: 5, features: none },
  team: { sourcesMax: 10, scansPerDay: 20, features: { ...none, agentGuard: true } },
  business: { sourcesMax: 50, scansPerDay: 100, features: business },
  enterprise: { sourcesMax: null, scansPerDay: null, features: { ...business, whiteLabel: true } },
};

export const GRACE_DAYS = 14;

export function planRank(plan: TPlanId): number {
  return PLAN_IDS.indexOf(plan);
}

export function atLeast(plan: TPlanId, min: TPlanId): boolean {
  return planRank(plan) >= planRank(min);
}

/** The lowest plan that includes a feature: what an upgrade hint names. */
export function minimumPlanFor(feature: TFeature): TPlanId {
  const plan = PLAN_IDS.find((p) => PLANS[p].features[feature]);
  if (!plan) throw new Error(`no plan includes ${feature}`);
  return plan;
}

export type TPlanState = { plan: TPlanId; gracePlan: TPlanId | null; graceEndsAt: Date | null };

/** The plan whose entitlements apply now: a downgraded organization keeps the old plan until grace ends. */
export function effectivePlan(
  org: TPlanState,
  now = new Date(),
): { plan: TPlanId; inGrace: boolean; graceEndsAt: Date | null } {
  if (
    org.gracePlan &&
    org.graceEndsAt &&
    org.graceEndsAt > now &&
    planRank(org.gracePlan) > planRank(org.plan)
  ) {
    return { plan: org.gracePlan, inGrace: true, graceEndsAt: org.graceEndsAt };
  }
  return { plan: org.plan, inGrace: false, graceEndsAt: null };
}

/** The grace columns to write when an organization moves from `from` (its effective plan) to `to`. */
export function planChange(from: TPlanId, to: TPlanId, now = new Date()): TPlanState {
  if (planRank(to) < planRank(from)) {
    return { plan: to, gracePlan: from, graceEndsAt: new Date(now.getTime() + GRACE_DAYS * 86_400_000) };
  }
  return { plan: to, gracePlan: null, graceEndsAt: null };
}
