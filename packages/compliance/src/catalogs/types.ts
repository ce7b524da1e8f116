import type { TComplianceFramework } from "@posture/db";

/**
 * The check kinds of the control catalogs (shared/reference/frameworks.md): what the product can
 * observe. `posture` stands for "all posture checks" (the score and every open finding).
 */
export const EVIDENCE_KINDS = [
  "mfa",
  "admin",
  "public_link",
  "ext_share",
  // What everyone inside, and so every AI assistant, can open (issue 30): organization-wide links,
  // everyone grants, grants to very large groups. Evidence of the access-control and
  // least-privilege controls (docs/decisions.md).
  "internal_exposure",
  "trusted_domain",
  "oauth_app",
  "dormant",
  "audit_log",
  "data_class",
  "inventory",
  "anomaly",
  "incident",
  "awareness",
  "posture",
  // Tenant settings against the CIS benchmarks (@posture/benchmarks): evidence of the controls
  // each check maps to, never listed in a catalog's `kinds`.
  "tenant_config",
] as const;
export type TEvidenceKind = (typeof EVIDENCE_KINDS)[number];

export type TControl = {
  id: string;
  title: string;
  /** Empty: nothing the product observes supports it; the control needs evidence attached by hand. */
  kinds: readonly TEvidenceKind[];
};

export type TFramework = {
  id: TComplianceFramework;
  name: string;
  version: string;
  controls: readonly TControl[];
};

/** Posture rule ids (packages/posture/src/engine/rule-ids.ts) behind each rule-backed kind. */
export const KIND_RULES: Partial<Record<TEvidenceKind, readonly string[]>> = {
  mfa: ["admin_without_mfa", "user_without_mfa"],
  admin: ["excess_admins", "admin_without_mfa"],
  public_link: ["public_link"],
  ext_share: ["external_share", "shared_drive_external_members"],
  internal_exposure: ["org_wide_link", "org_wide_grant", "broad_group_grant"],
  trusted_domain: ["external_share"],
  oauth_app: ["app_broad_scopes_unverified", "app_broad_scopes", "app_unverified_publisher"],
  dormant: ["dormant_account"],
};

/** The theme a kind belongs to, as the dashboard's crossGaps and the gap report name it. */
export const KIND_THEMES: Record<TEvidenceKind, string> = {
  mfa: "MFA",
  admin: "Privileged access",
  public_link: "Public links",
  ext_share: "External sharing",
  internal_exposure: "Internal oversharing",
  trusted_domain: "Sharing allowlist",
  oauth_app: "Third-party apps",
  dormant: "Dormant accounts",
  audit_log: "Audit logging",
  data_class: "Data classification",
  inventory: "Asset inventory",
  anomaly: "Activity monitoring",
  incident: "Incident response",
  awareness: "Security awareness",
  posture: "Overall posture",
  tenant_config: "Tenant configuration",
};
