import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { ZSuggestion } from "./incidents.types";

export const listSuggestionsMeta = {
  openapi: {
    method: "GET",
    path: "/incidents/suggestions",
    tags: ["incidents"],
    summary: "Suggested incidents: clusters of open findings and anomalies",
    description:
      "Themes: the same person (findings on files they own, their anomalies), the same external domain, the same agent or app, the same rule (three or more). Findings already linked to an incident that is not closed are left out. Most severe first; never created automatically.",
  },
} satisfies TMeta;
export const ZListSuggestionsOutput = z.object({ suggestions: z.array(ZSuggestion) });
