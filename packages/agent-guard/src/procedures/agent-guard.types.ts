import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { AGENT_SOURCES, QUADRANTS } from "../services/agents";

const ZKind = z.enum(["ai_agent", "oauth_app", "service_account"]);

export const getAgentInventoryMeta = {
  openapi: {
    method: "GET",
    path: "/agent-guard/inventory",
    tags: ["agent-guard"],
    summary: "AI agents, OAuth apps and service accounts with access to the workspace",
    description:
      "One card per app (OAuth client) of the latest scans, riskiest first. riskBand low/medium/high/critical from a 0–100 riskScore (scope breadth, publisher trust, write access, kind). isKnownPublisher: verified by the source or on the maintained list of known vendors. resourceCount: files and users the scopes reach. access: application (app-only) or delegated; agentSource: the registry or catalog that makes an app an AI agent (a display name never does).",
  },
} satisfies TMeta;
export const ZAgentCard = z.object({
  id: z.string(),
  label: z.string(),
  kind: ZKind,
  riskBand: z.enum(["low", "medium", "high", "critical"]),
  riskScore: z.number().int().min(0).max(100),
  resourceCount: z.number().int().nonnegative(),
  isKnownPublisher: z.boolean(),
  publisher: z.string(),
  scopes: z.array(z.string()),
  broad: z.boolean(),
  quadrant: z.enum(QUADRANTS),
  users: z.number().int().nonnegative(),
  connectorId: z.string(),
  clientId: z.string(),
  firstGrantedAt: z.string(),
  access: z
    .enum(["application", "delegated"])
    .describe(
      "How the app reads data: application (app-only permissions or Google domain-wide delegation: every file its permission covers, no user needed) or delegated (as the users who granted it: what they can open).",
    ),
  agentSource: z
    .enum(AGENT_SOURCES)
    .nullable()
    .describe(
      "Why the app is an AI agent: agent_registry (Entra agent identity or agent blueprint), copilot_catalog (an agent package of the Microsoft 365 Copilot admin catalog), publisher_catalog (the maintained catalog of agent publishers, matched by identifiers the platform verifies). Null when the app is not an agent.",
    ),
});
export const ZGetAgentInventoryOutput = z.object({
  agents: z.array(ZAgentCard),
  metrics: z.object({
    total: z.number().int().nonnegative(),
    unvettedBroad: z.number().int().nonnegative(),
    aiAgents: z.number().int().nonnegative(),
    serviceAccounts: z.number().int().nonnegative(),
    oauthApps: z.number().int().nonnegative(),
    highRisk: z.number().int().nonnegative(),
    knownPublishers: z.number().int().nonnegative(),
  }),
});

export const getRiskMatrixMeta = {
  openapi: {
    method: "GET",
    path: "/agent-guard/risk-matrix",
    tags: ["agent-guard"],
    summary: "Agents by scope breadth and publisher trust",
    description:
      "Quadrants trusted_limited, trusted_broad, unknown_limited, unknown_broad; quadrantCounts sum to the points.",
  },
} satisfies TMeta;
export const ZGetRiskMatrixOutput = z.object({
  points: z.array(
    z.object({
      id: z.string(),
      label: z.string(),
      kind: ZKind,
      quadrant: z.enum(QUADRANTS),
      riskScore: z.number().int().min(0).max(100),
    }),
  ),
  quadrantCounts: z.object({
    trusted_limited: z.number().int().nonnegative(),
    trusted_broad: z.number().int().nonnegative(),
    unknown_limited: z.number().int().nonnegative(),
    unknown_broad: z.number().int().nonnegative(),
  }),
});

export const getAgentTimelineMeta = {
  openapi: {
    method: "GET",
    path: "/agent-guard/timeline/{agentId}",
    tags: ["agent-guard"],
    summary: "An agent's grants, scope changes and token activity",
    description:
      "Newest first, at most 200 events: `grant`, `scope_change`, `revoked`, `token_activity`. activityAvailable is false when the connector cannot read usage telemetry (it needs the reports / audit-log scope); token activity is then absent. 404 for an unknown agent.",
  },
} satisfies TMeta;
export const ZGetAgentTimelineInput = z.strictObject({ agentId: z.string().min(1).max(100) });
export const ZGetAgentTimelineOutput = z.object({
  agentId: z.string(),
  activityAvailable: z.boolean(),
  events: z.array(
    z.object({
      kind: z.enum(["grant", "scope_change", "revoked", "token_activity"]),
      at: z.string(),
      principal: z.string(),
      detail: z.string(),
      scopes: z.array(z.string()),
    }),
  ),
});
