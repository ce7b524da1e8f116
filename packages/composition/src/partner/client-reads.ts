import { getAgentInventory, ZGetAgentInventoryOutput } from "@posture/agent-guard";
import { getDashboard, ZGetDashboardInput, ZGetDashboardOutput } from "@posture/compliance";
import { listIncidents, ZListIncidentsInput, ZListIncidentsOutput } from "@posture/incidents";
import { getAiExposure, ZGetAiExposureOutput } from "@posture/exposure";
import { clientRead, type TClientReads } from "@posture/partner";
import { hasRole } from "@posture/platform";
import {
  listFindings,
  listTimeline,
  ZListFindingsInput,
  ZListFindingsOutput,
  ZListTimelineInput,
  ZListTimelineOutput,
} from "@posture/posture";
import { predictPostureScore } from "@posture/remediation";
import { getSharingOverview, ZGetSharingOverviewOutput } from "@posture/workspace";
import { z } from "zod";

// The client procedures without input (z.void()) take no field: an empty strict object, as a
// partner's path gives only {orgId}.
const ZNoInput = z.strictObject({});

/**
 * The client's own reads, with the client procedures' own schemas and services and their rules:
 * each `gate` and `role` is that of the client procedure (packages/<owner>/src/procedures/…).
 */
export const clientReads = {
  // GET /findings: API key, any role, no plan.
  findings: clientRead({
    input: ZListFindingsInput,
    output: ZListFindingsOutput,
    read: (db, q) => listFindings(db, q),
  }),
  // GET /agent-guard/inventory: agentGuard (team+), ADMIN+.
  agents: clientRead({
    input: ZNoInput,
    output: ZGetAgentInventoryOutput,
    gate: { feature: "agentGuard" },
    role: "ADMIN",
    read: (db, q) => getAgentInventory(db, { orgId: q.orgId }),
  }),
  // GET /sharing/overview: ADMIN+.
  sharingOverview: clientRead({
    input: ZNoInput,
    output: ZGetSharingOverviewOutput,
    role: "ADMIN",
    read: (db, q) => getSharingOverview(db, { orgId: q.orgId }),
  }),
  // GET /compliance/dashboard: business+.
  complianceDashboard: clientRead({
    input: ZGetDashboardInput,
    output: ZGetDashboardOutput,
    gate: { plan: "business" },
    read: (db, q) => getDashboard(db, { orgId: q.orgId }),
  }),
  // GET /exposure/ai: business+, ADMIN+.
  exposureAi: clientRead({
    input: ZNoInput,
    output: ZGetAiExposureOutput,
    gate: { plan: "business" },
    role: "ADMIN",
    read: (db, q) => getAiExposure(db, { orgId: q.orgId }, { predictPosture: predictPostureScore }),
  }),
  // GET /timeline: any role; its audit entries for ADMIN+ only, as the client's own.
  timeline: clientRead({
    input: ZListTimelineInput,
    output: ZListTimelineOutput,
    read: (db, q, viewer) =>
      listTimeline(db, {
        orgId: q.orgId,
        limit: q.limit,
        before: q.before,
        significant: q.significant,
        category: q.category,
        includeAudit: hasRole(viewer.role, "ADMIN"),
      }),
  }),
  // GET /incidents: business+, any role; each row carries its regulatory clocks.
  incidents: clientRead({
    input: ZListIncidentsInput,
    output: ZListIncidentsOutput,
    gate: { plan: "business" },
    read: async (db, q) => ({
      incidents: await listIncidents(db, {
        orgId: q.orgId,
        ...(q.status ? { status: q.status } : {}),
        ...(q.priority ? { priority: q.priority } : {}),
      }),
    }),
  }),
} satisfies TClientReads;
