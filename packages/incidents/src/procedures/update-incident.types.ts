import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { ZAssignee, ZFindingIds, ZNote, ZPostMortemInput, ZPriority, ZStatus } from "./incidents.types";

export const updateIncidentMeta = {
  openapi: {
    method: "PATCH",
    path: "/incidents/{id}",
    tags: ["incidents"],
    summary: "Move or change an incident",
    description:
      "Any of status, priority, assignee, note, postMortem (null clears it), findingIds (replaces the links). Status moves: OPEN→INVESTIGATING, OPEN→CLOSED, INVESTIGATING→CONTAINED, INVESTIGATING→RESOLVED, CONTAINED→RESOLVED, RESOLVED→CLOSED, RESOLVED→INVESTIGATING (reopen); any other is 409 invalid_transition and nothing is changed or logged. Each change appends a log line; audited (INCIDENT_UPDATED) and announced (incident.updated).",
    protect: true,
  },
  errors: ["invalid_transition"],
} satisfies TMeta;

export const ZUpdateIncidentInput = z
  .strictObject({
    id: z.string().min(1).max(100),
    status: ZStatus.optional(),
    priority: ZPriority.optional(),
    assignee: ZAssignee.optional(),
    note: ZNote.optional(),
    postMortem: ZPostMortemInput.nullable().optional(),
    findingIds: ZFindingIds.optional(),
  })
  .refine(
    (v) => Object.keys(v).some((k) => k !== "id" && v[k as keyof typeof v] !== undefined),
    "Nothing to change: give status, priority, assignee, note, postMortem or findingIds",
  );
