import { procedure, scopeOf } from "@posture/platform";
import { announceIncident } from "../services/announce";
import { toDetail, updateIncident as update, type TIncidentChange } from "../services/incidents";
import { ZIncidentDetail } from "./incidents.types";
import { updateIncidentMeta, ZUpdateIncidentInput } from "./update-incident.types";

export const updateIncident = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta(updateIncidentMeta)
  .input(ZUpdateIncidentInput)
  .output(ZIncidentDetail)
  .mutation(async ({ ctx, input }) => {
    const { id, ...rest } = input;
    const change = Object.fromEntries(
      Object.entries(rest).filter(([, v]) => v !== undefined),
    ) as TIncidentChange;
    const result = await update(ctx.db, scopeOf(ctx.principal), { id, ...change });
    await announceIncident(
      { db: ctx.db, jobs: ctx.jobs, log: ctx.log, publicUrl: ctx.runtime.publicUrl },
      { kind: "updated", row: result.row, changes: result.changes, previousStatus: result.previousStatus },
    );
    return toDetail(result.row);
  });
