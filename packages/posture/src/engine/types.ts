import type { TFindingCategory, TSeverity } from "@posture/db";

// The severity vocabulary is @posture/db's (one list for the table, the engine and the API).
export { lowerSeverity, maxSeverity, SEVERITIES, SEVERITY_RANK, type TSeverity } from "@posture/db";

// The categories and their caps are @posture/db's too (the reports label and draw them).
export { CATEGORY_CAPS, FINDING_CATEGORIES, type TFindingCategory } from "@posture/db";

export type TResourceType = "file" | "user" | "shared_drive" | "app" | "workspace" | "tenant_setting";

export type TDetectedFinding = {
  /** sha256(ruleId + ":" + resourceId), hex: the same problem on the same resource across scans. */
  fingerprint: string;
  ruleId: string;
  category: TFindingCategory;
  severity: TSeverity;
  title: string;
  resourceId: string;
  resourceName: string;
  resourceType: TResourceType;
  details: Record<string, unknown>;
};
