import type { TMeta } from "@posture/platform";
import { z } from "zod";

const ZOn = (what: string) => z.boolean().describe(`Whether incidents carry the ${what} clock`);

export const ZIncidentSettings = z.object({
  regulations: z.object({
    gdpr: ZOn("GDPR Art. 33 (72 hours)"),
    hipaa: ZOn("HIPAA 45 CFR 164.404(b) (60 days)"),
  }),
});

export const ZUpdateIncidentSettings = z.strictObject({
  regulations: z
    .strictObject({
      gdpr: ZOn("GDPR Art. 33 (72 hours)").optional(),
      hipaa: ZOn("HIPAA 45 CFR 164.404(b) (60 days)").optional(),
    })
    .optional(),
});

const DESCRIPTION =
  "Which regulatory clocks the organization's incidents carry (`deadlines` on GET /api/incidents/{id} and in the list, the incident report's table, and `incident.deadline.approaching`). Every regulation is on until turned off.";

export const getIncidentSettingsMeta = {
  openapi: {
    method: "GET",
    path: "/incident-settings",
    tags: ["incidents"],
    summary: "Incident settings",
    description: DESCRIPTION,
  },
  errors: ["not_found"],
} satisfies TMeta;

export const updateIncidentSettingsMeta = {
  openapi: {
    method: "PATCH",
    path: "/incident-settings",
    tags: ["incidents"],
    summary: "Change incident settings",
    description: `${DESCRIPTION} The regulations given change; audited (INCIDENT_SETTINGS_CHANGED, each regulation's from and to).`,
    protect: true,
  },
  errors: ["not_found"],
} satisfies TMeta;
