import { procedure } from "@posture/platform";
import { getIncidentRow, toDetail } from "../services/incidents";
import { getIncidentMeta } from "./get-incident.types";
import { ZIncidentDetail, ZIncidentId } from "./incidents.types";

export const getIncident = procedure({ auth: "apiKey", plan: "business" })
  .meta(getIncidentMeta)
  .input(ZIncidentId)
  .output(ZIncidentDetail)
  .query(async ({ ctx, input }) =>
    toDetail(await getIncidentRow(ctx.db, { orgId: ctx.principal.org.id, id: input.id })),
  );
