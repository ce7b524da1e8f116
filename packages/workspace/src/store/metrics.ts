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

export function tallyFile(
  m: TSnapshotMetrics,
  exposure: TExposure,
  sensitivity: TSensitivity,
  labelled = false,
): void {
  m[EXPOSURE_METRIC[exposure]]++;
  if (sensitivity === "high") m.filesSensitive++;
  if (labelled) m.filesLabelled++;
  if (labelled && sensitivity === "high") m.filesSensitiveLabelled++;
}
