import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { AGENT_SOURCES, QUADRANTS } from "../services/agents";

const ZKind = z.enum(["ai_agent", "oauth_app", "service_account"]);
const ZReachBasis = z
  .enum(["application", "delegated", "no_file_access"])
  .describe(
    "How the app reads files: application (app-only: every file of its connector), delegated (as its granting users: what they can open), no_file_access (no scope reads files).",
  );
const ZCount = z.number().int().nonnegative();

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
      "Quadrants trusted_limited, trusted_broad, unknown_limited, unknown_broad; quadrantCounts sum to the points. Breadth comes from reach where the app reads files: broad when it can open at least 10% of its connector's files (application access: every file; delegated: what its granting users can open, GET /agent-guard/agents/{agentId}/reach); an app whose scopes read no files keeps its scopes' breadth.",
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
      basis: ZReachBasis,
      reachableFiles: z
        .number()
        .int()
        .nonnegative()
        .describe("Files the app can read (0 when no scope reads files)."),
      sensitiveReachableFiles: z.number().int().nonnegative().describe("Of those, highly sensitive files."),
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

export const getAgentReachMeta = {
  openapi: {
    method: "GET",
    path: "/agent-guard/agents/{agentId}/reach",
    tags: ["agent-guard"],
    summary: "The files an agent can read",
    description:
      "basis application: every file of its connector; delegated: the files its granting users can open (owned, granted directly or through a group, in a shared drive they belong to, or org-wide); no_file_access: none of its scopes reads files (total 0). total and sensitive (highly sensitive) count them; bySensitivity / byExposure break them down; rows page them (limit default 50, max 200, offset), most sensitive and widest reach first. 404 for an unknown agent.",
  },
  errors: ["not_found"],
} satisfies TMeta;
export const ZGetAgentReachInput = z.strictObject({
  agentId: z.string().min(1).max(100),
  limit: z.number().int().min(1).max(200).default(50),
  offset: z.number().int().min(0).max(10_000_000).default(0),
});
export const ZGetAgentReachOutput = z.object({
  agentId: z.string(),
  basis: ZReachBasis,
  total: ZCount,
  sensitive: ZCount,
  orgWide: ZCount.describe("Reachable files that reach everyone in the organization."),
  bySensitivity: z.object({ high: ZCount, medium: ZCount, low: ZCount }),
  byExposure: z.object({ public: ZCount, external: ZCount, internal: ZCount, private: ZCount }),
  rows: z.array(
    z.object({
      fileId: z.string(),
      name: z.string(),
      label: z.string().nullable().describe("The source's sensitivity label, null when none."),
      sensitivity: z.enum(["high", "medium", "low"]),
      exposure: z.enum(["public", "external", "internal", "private"]),
      ownerEmail: z.string(),
      reach: z.object({ people: ZCount, orgWide: z.boolean() }),
    }),
  ),
  limit: ZCount,
  offset: ZCount,
});
