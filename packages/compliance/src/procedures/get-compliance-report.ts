import { download, procedure, rateLimitHeaders, scopeOf } from "@posture/platform";
import type { TPostureReportDeps } from "../services/posture-report-data";
import { buildPostureReport } from "../services/posture-report-pdf";
import {
  getPostureReportMeta,
  ZGetPostureReportInput,
  ZGetPostureReportOutput,
} from "./get-compliance-report.types";

/** The breakdown it prints is the posture package's, handed in by the router's builder. */
export const getPostureReport = (deps: TPostureReportDeps) =>
  procedure({
    auth: "session",
    plan: "business",
    feature: "complianceExport",
    role: "ADMIN",
  })
    .meta(getPostureReportMeta)
    .input(ZGetPostureReportInput)
    .output(ZGetPostureReportOutput)
    .query(async ({ ctx, input }) => {
      // Counted per organization in Redis, after the guards: a refused caller does not use it up.
      const d = await ctx.limits.enforce("complianceReport", ctx.principal.org.id);
      Object.assign(ctx.response.headers, rateLimitHeaders(d));
      const pdf = await buildPostureReport(ctx.db, { ...scopeOf(ctx.principal), days: input.period }, deps);
      return download({
        filename: `posture-report-${input.period}d-${new Date().toISOString().slice(0, 10)}.pdf`,
        contentType: "application/pdf",
        body: pdf,
      });
    });
