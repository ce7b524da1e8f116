export const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW"] as const;
export type TSeverity = (typeof SEVERITIES)[number];

/** Higher is worse; also the db's severity_rank. */
export const SEVERITY_RANK: Record<TSeverity, number> = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1 };

export const FINDING_CATEGORIES = [
  "public_exposure",
  "external_sharing",
  "shared_drive_exposure",
  "identity",
  "third_party_apps",
] as const;
export type TFindingCategory = (typeof FINDING_CATEGORIES)[number];

export type TResourceType = "file" | "user" | "shared_drive" | "app" | "workspace";

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

/** One level less severe, never below LOW: what a trusted destination earns. */
export function lowerSeverity(severity: TSeverity): TSeverity {
  return severity === "CRITICAL" ? "HIGH" : severity === "HIGH" ? "MEDIUM" : "LOW";
}

export function maxSeverity(a: TSeverity, b: TSeverity): TSeverity {
  return SEVERITY_RANK[a] >= SEVERITY_RANK[b] ? a : b;
}
