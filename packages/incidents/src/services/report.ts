import { and, eq, inArray } from "drizzle-orm";
import { findings, type Db } from "@posture/db";
import { reportTheme } from "@posture/pdf/org-theme";
import { renderIncidentReport, type TReportFinding } from "../report/incident-report";
import { regulationsOff } from "./deadlines";
import { getIncidentRow, organizationName } from "./incidents";

/** The incident response report as PDF bytes, with a file name for the attachment. */
export async function incidentReport(db: Db, q: { orgId: string; id: string; now?: Date }) {
  const row = await getIncidentRow(db, q);
  const ids = row.linkedFindingIds;
  const rows =
    ids.length === 0
      ? []
      : await db
          .select()
          .from(findings)
          .where(and(eq(findings.orgId, q.orgId), inArray(findings.id, ids)));
  const byId = new Map(rows.map((f) => [f.id, f]));
  const linked: TReportFinding[] = ids.map((id) => {
    const f = byId.get(id);
    return f
      ? {
          id,
          severity: f.severity,
          title: f.title,
          resourceName: f.resourceName,
          resourceType: f.resourceType,
          ruleId: f.ruleId,
          status: f.status,
          detectedAt: f.detectedAt,
        }
      : {
          id,
          severity: null,
          title: id,
          resourceName: "",
          resourceType: "",
          ruleId: "",
          status: "REMOVED",
          detectedAt: null,
        };
  });
  const pdf = await renderIncidentReport({
    organization: await organizationName(db, { orgId: q.orgId }),
    generatedAt: q.now ?? new Date(),
    incident: { ...row, postMortem: row.postMortem ?? null },
    findings: linked,
    regulationsOff: await regulationsOff(db, { orgId: q.orgId }),
    theme: await reportTheme(db, q.orgId),
  });
  const slug =
    row.title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 40) || "incident";
  return {
    filename: `incident-${slug}-${row.id.slice(-8)}.pdf`,
    contentType: "application/pdf" as const,
    pdf,
  };
}
