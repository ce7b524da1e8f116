import { procedure } from "@posture/platform";
import { z } from "zod";
import { suggestIncidents } from "../services/suggestions";
import { listSuggestionsMeta, ZListSuggestionsOutput } from "./list-suggestions.types";

export const listSuggestions = procedure({ auth: "apiKey", plan: "business" })
  .meta(listSuggestionsMeta)
  .input(z.strictObject({}))
  .output(ZListSuggestionsOutput)
  .query(async ({ ctx }) => ({
    suggestions: await suggestIncidents(ctx.db, { orgId: ctx.principal.org.id }),
  }));
