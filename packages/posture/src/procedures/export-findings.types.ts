import { z } from "zod";
import { ZDownload, type TMeta } from "@posture/platform";
import { EXPORT_FORMATS } from "../services/findings-export-formats";
import { ZFindingFilters } from "./findings.types";

export const exportFindingsMeta = {
  openapi: {
    method: "GET",
    path: "/findings/export",
    tags: ["findings"],
    summary: "Export findings as CSV, NDJSON or OCSF (streamed attachment)",
    description:
      "Every finding matching the list's filters (`status`, default OPEN, `all` for every status; `severity`; `category`), streamed as an attachment in constant memory, oldest detection first (detected_at, then id). `format` is required: `csv` (RFC 4180, UTF-8, a header row, text/csv; cells a spreadsheet would run as a formula are prefixed with `'`), `ndjson` (one finding per line, exactly as GET /findings/{id} returns it, application/x-ndjson) or `ocsf` (one OCSF 1.3.0 event per line, application/x-ndjson: Compliance Finding, class 2003, for benchmark checks, with `compliance.control` the benchmark's recommendation id; Detection Finding, class 2004, for the others). Findings detected after the export started are left for the next one. Each export is audited (`FINDINGS_EXPORTED`, with its format and filters). Columns and the OCSF mapping: docs/export.md.",
  },
  download: { contentTypes: ["text/csv", "application/x-ndjson"] },
} satisfies TMeta;

export const ZExportFindingsInput = ZFindingFilters.extend({
  format: z.enum(EXPORT_FORMATS).describe("`csv`, `ndjson` or `ocsf` (OCSF 1.3.0 events as NDJSON)"),
});

export const ZExportFindingsOutput = ZDownload;
