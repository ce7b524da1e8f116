import type { TSeverity } from "@posture/db";

// The severity vocabulary is @posture/db's (one list for the table, the engine and the API).
export { lowerSeverity, maxSeverity, SEVERITIES, SEVERITY_RANK, type TSeverity } from "@posture/db";

export const FINDING_CATEGORIES = [
  "public_exposure",
  "external_sharing",
  "shared_drive_exposure",
  "identity",
  "third_party_apps",
  // A tenant setting that fails its benchmark check (`@posture/benchmarks`), one finding per check.
  "tenant_configuration",
] as const;
export type TFindingCategory = (typeof FINDING_CATEGORIES)[number];

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
