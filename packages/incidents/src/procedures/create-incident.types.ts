import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { ZAssignee, ZFindingIds, ZPriority, ZTitle } from "./incidents.types";

export const createIncidentMeta = {
  openapi: {
    method: "POST",
    path: "/incidents",
    tags: ["incidents"],
    summary: "Open an incident",
    description:
      "Starts OPEN with one log line; audited (INCIDENT_CREATED) and announced (incident.created). findingIds must be the organization's findings: an unknown id, or another organization's, is 400 invalid_input.",
    protect: true,
  },
  successStatus: 201,
} satisfies TMeta;

export const ZCreateIncidentInput = z.strictObject({
  title: ZTitle,
  priority: ZPriority,
  findingIds: ZFindingIds.default([]),
  assignee: ZAssignee.optional(),
  summary: z.string().trim().max(10_000).optional(),
});
