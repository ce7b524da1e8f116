import type { TMeta } from "@posture/platform";

export const getIncidentMeta = {
  openapi: {
    method: "GET",
    path: "/incidents/{id}",
    tags: ["incidents"],
    summary: "An incident: linked findings, log and post-mortem",
    description:
      "postMortem is null or {summary, rootCause, lessons, actionItems[{title, owner, done}]}. 404 for an unknown id or another organization's.",
  },
} satisfies TMeta;
