import type { TMeta } from "@posture/platform";

export const createIncidentTicketMeta = {
  openapi: {
    method: "POST",
    path: "/incidents/{id}/ticket",
    tags: ["incidents"],
    summary: "Open one ticket for an incident in the configured issue tracker",
    description:
      "The ticket carries the incident's title, priority (P1 → critical), status, assignee, summary and link, and its linked findings, worst first. 404 for an unknown id or another organization's, 400 integration_not_configured without a tracker, 409 ticket_exists (one ticket per incident), 502 upstream_unavailable when the tracker fails (nothing is recorded then).",
    successDescription: "Created",
  },
  successStatus: 201,
  errors: ["integration_not_configured", "ticket_exists", "upstream_unavailable"],
} satisfies TMeta;
