import type { TMeta } from "@posture/platform";

export const getIncidentMeta = {
  openapi: {
    method: "GET",
    path: "/incidents/{id}",
    tags: ["incidents"],
    summary: "An incident: linked findings, log and post-mortem",
    description:
      "postMortem is null or {summary, rootCause, lessons, actionItems[{title, owner, done}]}. `deadlines` are the regulatory clocks (GDPR 72 h, HIPAA 60 days from the opening) the organization has not turned off (GET/PATCH /api/incident-settings), the same the PDF report shows; they stop when the incident is resolved (`resolvedAt`). 404 for an unknown id or another organization's.",
  },
} satisfies TMeta;
