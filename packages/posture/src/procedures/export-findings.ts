import { download, procedure, scopeOf } from "@posture/platform";
import { startFindingsExport } from "../services/findings-export";
import { exportFindingsMeta, ZExportFindingsInput, ZExportFindingsOutput } from "./export-findings.types";

export const exportFindings = procedure({ auth: "apiKey" })
  .meta(exportFindingsMeta)
  .input(ZExportFindingsInput)
  .output(ZExportFindingsOutput)
  .query(async ({ ctx, input }) => {
    const { format, ...filters } = input;
    const e = await startFindingsExport(ctx.db, { ...scopeOf(ctx.principal), format, filters });
    return download({ filename: e.filename, contentType: e.contentType, body: e.body });
  });
