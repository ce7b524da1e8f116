import { procedure } from "@posture/platform";
import { listAiFiles as list } from "../services/ai-exposure";
import { listAiFilesMeta, ZListAiFilesInput, ZListAiFilesOutput } from "./exposure.types";

export const listAiFiles = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta(listAiFilesMeta)
  .input(ZListAiFilesInput)
  .output(ZListAiFilesOutput)
  .query(({ ctx, input }) => list(ctx.db, { orgId: ctx.principal.org.id, ...input }));
