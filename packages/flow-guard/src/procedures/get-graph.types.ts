import { FLOW_NODE_TYPES, FLOW_SCOPES, SEVERITIES } from "@posture/db";
import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const getGraphMeta = {
  openapi: {
    method: "GET",
    path: "/flow-guard/graph",
    tags: ["flow-guard"],
    summary: "The external data-flow graph",
    description:
      "Nodes `user:<email>`, `external:<domain>`, `file:<id>`, `public_link:<file id>`, `shared_drive:<id>` with a 0–100 riskScore, riskiest first; edges (scope internal, external or public) only between nodes of the page. Paginated by node: limit default 200, max 500, offset; `metadata` = {limit, offset, totalNodes, nextOffset}. Optional filters `domain` (an outside domain) or `userId` (a workspace user id or e-mail; 404 if unknown).",
  },
  errors: ["not_found"],
} satisfies TMeta;

export const ZGetGraphInput = z.strictObject({
  limit: z.number().int().min(1).max(500).default(200),
  offset: z.number().int().min(0).default(0),
  domain: z.string().trim().min(1).max(253).optional(),
  userId: z.string().trim().min(1).max(320).optional(),
});

export const ZGetGraphOutput = z.object({
  nodes: z.array(
    z.object({
      id: z.string(),
      type: z.enum(FLOW_NODE_TYPES),
      label: z.string(),
      riskScore: z.number().int().min(0).max(100),
    }),
  ),
  edges: z.array(
    z.object({
      id: z.string(),
      source: z.string(),
      target: z.string(),
      scope: z.enum(FLOW_SCOPES),
      severity: z.enum(SEVERITIES),
    }),
  ),
  summary: z.object({
    externalFiles: z.number().int().nonnegative(),
    publicLinks: z.number().int().nonnegative(),
    sharedDrivesExposed: z.number().int().nonnegative(),
    riskScore: z.number().int().min(0).max(100),
  }),
  metadata: z.object({
    limit: z.number().int().nonnegative(),
    offset: z.number().int().nonnegative(),
    totalNodes: z.number().int().nonnegative(),
    nextOffset: z.number().int().nonnegative().nullable(),
  }),
});
