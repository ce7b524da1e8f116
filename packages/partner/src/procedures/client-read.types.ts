import type { TMeta } from "@posture/platform";
import { z } from "zod";
import type { TClientReadName } from "../client-reads";

/** The managed client's id: the path's `{orgId}`, added to the client procedure's own input. */
export const ZClientOrgId = z.string().min(1).max(64);

const common =
  "As the client's own endpoint answers for the same data, with the same input. 404 for an organization the partner does not manage or that withdrew its consent. 402 naming `clientPlan` when the client's own plan lacks what its endpoint needs. Recorded in the client's audit trail (PARTNER_CLIENT_READ, at most once per partner user and read every 15 minutes).";

const meta = (path: string, summary: string, client: string): TMeta => ({
  openapi: {
    method: "GET",
    path: `/partner/clients/{orgId}/${path}`,
    tags: ["partner"],
    summary,
    description: `The managed client's ${client}. ${common}`,
    protect: true,
  },
});

export const CLIENT_READ_META = {
  findings: meta("findings", "A managed client's findings", "GET /findings (offset-paged, same filters)"),
  agents: meta(
    "agents",
    "A managed client's AI agents and apps",
    "GET /agent-guard/inventory (the client needs agentGuard, team+; the partner user ADMIN+)",
  ),
  sharingOverview: meta(
    "sharing/overview",
    "A managed client's sharing overview",
    "GET /sharing/overview (the partner user ADMIN+)",
  ),
  complianceDashboard: meta(
    "compliance/dashboard",
    "A managed client's compliance dashboard",
    "GET /compliance/dashboard (the client needs business+)",
  ),
  exposureAi: meta(
    "exposure/ai",
    "A managed client's AI readiness and what its assistants can reach",
    "GET /exposure/ai (the client needs business+; the partner user ADMIN+)",
  ),
  timeline: meta(
    "timeline",
    "A managed client's timeline",
    "GET /timeline (cursor-paged; audit entries for a partner user ADMIN+)",
  ),
  incidents: meta(
    "incidents",
    "A managed client's incidents and their regulatory clocks",
    "GET /incidents (the client needs business+), each row with its `deadlines`: the GDPR / HIPAA clocks the client has not turned off, running or stopped",
  ),
} satisfies Record<TClientReadName, TMeta>;
