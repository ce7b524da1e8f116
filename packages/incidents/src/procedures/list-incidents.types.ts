import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { ZIncidentSummary, ZPriority, ZStatus } from "./incidents.types";

export const listIncidentsMeta = {
  openapi: {
    method: "GET",
    path: "/incidents",
    tags: ["incidents"],
    summary: "List incidents, newest first",
    description: "Filters: status (OPEN, INVESTIGATING, CONTAINED, RESOLVED, CLOSED), priority (P1–P4).",
  },
} satisfies TMeta;
export const ZListIncidentsInput = z.strictObject({
  status: ZStatus.optional(),
  priority: ZPriority.optional(),
});
export const ZListIncidentsOutput = z.object({ incidents: z.array(ZIncidentSummary) });
