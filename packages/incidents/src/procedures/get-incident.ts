import { procedure } from "@posture/platform";
import { getIncidentRow, showContext, toDetail } from "../services/incidents";
import { getIncidentMeta } from "./get-incident.types";
import { ZIncidentDetail, ZIncidentId } from "./incidents.types";

export const getIncident = procedure({ auth: "apiKey", plan: "business" })
  .meta(getIncidentMeta)
  .input(ZIncidentId)
  .output(ZIncidentDetail)
  .query(async ({ ctx, input }) => {
    const orgId = ctx.principal.org.id;
    return toDetail(
      await getIncidentRow(ctx.db, { orgId, id: input.id }),
      await showContext(ctx.db, { orgId }),
    );
  });
