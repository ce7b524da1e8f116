import { ZDownload, type TMeta } from "@posture/platform";

export const exportIncidentReportMeta = {
  openapi: {
    method: "GET",
    path: "/incidents/{id}/export",
    tags: ["incidents"],
    summary: "Download the incident response report (PDF)",
    description:
      "An application/pdf attachment: cover, summary, regulatory clocks (GDPR Art. 33: 72 h; HIPAA: 60 days, from the opening), timeline from the log, linked findings, post-mortem, page numbers.",
    protect: true,
  },
  download: { contentTypes: ["application/pdf"] },
} satisfies TMeta;

export const ZExportIncidentReportOutput = ZDownload;
