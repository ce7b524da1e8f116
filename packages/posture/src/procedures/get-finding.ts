import { procedure } from "@posture/platform";
import { getFindingView } from "../services/findings";
import { ZFinding } from "./findings.types";
import { getFindingMeta, ZGetFindingInput } from "./get-finding.types";

export const getFinding = procedure({ auth: "apiKey" })
  .meta(getFindingMeta)
  .input(ZGetFindingInput)
  .output(ZFinding)
  .query(({ ctx, input }) => getFindingView(ctx.db, { orgId: ctx.principal.org.id, id: input.id }));
