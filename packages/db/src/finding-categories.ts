// The posture score's categories: one list for the engine, the API schemas and the reports.

export const FINDING_CATEGORIES = [
  "public_exposure",
  "external_sharing",
  "shared_drive_exposure",
  "identity",
  "third_party_apps",
  // A tenant setting that fails its benchmark check (`@posture/benchmarks`), one finding per check.
  "tenant_configuration",
  // What everyone inside can open, and so every AI assistant (issue 30): organization-wide links,
  // everyone grants, grants to very large groups.
  "internal_exposure",
] as const;
export type TFindingCategory = (typeof FINDING_CATEGORIES)[number];

/** Points each category can take off the score at most; they sum to 100 (packages/posture/src/engine/README.md). */
export const CATEGORY_CAPS: Record<TFindingCategory, number> = {
  // Issue 30 took 14 points for internal exposure from the others, none below 13: what everyone
  // inside (and every AI assistant) can open weighs a little less than what leaves the company.
  public_exposure: 17,
  external_sharing: 15,
  shared_drive_exposure: 13,
  identity: 15,
  third_party_apps: 13,
  tenant_configuration: 13,
  internal_exposure: 14,
};

/** How people read each category (reports, PDFs). */
export const CATEGORY_LABELS: Record<TFindingCategory, string> = {
  public_exposure: "Public exposure",
  external_sharing: "External sharing",
  shared_drive_exposure: "Shared drive exposure",
  identity: "Identity",
  third_party_apps: "Third-party apps",
  tenant_configuration: "Tenant configuration",
  internal_exposure: "Internal exposure",
};

const isCategory = (c: string): c is TFindingCategory =>
  (FINDING_CATEGORIES as readonly string[]).includes(c);

/** The category's cap; 0 for a category outside the score (listed, deducting nothing). */
export const categoryCap = (category: string): number => (isCategory(category) ? CATEGORY_CAPS[category] : 0);

export const categoryLabel = (category: string): string =>
  isCategory(category) ? CATEGORY_LABELS[category] : category;
