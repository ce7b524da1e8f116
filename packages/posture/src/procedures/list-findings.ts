import { procedure } from "@posture/platform";
import { listFindings as list } from "../services/findings";
import { listFindingsMeta, ZListFindingsInput, ZListFindingsOutput } from "./findings.types";

export const listFindings = procedure({ auth: "apiKey" })
  .meta(listFindingsMeta)
  .input(ZListFindingsInput)
  .output(ZListFindingsOutput)
  .query(({ ctx, input }) => list(ctx.db, { orgId: ctx.principal.org.id, ...input }));
