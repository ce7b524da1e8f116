import { download, procedure, scopeOf } from "@posture/platform";
import { incidentReport } from "../services/report";
import { ZIncidentId } from "./incidents.types";
import { exportIncidentReportMeta, ZExportIncidentReportOutput } from "./export-incident.types";

export const exportIncidentReport = procedure({ auth: "apiKey", plan: "business" })
  .meta(exportIncidentReportMeta)
  .input(ZIncidentId)
  .output(ZExportIncidentReportOutput)
  .query(async ({ ctx, input }) => {
    const { orgId } = scopeOf(ctx.principal);
    const r = await incidentReport(ctx.db, { orgId, id: input.id });
    return download({ filename: r.filename, contentType: r.contentType, body: r.pdf, size: r.pdf.length });
  });
