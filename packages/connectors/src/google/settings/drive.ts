import { choice, flag, policy, type TPolicySetting, type TSettingDef } from "./shapes";

// Drive and Docs
export const DRIVE_SETTINGS: readonly TSettingDef[] = [
  policy(
    "drive.external_sharing",
    "Sharing outside the organization",
    "drive_and_docs.external_sharing",
    choice("externalSharingMode", ["DISALLOWED", "ALLOWLISTED_DOMAINS", "ALLOWED"], "ALLOWED"),
    "ALLOWED",
  ),
  policy(
    "drive.external_sharing_warning",
    "Users are warned when sharing outside the organization",
    "drive_and_docs.external_sharing",
    flag("warnForExternalSharing", true, true),
    true,
  ),
  policy(
    "drive.allowlisted_sharing_warning",
    "Users are warned when sharing with allowlisted domains",
    "drive_and_docs.external_sharing",
    flag("warnForSharingOutsideAllowlistedDomains", true, true),
    true,
  ),
  policy(
    "drive.publishing_allowed",
    "Files may be published on the web or made visible to anyone",
    "drive_and_docs.external_sharing",
    flag("allowPublishingFiles", false, true),
    false,
  ),
  policy(
    "drive.access_checker",
    "Access Checker suggestions",
    "drive_and_docs.external_sharing",
    choice(
      "accessCheckerSuggestions",
      ["RECIPIENTS_ONLY", "RECIPIENTS_OR_AUDIENCE", "RECIPIENTS_OR_AUDIENCE_OR_PUBLIC"],
      "RECIPIENTS_OR_AUDIENCE_OR_PUBLIC",
    ),
    "RECIPIENTS_OR_AUDIENCE",
  ),
  policy(
    "drive.external_distribution",
    "Who may distribute content outside the organization",
    "drive_and_docs.external_sharing",
    choice(
      "allowedPartiesForDistributingContent",
      ["NONE", "ELIGIBLE_INTERNAL_USERS", "ALL_ELIGIBLE_USERS"],
      "ALL_ELIGIBLE_USERS",
    ),
    "ELIGIBLE_INTERNAL_USERS",
  ),
  policy(
    "drive.shared_drive_creation_allowed",
    "Users may create shared drives",
    "drive_and_docs.shared_drive_creation",
    flag("allowSharedDriveCreation", true, true),
    true,
  ),
  policy(
    "drive.shared_drive_managers_override",
    "Shared drive managers may override shared drive settings",
    "drive_and_docs.shared_drive_creation",
    flag("allowManagersToOverrideSettings", false, true),
    true,
  ),
  policy(
    "drive.shared_drive_non_member_access",
    "People outside a shared drive may be added to its files",
    "drive_and_docs.shared_drive_creation",
    flag("allowNonMemberAccess", false, true),
    false,
  ),
  policy(
    "drive.shared_drive_download_print_copy",
    "Who may download, print and copy shared drive files",
    "drive_and_docs.shared_drive_creation",
    choice("allowedPartiesForDownloadPrintCopy", ["MANAGERS_ONLY", "EDITORS_ONLY", "ALL"], "ALL"),
    "ALL",
  ),
  policy(
    "drive.desktop_allowed",
    "Google Drive for desktop is allowed",
    "drive_and_docs.drive_for_desktop",
    flag("allowDriveForDesktop", false, true),
    true,
  ),
];

export const DLP_DRIVE_RULE: TPolicySetting = policy(
  "rules.dlp_drive_rule_active",
  "An active DLP rule applies to Drive",
  "rule.dlp",
  {
    field: "state, triggers",
    googleDefault: false,
    read: (v) =>
      v.state === "ACTIVE" &&
      Array.isArray(v.triggers) &&
      v.triggers.some((t) => typeof t === "string" && t.startsWith("google.workspace.drive.")),
    // One active Drive rule is enough: the best of the rules, not the weakest.
    weaker: (a, b) => a === true || b === true,
  },
  true,
  { customerLevel: true },
);
