import type { TAccessRequirement } from "../types";
import { GOOGLE_SETTINGS_ACCESS } from "./settings";

const AUTH = "https://www.googleapis.com/auth/";

/** The OAuth scopes the connector asks for, one per API it reads (each token carries only its own). */
export const GOOGLE_SCOPE = {
  users: `${AUTH}admin.directory.user.readonly`,
  domains: `${AUTH}admin.directory.domain.readonly`,
  drive: `${AUTH}drive.readonly`,
  labels: `${AUTH}drive.admin.labels.readonly`,
  tokens: `${AUTH}admin.directory.user.security`,
  reports: `${AUTH}admin.reports.audit.readonly`,
  licensing: `${AUTH}apps.licensing`,
  groups: `${AUTH}admin.directory.group.readonly`,
} as const;

export const GOOGLE_FEATURE = {
  users: "Users",
  domains: "Tenant domains",
  files: "Files in every user's My Drive",
  sharedDrives: "Shared drives and their files",
  labels: "Sensitivity labels (Drive labels)",
  appGrants: "Third-party app grants",
  activity: "Activity (sharing, downloads, sign-ins, app grants)",
  assistants: "AI assistant licences (Gemini)",
  groups: "Directory groups and their members",
} as const;

/**
 * Every scope the Google Workspace connector's features need, granted to its service account's
 * domain-wide delegation (Admin console > Security > API controls > Domain-wide delegation).
 * `docs/sources/google-workspace.md` lists the same (a test keeps them equal).
 */
export const GOOGLE_ACCESS: readonly TAccessRequirement[] = [
  {
    feature: GOOGLE_FEATURE.users,
    permission: GOOGLE_SCOPE.users,
    impact:
      "No user is read and the scan fails: users, admin and 2-step verification findings, and the " +
      "per-user file listing all start from the Directory.",
  },
  {
    feature: GOOGLE_FEATURE.domains,
    permission: GOOGLE_SCOPE.domains,
    impact:
      "The tenant's domains cannot be read: the connection needs its primary domain configured, and " +
      "sharing to secondary domains not configured counts as external.",
  },
  {
    feature: GOOGLE_FEATURE.files,
    permission: GOOGLE_SCOPE.drive,
    impact:
      "No user's files are read (each user is impersonated with this scope): no file inventory, " +
      "public or external sharing findings, or flow graph.",
  },
  {
    feature: GOOGLE_FEATURE.sharedDrives,
    permission: GOOGLE_SCOPE.drive,
    impact:
      "Shared drives, their members and restrictions are not read, nor their files (read through " +
      "one of each drive's members).",
  },
  {
    feature: GOOGLE_FEATURE.labels,
    permission: GOOGLE_SCOPE.labels,
    impact:
      "Files carry no sensitivity label: a labelled file shared publicly is rated like an unlabelled " +
      "one, and the data-classification evidence (ISO 27001 A.5.12, A.5.13) has no labels to show.",
  },
  {
    feature: GOOGLE_FEATURE.appGrants,
    permission: GOOGLE_SCOPE.tokens,
    impact: "Third-party OAuth apps and AI agents users granted access to are not listed.",
  },
  {
    feature: GOOGLE_FEATURE.activity,
    permission: GOOGLE_SCOPE.reports,
    impact:
      "No activity is read (behaviour anomalies cannot be detected) and app grants carry the user's " +
      "creation date instead of the day they were granted.",
  },
  {
    feature: GOOGLE_FEATURE.assistants,
    permission: GOOGLE_SCOPE.licensing,
    impact:
      "Who holds a Gemini licence (Enterprise License Manager, product 101047) is unknown: no user " +
      "counts as a Gemini user. The API has no read-only scope; the connector only lists.",
  },
  {
    feature: GOOGLE_FEATURE.groups,
    permission: GOOGLE_SCOPE.groups,
    impact:
      "Groups and their members are not read: a file granted to a group counts one person in its " +
      "reach, and no grant to a very large group becomes a broad-group finding.",
  },
  ...GOOGLE_SETTINGS_ACCESS,
];

/** Every distinct scope of GOOGLE_ACCESS, in order: what the domain-wide delegation must list. */
export function googleScopes(): string[] {
  return [...new Set(GOOGLE_ACCESS.map((r) => r.permission))];
}

/** The scopes remediation writes with: Drive's full scope (its read-only one changes nothing). */
export const GOOGLE_WRITE_SCOPE = {
  drive: `${AUTH}drive`,
  tokens: `${AUTH}admin.directory.user.security`,
} as const;

export const GOOGLE_WRITE_FEATURE = {
  sharing: "Remediation: file sharing",
  ownership: "Remediation: ownership transfer",
  appGrants: "Remediation: app grants",
} as const;

/**
 * What remediation needs on top of GOOGLE_ACCESS, in the same domain-wide delegation. Opt-in: a
 * connector that only scans never asks for these. Directory tokens are read and revoked with the
 * same scope, so app-grant revocation needs nothing new.
 */
export const GOOGLE_WRITE_ACCESS: TAccessRequirement[] = [
  {
    feature: GOOGLE_WRITE_FEATURE.sharing,
    permission: GOOGLE_WRITE_SCOPE.drive,
    impact:
      "Public links, external users and domains cannot be removed nor permissions downgraded (or " +
      "put back on undo): Drive permissions.delete, update and create need the full Drive scope, " +
      "granted as each file's owner (My Drive) or as the admin (shared drives).",
  },
  {
    feature: GOOGLE_WRITE_FEATURE.ownership,
    permission: GOOGLE_WRITE_SCOPE.drive,
    impact:
      "The offboarding playbook cannot transfer a leaver's files to their successor: ownership is " +
      "transferred with permissions.create as the current owner, under the full Drive scope.",
  },
  {
    feature: GOOGLE_WRITE_FEATURE.appGrants,
    permission: GOOGLE_WRITE_SCOPE.tokens,
    impact:
      "Third-party apps' OAuth grants cannot be revoked (Directory tokens.delete, as an " +
      "administrator); a revoked grant cannot be given back, the user must consent again.",
  },
];
