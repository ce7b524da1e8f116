import type { TAppGrant } from "@posture/connectors";
import { broadScopesOf } from "./scopes";

export type TAgentQuadrant = "trusted_limited" | "trusted_broad" | "unknown_limited" | "unknown_broad";
export type TRiskBand = "low" | "medium" | "high" | "critical";

export type TAgentClassification = { quadrant: TAgentQuadrant; riskBand: TRiskBand; riskScore: number };

const QUADRANT_BASE: Record<TAgentQuadrant, number> = {
  trusted_limited: 5,
  unknown_limited: 30,
  trusted_broad: 45,
  unknown_broad: 70,
};

/**
 * Scope breadth × publisher trust. riskScore = quadrant base (5 / 30 / 45 / 70) + 5 for each
 * broad scope beyond the first (at most +15) + 10 for an AI agent, capped at 100; bands are
 * quarters: < 25 low, < 50 medium, < 75 high, else critical. An unknown-publisher AI agent
 * with broad scopes is therefore always critical, like its finding.
 */
export function classifyAgent(
  grant: Pick<TAppGrant, "kind" | "isKnownPublisher" | "scopes">,
): TAgentClassification {
  const broadCount = broadScopesOf(grant.scopes).length;
  const quadrant: TAgentQuadrant = `${grant.isKnownPublisher ? "trusted" : "unknown"}_${broadCount > 0 ? "broad" : "limited"}`;
  const extraBroad = broadCount > 1 ? Math.min(15, 5 * (broadCount - 1)) : 0;
  const riskScore = Math.min(
    100,
    QUADRANT_BASE[quadrant] + extraBroad + (grant.kind === "ai_agent" ? 10 : 0),
  );
  const riskBand: TRiskBand =
    riskScore < 25 ? "low" : riskScore < 50 ? "medium" : riskScore < 75 ? "high" : "critical";
  return { quadrant, riskBand, riskScore };
}
