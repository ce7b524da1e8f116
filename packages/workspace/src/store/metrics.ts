import type { TExposure, TSensitivity, TShareType } from "@posture/db";

/** Tallies kept per snapshot, so inventory and sharing totals never count a million rows. */
export const METRIC_KEYS = [
  "admins",
  "mfaEnabled",
  /** Users whose MFA the source could not read (stored as null, counted neither way). */
  "mfaUnknown",
  "dormant",
  "suspended",
  "filesPublic",
  "filesExternal",
  "filesInternal",
  "filesPrivate",
  "filesSensitive",
  /** Files carrying a source sensitivity label (any label). */
  "filesLabelled",
  /** Highly sensitive files carrying a label: the data-classification evidence. */
  "filesSensitiveLabelled",
  /** Files everyone in the organization can open (`reach.orgWide`, issue 30), and the highly sensitive ones. */
  "filesOrgWide",
  "filesSensitiveOrgWide",
  "sharesPublic",
  "sharesExternalUser",
  "sharesExternalDomain",
  "drivesWithExternalMembers",
  "drivesUnrestricted",
] as const;
export type TSnapshotMetrics = Record<(typeof METRIC_KEYS)[number], number>;

export function emptyMetrics(): TSnapshotMetrics {
  return Object.fromEntries(METRIC_KEYS.map((k) => [k, 0])) as TSnapshotMetrics;
}

export const SHARE_METRIC: Record<TShareType, keyof TSnapshotMetrics> = {
  public: "sharesPublic",
  external_user: "sharesExternalUser",
  external_domain: "sharesExternalDomain",
};

const EXPOSURE_METRIC: Record<TExposure, keyof TSnapshotMetrics> = {
  public: "filesPublic",
  external: "filesExternal",
  internal: "filesInternal",
  private: "filesPrivate",
};

/** The metrics files and their sharing items make (the rest come from users and shared drives). */
export const FILE_METRIC_KEYS = [
  "filesPublic",
  "filesExternal",
  "filesInternal",
  "filesPrivate",
  "filesSensitive",
  "filesLabelled",
  "filesSensitiveLabelled",
  "filesOrgWide",
  "filesSensitiveOrgWide",
  "sharesPublic",
  "sharesExternalUser",
  "sharesExternalDomain",
] as const satisfies ReadonlyArray<keyof TSnapshotMetrics>;

/** Counts one file in (`by` 1) or out of (`by` -1) the tallies. */
export function tallyFile(
  m: TSnapshotMetrics,
  exposure: TExposure,
  sensitivity: TSensitivity,
  labelled = false,
  by = 1,
  orgWide = false,
): void {
  m[EXPOSURE_METRIC[exposure]] += by;
  if (sensitivity === "high") m.filesSensitive += by;
  if (labelled) m.filesLabelled += by;
  if (labelled && sensitivity === "high") m.filesSensitiveLabelled += by;
  if (orgWide) m.filesOrgWide += by;
  if (orgWide && sensitivity === "high") m.filesSensitiveOrgWide += by;
}
