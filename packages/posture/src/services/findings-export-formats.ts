import type { TSeverity } from "@posture/db";
import { csvLine } from "@posture/platform";
import type { TFindingView } from "./findings";

/** A finding as the export reads it: the API's view, and what a SIEM or a spreadsheet needs beside it. */
export type TExportFinding = {
  view: TFindingView;
  resourceId: string;
  resourceType: string;
  /** When a scan last saw the finding (its last scan's end), or its detection when no scan is known. */
  lastSeenAt: string;
};

export const EXPORT_FORMATS = ["csv", "ndjson", "ocsf"] as const;
export type TExportFormat = (typeof EXPORT_FORMATS)[number];

// ---------------------------------------------------------------------------------------------
// CSV (RFC 4180, UTF-8, CRLF line ends)

/** The CSV's columns, in order: adding one at the end is the only change a consumer may see. */
export const CSV_COLUMNS = [
  "id",
  "severity",
  "status",
  "category",
  "ruleId",
  "title",
  "resourceId",
  "resourceName",
  "resourceType",
  "connectorId",
  "connectorType",
  "detectedAt",
  "lastSeenAt",
  "resolvedAt",
  "benchmarkName",
  "benchmarkVersion",
  "benchmarkId",
] as const;

export const csvHeader = (): string => `${CSV_COLUMNS.join(",")}\r\n`;

export function csvRow(f: TExportFinding): string {
  const v = f.view;
  const cells: Record<(typeof CSV_COLUMNS)[number], string | null> = {
    id: v.id,
    severity: v.severity,
    status: v.status,
    category: v.category,
    ruleId: v.ruleId,
    title: v.title,
    resourceId: f.resourceId,
    resourceName: v.resourceName,
    resourceType: f.resourceType,
    connectorId: v.connectorId,
    connectorType: v.connectorType,
    detectedAt: v.detectedAt,
    lastSeenAt: f.lastSeenAt,
    resolvedAt: v.resolvedAt,
    benchmarkName: v.benchmark?.name ?? null,
    benchmarkVersion: v.benchmark?.version ?? null,
    benchmarkId: v.benchmark?.id ?? null,
  };
  return csvLine(CSV_COLUMNS.map((c) => cells[c]));
}

// ---------------------------------------------------------------------------------------------
// NDJSON: exactly GET /api/findings/{id}, one per line

export const ndjsonRow = (f: TExportFinding): string => `${JSON.stringify(f.view)}\n`;

// ---------------------------------------------------------------------------------------------
// OCSF 1.3.0: Compliance Finding (2003) for benchmark checks, Detection Finding (2004) otherwise

export const OCSF_VERSION = "1.3.0";
export const OCSF_PRODUCT = { name: "Security Posture", vendor_name: "Security Posture" } as const;

const FINDINGS_CATEGORY = { uid: 2, name: "Findings" } as const;
export const OCSF_CLASSES = {
  compliance: { uid: 2003, name: "Compliance Finding" },
  detection: { uid: 2004, name: "Detection Finding" },
} as const;

const SEVERITY: Record<TSeverity, { id: number; name: string }> = {
  CRITICAL: { id: 5, name: "Critical" },
  HIGH: { id: 4, name: "High" },
  MEDIUM: { id: 3, name: "Medium" },
  LOW: { id: 2, name: "Low" },
};

// The finding's state as the line reports it: activity (Create / Update / Close) and the
// finding lifecycle status (New / Suppressed / Resolved). ACCEPTED is an approved share: reviewed
// and kept, which OCSF calls suppressed.
const STATE: Record<TFindingView["status"], { activity: [number, string]; status: [number, string] }> = {
  OPEN: { activity: [1, "Create"], status: [1, "New"] },
  ACCEPTED: { activity: [2, "Update"], status: [3, "Suppressed"] },
  RESOLVED: { activity: [3, "Close"], status: [4, "Resolved"] },
};

const ms = (isoTime: string): number => Date.parse(isoTime);

/** One OCSF event (an object, not yet serialized); `tenantUid` is the organization's id. */
export function ocsfEvent(f: TExportFinding, tenantUid: string): Record<string, unknown> {
  const v = f.view;
  const cls = v.benchmark ? OCSF_CLASSES.compliance : OCSF_CLASSES.detection;
  const state = STATE[v.status];
  const [activityId, activityName] = state.activity;
  const [statusId, status] = state.status;
  const severity = SEVERITY[v.severity];
  const detected = ms(v.detectedAt);
  const event: Record<string, unknown> = {
    category_uid: FINDINGS_CATEGORY.uid,
    category_name: FINDINGS_CATEGORY.name,
    class_uid: cls.uid,
    class_name: cls.name,
    activity_id: activityId,
    activity_name: activityName,
    type_uid: cls.uid * 100 + activityId,
    type_name: `${cls.name}: ${activityName}`,
    severity_id: severity.id,
    severity: severity.name,
    status_id: statusId,
    status,
    // The occurrence of what the line reports: the resolution of a closed finding, else its detection.
    time: v.resolvedAt ? ms(v.resolvedAt) : detected,
    message: v.title,
    metadata: {
      version: OCSF_VERSION,
      product: OCSF_PRODUCT,
      tenant_uid: tenantUid,
    },
    finding_info: {
      uid: v.id,
      title: v.title,
      created_time: detected,
      first_seen_time: detected,
      last_seen_time: ms(f.lastSeenAt),
      types: [v.category],
      analytic: { uid: v.ruleId, name: v.ruleId, type_id: 1, type: "Rule" },
    },
    resources: [{ uid: f.resourceId, name: v.resourceName, type: f.resourceType }],
    unmapped: { connector_id: v.connectorId, connector_type: v.connectorType },
  };
  if (v.benchmark) {
    const resolved = v.status === "RESOLVED";
    event.compliance = {
      standards: [`${v.benchmark.name} v${v.benchmark.version}`],
      control: v.benchmark.id,
      // The check's own result: a resolved finding is a check that passes now.
      status_id: resolved ? 1 : 3,
      status: resolved ? "Pass" : "Fail",
    };
    if (v.tenantCheck?.fix) event.remediation = { desc: v.tenantCheck.fix };
  }
  return event;
}

export const ocsfRow = (f: TExportFinding, tenantUid: string): string =>
  `${JSON.stringify(ocsfEvent(f, tenantUid))}\n`;
