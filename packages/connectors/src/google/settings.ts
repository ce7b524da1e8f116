import type { TJsonClient } from "../http/client";
import { pagesByToken } from "../http/paginate";
import type { TAccessRequirement, TSettingValue, TTenantSetting } from "../types";

/**
 * One Google Workspace tenant setting the connector reads: its key (what the checks of
 * `@posture/benchmarks` name), where it comes from, and the value the demo tenant has.
 */
export type TGoogleSettingSpec = { key: string; title: string; source: string; demo: TSettingValue };

export const POLICIES_SCOPE = "https://www.googleapis.com/auth/cloud-identity.policies.readonly";
export const DIRECTORY_USERS_SCOPE = "https://www.googleapis.com/auth/admin.directory.user.readonly";
export const ORG_UNITS_SCOPE = "https://www.googleapis.com/auth/admin.directory.orgunit.readonly";
export const ROLES_SCOPE = "https://www.googleapis.com/auth/admin.directory.rolemanagement.readonly";

type TPolicyValue = Record<string, unknown>;

/**
 * A setting read from the Cloud Identity Policy API: the policy's setting type (without the
 * `settings/` prefix), how the value is read from `setting.value`, Google's value when no policy
 * is returned, and which of two values is the less secure (the tenant's value is the least secure
 * of the root org unit's and every org-unit or group override's).
 */
type TPolicySetting = {
  kind: "policy";
  key: string;
  title: string;
  demo: TSettingValue;
  setting: string;
  field: string;
  read: (value: TPolicyValue) => TSettingValue | undefined;
  googleDefault: TSettingValue;
  weaker: (a: TSettingValue, b: TSettingValue) => TSettingValue;
  /** Judged only where admin accounts live (their org units' effective policy, plus group policies). */
  adminsOnly?: boolean;
  /** Several policies share the setting type (alert rules); this one is those the predicate picks. */
  where?: (value: TPolicyValue) => boolean;
  /** A customer-wide setting (alert rules): any policy of it is the tenant's, not an override. */
  customerLevel?: boolean;
};

/** A setting computed from the Admin SDK Directory's admin accounts. */
type TDirectorySetting = {
  kind: "directory";
  key: string;
  title: string;
  demo: TSettingValue;
  source: string;
  compute: (admins: readonly TGAdminUser[]) => TSettingValue;
};

/** A setting computed from the admin accounts and their role assignments. */
type TRolesSetting = Omit<TDirectorySetting, "kind" | "compute"> & {
  kind: "roles";
  compute: (admins: readonly TGAdminUser[], roles: TRoleData) => TSettingValue;
};

type TSettingDef = TPolicySetting | TDirectorySetting | TRolesSetting;

type TPolicyShape = Pick<TPolicySetting, "read" | "weaker" | "googleDefault">;

/** Struct values arrive as JSON booleans and numbers; their string spellings are read too. */
function asBoolean(raw: unknown): boolean | undefined {
  if (typeof raw === "boolean") return raw;
  if (typeof raw === "string" && /^(true|false)$/i.test(raw)) return raw.toLowerCase() === "true";
  return undefined;
}

function asNumber(raw: unknown): number | undefined {
  if (typeof raw === "number" && Number.isFinite(raw)) return raw;
  if (typeof raw === "string" && /^\d+$/.test(raw)) return Number(raw);
  return undefined;
}

/** A boolean field; `secure` is the value that passes, so the other one is the weaker. */
function flag(field: string, secure: boolean, googleDefault: boolean): TPolicyShape & { field: string } {
  return {
    field,
    googleDefault,
    read: (v) => asBoolean(v[field]),
    weaker: (a, b) => (a === secure ? b : a),
  };
}

/** Of two enum values ordered most to least secure, the less secure; an unknown value counts as least. */
function lessSecureOf(bestToWorst: readonly string[]) {
  const rank = (x: TSettingValue) => {
    const i = typeof x === "string" ? bestToWorst.indexOf(x) : -1;
    return i < 0 ? bestToWorst.length : i;
  };
  return (a: TSettingValue, b: TSettingValue) => (rank(b) > rank(a) ? b : a);
}

/** An enum field, its values from most to least secure. */
function choice(
  field: string,
  bestToWorst: readonly string[],
  googleDefault: string,
): TPolicyShape & { field: string } {
  return {
    field,
    googleDefault,
    read: (v) => (typeof v[field] === "string" ? v[field] : undefined),
    weaker: lessSecureOf(bestToWorst),
  };
}

/** A number where more is more secure (a minimum password length). */
function atLeast(field: string, googleDefault: number): TPolicyShape & { field: string } {
  return {
    field,
    googleDefault,
    read: (v) => asNumber(v[field]),
    weaker: (a, b) => (typeof a === "number" && typeof b === "number" ? Math.min(a, b) : (a ?? b)),
  };
}

/** A google.protobuf.Duration (`"43200s"`) read as seconds; fewer is more secure. */
function durationAtMost(field: string, googleDefaultSeconds: number): TPolicyShape & { field: string } {
  return {
    field,
    googleDefault: googleDefaultSeconds,
    read: (v) => {
      const raw = v[field];
      const match = typeof raw === "string" ? /^(\d+)(?:\.\d+)?s$/.exec(raw) : null;
      return match ? Number(match[1]) : undefined;
    },
    weaker: (a, b) => (typeof a === "number" && typeof b === "number" ? Math.max(a, b) : (a ?? b)),
  };
}

const policy = (
  key: string,
  title: string,
  setting: string,
  shape: TPolicyShape & { field: string },
  demo: TSettingValue,
  extra: Pick<TPolicySetting, "adminsOnly" | "where" | "customerLevel"> = {},
): TPolicySetting => ({ kind: "policy", key, title, setting, demo, ...shape, ...extra });

/** `enforcedFrom` is a timestamp; the API answers the zero Timestamp when enforcement is off. */
const twoStepEnforced: TPolicyShape & { field: string } = {
  field: "enforcedFrom",
  googleDefault: false,
  read: (v) => {
    const raw = v.enforcedFrom;
    if (typeof raw !== "string") return undefined;
    const at = Date.parse(raw);
    return Number.isFinite(at) && at > 0 && at <= Date.now();
  },
  weaker: (a, b) => (a === true ? b : a),
};

/** Chat's external setting is two fields; read as one: OFF, TRUSTED_DOMAINS or ANY. */
const externalChat: TPolicyShape & { field: string } = {
  field: "allowExternalChat,externalChatRestriction",
  googleDefault: "ANY",
  read: (v) => {
    if (v.allowExternalChat === false) return "OFF";
    if (v.allowExternalChat === undefined && v.externalChatRestriction === undefined) return undefined;
    return v.externalChatRestriction === "TRUSTED_DOMAINS" ? "TRUSTED_DOMAINS" : "ANY";
  },
  weaker: lessSecureOf(["OFF", "TRUSTED_DOMAINS", "ANY"]),
};

/**
 * A system-defined alert rule (Admin console > Rules), read as one boolean: on, sending to the
 * alert center, with email notifications reaching all super admins.
 */
function alertRule(key: string, displayName: string, googleDefault: boolean, demo: boolean): TPolicySetting {
  return policy(
    key,
    `Alert rule "${displayName}" is on and emails all super admins`,
    "rule.system_defined_alerts",
    {
      field: `displayName="${displayName}": state, action.alertCenterAction.recipients`,
      googleDefault,
      read: (v) => {
        const action = (v.action as { alertCenterAction?: { recipients?: unknown } } | undefined)
          ?.alertCenterAction;
        const recipients = Array.isArray(action?.recipients)
          ? (action.recipients as Array<Record<string, unknown>>)
          : [];
        return v.state === "ACTIVE" && recipients.some((r) => r.allSuperAdmins === true);
      },
      weaker: (a, b) => (a === true ? b : a),
    },
    demo,
    { where: (v) => v.displayName === displayName, customerLevel: true },
  );
}

/**
 * A Gmail safety protection: its switch and the action taken, read as ON, NO_ACTION (switched on
 * but doing nothing) or OFF.
 */
function protection(
  enable: string,
  consequence: string,
  onByDefault: boolean,
): TPolicyShape & { field: string } {
  return {
    field: `${enable},${consequence}`,
    googleDefault: onByDefault ? "ON" : "OFF",
    read: (v) => {
      const on = asBoolean(v[enable]);
      if (on === false) return "OFF";
      if (v[consequence] === "NO_ACTION") return "NO_ACTION";
      return on === undefined && v[consequence] === undefined ? undefined : "ON";
    },
    weaker: lessSecureOf(["ON", "NO_ACTION", "OFF"]),
  };
}

const SIGN_IN_FACTORS = [
  "PASSKEY_ONLY",
  "PASSKEY_PLUS_IP_BOUND_SECURITY_CODE",
  "PASSKEY_PLUS_SECURITY_CODE",
  "NO_TELEPHONY",
  "ALL",
];

/** The admin accounts the Directory lists (super admins and delegated admins). */
export type TGAdminUser = {
  id?: string;
  primaryEmail?: string;
  isAdmin?: boolean;
  isDelegatedAdmin?: boolean;
  isEnforcedIn2Sv?: boolean;
  isEnrolledIn2Sv?: boolean;
  suspended?: boolean;
  archived?: boolean;
  orgUnitPath?: string;
};

const active = (u: TGAdminUser) => !u.suspended && !u.archived;
const DIRECTORY_ADMINS = "GET /admin/directory/v1/users?query=isAdmin=true / isDelegatedAdmin=true";

const DEFS: readonly TSettingDef[] = [
  // Admin SDK Directory
  {
    kind: "directory",
    key: "directory.super_admin_count",
    title: "Active super administrator accounts",
    source: `${DIRECTORY_ADMINS} (isAdmin, suspended)`,
    compute: (admins) => admins.filter((u) => u.isAdmin && active(u)).length,
    demo: 3,
  },
  {
    kind: "directory",
    key: "directory.admins_without_2sv_enforced",
    title: "Active admin accounts (super and delegated) without 2-Step Verification enforced",
    source: `${DIRECTORY_ADMINS} (isEnforcedIn2Sv)`,
    compute: (admins) => admins.filter((u) => active(u) && u.isEnforcedIn2Sv !== true).length,
    demo: 0,
  },
  {
    kind: "roles",
    key: "directory.super_admins_with_other_roles",
    title: "Active super admin accounts that also hold another admin role",
    source:
      "GET /admin/directory/v1/customer/my_customer/roles (isSuperAdminRole) and /roleassignments (assignedTo)",
    compute: (admins, { superAdminRoleIds, assignments }) =>
      admins.filter(
        (u) =>
          u.isAdmin &&
          active(u) &&
          assignments.some(
            (a) => a.assignedTo === u.id && a.roleId !== undefined && !superAdminRoleIds.has(a.roleId),
          ),
      ).length,
    demo: 1,
  },
  // Security: authentication
  policy(
    "security.2sv_enrollment_allowed",
    "Users may enroll in 2-Step Verification",
    "security.two_step_verification_enrollment",
    flag("allowEnrollment", true, true),
    true,
  ),
  policy(
    "security.2sv_enforced",
    "2-Step Verification enforcement is on",
    "security.two_step_verification_enforcement",
    twoStepEnforced,
    true,
  ),
  policy(
    "security.2sv_methods_admins",
    "2-Step Verification methods allowed where admin accounts live",
    "security.two_step_verification_enforcement_factor",
    choice("allowedSignInFactorSet", SIGN_IN_FACTORS, "ALL"),
    "NO_TELEPHONY",
    { adminsOnly: true },
  ),
  policy(
    "security.super_admin_account_recovery",
    "Super admins may recover their own accounts",
    "security.super_admin_account_recovery",
    flag("enableAccountRecovery", false, false),
    true,
  ),
  policy(
    "security.user_account_recovery",
    "Users may recover their own accounts",
    "security.user_account_recovery",
    flag("enableAccountRecovery", true, false),
    true,
  ),
  policy(
    "security.advanced_protection_enrollment",
    "Users may self-enroll in the Advanced Protection Program",
    "security.advanced_protection_program",
    flag("enableAdvancedProtectionSelfEnrollment", true, true),
    true,
  ),
  policy(
    "security.password_min_length",
    "Minimum password length",
    "security.password",
    atLeast("minimumLength", 8),
    8,
  ),
  policy(
    "security.password_strength",
    "Password strength required",
    "security.password",
    choice("allowedStrength", ["STRONG", "WEAK"], "STRONG"),
    "STRONG",
  ),
  policy(
    "security.password_reuse_allowed",
    "Passwords may be reused",
    "security.password",
    flag("allowReuse", false, false),
    false,
  ),
  policy(
    "security.password_enforced_at_login",
    "Password requirements are enforced at next sign-in",
    "security.password",
    flag("enforceRequirementsAtLogin", true, false),
    true,
  ),
  policy(
    "security.web_session_seconds",
    "Google web session duration (seconds)",
    "security.session_controls",
    durationAtMost("webSessionDuration", 14 * 24 * 3600),
    14 * 24 * 3600,
  ),
  policy(
    "security.less_secure_apps_allowed",
    "Users may allow less secure apps",
    "security.less_secure_apps",
    flag("allowLessSecureApps", false, false),
    false,
  ),
  // API controls
  policy(
    "api_controls.unconfigured_third_party_apps",
    "Access of unconfigured third-party apps",
    "api_controls.unconfigured_third_party_apps",
    choice("accessLevel", ["BLOCK_ALL", "ALLOW_SIGN_IN_ONLY"], "ACCESS_LEVEL_UNSPECIFIED"),
    "ACCESS_LEVEL_UNSPECIFIED",
  ),
  policy(
    "api_controls.trust_internal_apps",
    "Domain-owned apps are trusted",
    "api_controls.internal_apps",
    flag("trustInternalApps", true, true),
    true,
  ),
  // Drive and Docs
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
  // Gmail
  policy(
    "gmail.mail_delegation",
    "Users may delegate access to their mailbox",
    "gmail.mail_delegation",
    flag("enableMailDelegation", false, false),
    false,
  ),
  policy(
    "gmail.pop_access",
    "POP access is allowed",
    "gmail.pop_access",
    flag("enablePopAccess", false, true),
    false,
  ),
  policy(
    "gmail.imap_access",
    "IMAP access is allowed",
    "gmail.imap_access",
    flag("enableImapAccess", false, true),
    false,
  ),
  policy(
    "gmail.auto_forwarding",
    "Users may forward incoming mail automatically",
    "gmail.auto_forwarding",
    flag("enableAutoForwarding", false, true),
    true,
  ),
  policy(
    "gmail.per_user_outbound_gateway",
    "Users may send through external SMTP servers",
    "gmail.per_user_outbound_gateway",
    flag("allowUsersToUseExternalSmtpServers", false, false),
    false,
  ),
  policy(
    "gmail.enhanced_pre_delivery_scanning",
    "Enhanced pre-delivery message scanning",
    "gmail.enhanced_pre_delivery_message_scanning",
    flag("enableImprovedSuspiciousContentDetection", true, true),
    true,
  ),
  policy(
    "gmail.encrypted_attachment_protection",
    "Protection against encrypted attachments from untrusted senders",
    "gmail.email_attachment_safety",
    protection("enableEncryptedAttachmentProtection", "encryptedAttachmentProtectionConsequence", true),
    "ON",
  ),
  policy(
    "gmail.script_attachment_protection",
    "Protection against attachments with scripts from untrusted senders",
    "gmail.email_attachment_safety",
    protection("enableAttachmentWithScriptsProtection", "scriptAttachmentProtectionConsequence", true),
    "ON",
  ),
  policy(
    "gmail.anomalous_attachment_protection",
    "Protection against anomalous attachment types",
    "gmail.email_attachment_safety",
    protection("enableAnomalousAttachmentProtection", "anomalousAttachmentProtectionConsequence", false),
    "OFF",
  ),
  policy(
    "gmail.shortener_scanning",
    "Links behind shortened URLs are identified",
    "gmail.links_and_external_images",
    flag("enableShortenerScanning", true, true),
    true,
  ),
  policy(
    "gmail.external_image_scanning",
    "Linked images are scanned",
    "gmail.links_and_external_images",
    flag("enableExternalImageScanning", true, true),
    true,
  ),
  policy(
    "gmail.untrusted_link_warnings",
    "A warning is shown for any click on links to untrusted domains",
    "gmail.links_and_external_images",
    flag("enableAggressiveWarningsOnUntrustedLinks", true, false),
    false,
  ),
  policy(
    "gmail.domain_spoofing_protection",
    "Protection against domain spoofing based on similar domain names",
    "gmail.spoofing_and_authentication",
    protection("detectDomainNameSpoofing", "domainSpoofingConsequence", true),
    "ON",
  ),
  policy(
    "gmail.employee_name_spoofing_protection",
    "Protection against spoofing of employee names",
    "gmail.spoofing_and_authentication",
    protection("detectEmployeeNameSpoofing", "employeeNameSpoofingConsequence", true),
    "ON",
  ),
  policy(
    "gmail.inbound_domain_spoofing_protection",
    "Protection against inbound emails spoofing your domain",
    "gmail.spoofing_and_authentication",
    protection("detectDomainSpoofingFromUnauthenticatedSenders", "inboundDomainSpoofingConsequence", true),
    "ON",
  ),
  policy(
    "gmail.unauthenticated_email_protection",
    "Protection against any unauthenticated emails",
    "gmail.spoofing_and_authentication",
    protection("detectUnauthenticatedEmails", "unauthenticatedEmailConsequence", false),
    "ON",
  ),
  policy(
    "gmail.groups_spoofing_protection",
    "Groups are protected from inbound emails spoofing your domain",
    "gmail.spoofing_and_authentication",
    protection("detectGroupsSpoofing", "groupsSpoofingConsequence", false),
    "OFF",
  ),
  // Calendar
  policy(
    "calendar.primary_external_sharing",
    "Most a primary calendar may share outside the organization",
    "calendar.primary_calendar_max_allowed_external_sharing",
    choice(
      "maxAllowedExternalSharing",
      [
        "EXTERNAL_FREE_BUSY_ONLY",
        "EXTERNAL_ALL_INFO_READ_ONLY",
        "EXTERNAL_ALL_INFO_READ_WRITE",
        "EXTERNAL_ALL_INFO_READ_WRITE_MANAGE",
      ],
      "EXTERNAL_FREE_BUSY_ONLY",
    ),
    "EXTERNAL_ALL_INFO_READ_ONLY",
  ),
  policy(
    "calendar.external_invitation_warning",
    "Users are warned when inviting guests outside the organization",
    "calendar.external_invitations",
    flag("warnOnInvite", true, true),
    true,
  ),
  // Groups for Business
  policy(
    "groups.external_access",
    "Who outside the organization may access groups",
    "groups_for_business.groups_sharing",
    choice("collaborationCapability", ["DOMAIN_USERS_ONLY"], "DOMAIN_USERS_ONLY"),
    "DOMAIN_USERS_ONLY",
  ),
  policy(
    "groups.creation",
    "Who may create groups",
    "groups_for_business.groups_sharing",
    choice(
      "createGroupsAccessLevel",
      ["ADMIN_ONLY", "USERS_IN_DOMAIN", "ANYONE_CAN_CREATE"],
      "USERS_IN_DOMAIN",
    ),
    "USERS_IN_DOMAIN",
  ),
  policy(
    "groups.owners_allow_external_members",
    "Group owners may allow members from outside the organization",
    "groups_for_business.groups_sharing",
    flag("ownersCanAllowExternalMembers", false, false),
    false,
  ),
  policy(
    "groups.owners_allow_public_mail",
    "Group owners may allow incoming email from outside the organization",
    "groups_for_business.groups_sharing",
    flag("ownersCanAllowIncomingMailFromPublic", false, true),
    true,
  ),
  // Chat
  policy(
    "chat.external_chat",
    "Chat with people outside the organization",
    "chat.external_chat_restriction",
    externalChat,
    "TRUSTED_DOMAINS",
  ),
  policy(
    "chat.external_file_sharing",
    "Files that may be shared in Chat with people outside the organization",
    "chat.chat_file_sharing",
    choice("externalFileSharing", ["NO_FILES", "IMAGES_ONLY", "ALL_FILES"], "ALL_FILES"),
    "NO_FILES",
  ),
  policy(
    "chat.internal_file_sharing",
    "Files that may be shared in Chat inside the organization",
    "chat.chat_file_sharing",
    choice("internalFileSharing", ["NO_FILES", "IMAGES_ONLY", "ALL_FILES"], "ALL_FILES"),
    "ALL_FILES",
  ),
  policy(
    "chat.external_spaces",
    "Spaces with people outside the organization",
    "chat.chat_external_spaces",
    {
      field: "enabled,domainAllowlistMode",
      googleDefault: "ANY",
      read: (v) => {
        if (asBoolean(v.enabled) === false) return "OFF";
        if (v.enabled === undefined && v.domainAllowlistMode === undefined) return undefined;
        return v.domainAllowlistMode === "TRUSTED_DOMAINS" ? "TRUSTED_DOMAINS" : "ANY";
      },
      weaker: lessSecureOf(["OFF", "TRUSTED_DOMAINS", "ANY"]),
    },
    "TRUSTED_DOMAINS",
  ),
  policy(
    "chat.apps_allowed",
    "Users may install Chat apps",
    "chat.chat_apps_access",
    flag("enableApps", false, false),
    true,
  ),
  policy(
    "chat.incoming_webhooks_allowed",
    "Users may add and use incoming webhooks",
    "chat.chat_apps_access",
    flag("enableWebhooks", false, false),
    true,
  ),
  policy(
    "calendar.secondary_external_sharing",
    "Most a secondary calendar may share outside the organization",
    "calendar.secondary_calendar_max_allowed_external_sharing",
    choice(
      "maxAllowedExternalSharing",
      [
        "EXTERNAL_FREE_BUSY_ONLY",
        "EXTERNAL_ALL_INFO_READ_ONLY",
        "EXTERNAL_ALL_INFO_READ_WRITE",
        "EXTERNAL_ALL_INFO_READ_WRITE_MANAGE",
      ],
      "EXTERNAL_ALL_INFO_READ_ONLY",
    ),
    "EXTERNAL_FREE_BUSY_ONLY",
  ),
  policy(
    "groups.view_conversations_default",
    "Who may view a new group's conversations by default",
    "groups_for_business.groups_sharing",
    choice("viewTopicsDefaultAccessLevel", ["GROUP_MANAGERS", "GROUP_MEMBERS"], "DOMAIN_USERS"),
    "DOMAIN_USERS",
  ),
  policy(
    "sites.service_status",
    "Google Sites service status",
    "sites.service_status",
    choice("serviceState", ["DISABLED", "ENABLED"], "ENABLED"),
    "ENABLED",
  ),
  policy(
    "groups.consumer_service_status",
    "Access to Google Groups outside Groups for Business (external Google Groups)",
    "groups.service_status",
    choice("serviceState", ["DISABLED", "ENABLED"], "ENABLED"),
    "DISABLED",
  ),
  policy(
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
  ),
  // Marketplace
  policy(
    "marketplace.apps_access",
    "Which Google Workspace Marketplace apps users may install",
    "workspace_marketplace.apps_access_options",
    choice("accessLevel", ["ALLOW_NONE", "ALLOW_LISTED_APPS", "ALLOW_ALL"], "ALLOW_ALL"),
    "ALLOW_LISTED_APPS",
  ),
  // Rules: system-defined alerts (Google's default state as the Admin console ships them)
  alertRule("rules.alert_password_changed", "User's password changed", false, false),
  alertRule("rules.alert_government_backed_attacks", "Government-backed attacks", true, true),
  alertRule(
    "rules.alert_suspicious_activity_suspension",
    "User suspended due to suspicious activity",
    true,
    true,
  ),
  alertRule("rules.alert_admin_privilege_granted", "User granted Admin privilege", false, false),
  alertRule("rules.alert_suspicious_programmatic_login", "Suspicious programmatic login", true, true),
  alertRule("rules.alert_suspicious_login", "Suspicious login", true, true),
  alertRule("rules.alert_leaked_password", "Leaked password", true, true),
  alertRule("rules.alert_employee_spoofing", "Gmail potential employee spoofing", true, true),
];

const policySource = (d: TPolicySetting) => `GET /v1/policies settings/${d.setting} (${d.field})`;

export const GOOGLE_SETTINGS: readonly TGoogleSettingSpec[] = DEFS.map((d) => ({
  key: d.key,
  title: d.title,
  source: d.kind === "policy" ? policySource(d) : d.source,
  demo: d.demo,
}));

/** The scopes reading the settings needs (merged into the connector's access list). */
export const GOOGLE_SETTINGS_ACCESS: readonly TAccessRequirement[] = [
  {
    feature:
      "Tenant settings: security, API controls, Drive, Gmail, Calendar, Groups, Chat, Sites, Marketplace and alert-rule policies",
    permission: POLICIES_SCOPE,
    impact:
      "The Cloud Identity Policy API is not read (the delegated subject must be a super admin and the " +
      "Cloud Identity API enabled); every CIS check on those settings is skipped.",
  },
  {
    feature: "Tenant settings: admin accounts",
    permission: DIRECTORY_USERS_SCOPE,
    impact: "The super admin count and admin 2-Step Verification checks are skipped.",
  },
  {
    feature: "Tenant settings: admin role assignments",
    permission: ROLES_SCOPE,
    impact: "The check that super admin accounts hold no other admin role is skipped.",
  },
  {
    feature: "Tenant settings: org units of admin accounts",
    permission: ORG_UNITS_SCOPE,
    impact:
      "The admin security-key check is skipped, and an org unit's override cannot be told from the " +
      "root's policy when the root sets nothing.",
  },
];

export type TGoogleSettingsClients = {
  /** Admin SDK (Directory, Reports): https://admin.googleapis.com */
  admin: TJsonClient;
  /** Cloud Identity Policy API: https://cloudidentity.googleapis.com */
  cloudIdentity: TJsonClient;
};

/** A Cloud Identity policy as `policies.list` returns it. */
export type TGPolicy = {
  name?: string;
  customer?: string;
  policyQuery?: { query?: string; orgUnit?: string; group?: string; sortOrder?: number };
  setting?: { type?: string; value?: TPolicyValue };
  type?: "POLICY_TYPE_UNSPECIFIED" | "SYSTEM" | "ADMIN";
};
type TGPolicyList = { policies?: TGPolicy[]; nextPageToken?: string };
type TGUserList = { users?: TGAdminUser[]; nextPageToken?: string };
export type TGOrgUnit = { orgUnitId?: string; orgUnitPath?: string; parentOrgUnitId?: string; name?: string };
type TGOrgUnitList = { organizationUnits?: TGOrgUnit[] };

export type TGRole = {
  roleId?: string;
  roleName?: string;
  isSuperAdminRole?: boolean;
  isSystemRole?: boolean;
};
export type TGRoleAssignment = {
  roleAssignmentId?: string;
  roleId?: string;
  assignedTo?: string;
  assigneeType?: "user" | "group";
  scopeType?: string;
  orgUnitId?: string;
};
type TRoleData = { superAdminRoleIds: ReadonlySet<string>; assignments: readonly TGRoleAssignment[] };

type TRead<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Why a read failed, naming the scope the delegation lacks when Google refused it. */
function reasonOf(error: unknown, scope: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/\(HTTP 40[13]\)/.test(message))
    return `${scope} not granted to the delegation, or the API is not enabled (${message})`;
  return message;
}

async function attempt<T>(scope: string, read: () => Promise<T>): Promise<TRead<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    return { ok: false, reason: reasonOf(error, scope) };
  }
}

/**
 * Policy API filter for one application's settings, anchored like the reference's example
 * (`setting.type.matches('^settings/gmail\\..*$')`); the dot is a character class so the CEL
 * string literal needs no escape.
 */
export const policyFilter = (namespace: string) => `setting.type.matches('^settings/${namespace}[.].*$')`;

async function readNamespace(client: TJsonClient, namespace: string): Promise<TGPolicy[]> {
  const policies: TGPolicy[] = [];
  const query = { filter: policyFilter(namespace), pageSize: 100 };
  for await (const page of pagesByToken<TGPolicyList>(client, "/v1/policies", query))
    policies.push(...(page.policies ?? []));
  return policies;
}

async function readAdmins(admin: TJsonClient): Promise<TGAdminUser[]> {
  const byId = new Map<string, TGAdminUser>();
  for (const [query, isOne] of [
    ["isAdmin=true", (u: TGAdminUser) => u.isAdmin === true],
    ["isDelegatedAdmin=true", (u: TGAdminUser) => u.isDelegatedAdmin === true],
  ] as const) {
    const params = { customer: "my_customer", query, maxResults: 500, projection: "basic" };
    for await (const page of pagesByToken<TGUserList>(admin, "/admin/directory/v1/users", params)) {
      // The query already narrows the list; the flag is checked again rather than trusted.
      for (const user of page.users ?? [])
        if (isOne(user)) byId.set(user.id ?? user.primaryEmail ?? "", user);
    }
  }
  return [...byId.values()];
}

async function readOrgUnits(admin: TJsonClient): Promise<TGOrgUnit[]> {
  const list = await admin.get<TGOrgUnitList>("/admin/directory/v1/customer/my_customer/orgunits", {
    orgUnitPath: "/",
    type: "allIncludingParent",
  });
  return list.organizationUnits ?? [];
}

async function readRoles(admin: TJsonClient): Promise<TRoleData> {
  const base = "/admin/directory/v1/customer/my_customer";
  const superAdminRoleIds = new Set<string>();
  type TPage<T> = { items?: T[]; nextPageToken?: string };
  for await (const page of pagesByToken<TPage<TGRole>>(admin, `${base}/roles`, { maxResults: 100 }))
    for (const role of page.items ?? [])
      if (role.isSuperAdminRole && role.roleId) superAdminRoleIds.add(role.roleId);
  const assignments: TGRoleAssignment[] = [];
  const query = { maxResults: 200 };
  for await (const page of pagesByToken<TPage<TGRoleAssignment>>(admin, `${base}/roleassignments`, query))
    assignments.push(...(page.items ?? []));
  return { superAdminRoleIds, assignments };
}

/** Whether a policy sets this setting (its type, and for alert rules its rule). */
const appliesTo = (def: TPolicySetting, p: TGPolicy) =>
  p.setting?.type === `settings/${def.setting}` && (!def.where || def.where(p.setting.value ?? {}));

const ouRef = (orgUnitId: string | undefined) => `orgUnits/${(orgUnitId ?? "").replace(/^id:/, "")}`;

function parentPath(path: string): string | null {
  if (path === "/" || path === "") return null;
  const cut = path.replace(/\/$/, "").lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}

/**
 * The tenant's value of one policy setting: the least secure of the root org unit's value and
 * every org-unit or group override's, so a check fails when any org unit's effective value fails.
 * When the root sets nothing, Google's default applies there and is counted too.
 */
function tenantValue(
  def: TPolicySetting,
  policies: readonly TGPolicy[],
  rootId: string | null,
): TSettingValue {
  const mine = policies.filter((p) => appliesTo(def, p));
  const valueOf = (p: TGPolicy) => def.read(p.setting?.value ?? {}) ?? def.googleDefault;
  const values = mine.map(valueOf);
  const rootSet = def.customerLevel
    ? mine.length > 0
    : rootId
      ? mine.some((p) => !p.policyQuery?.group && p.policyQuery?.orgUnit === ouRef(rootId))
      : mine.length > 0;
  if (!rootSet) values.push(def.googleDefault);
  return values.reduce((a, b) => def.weaker(a, b));
}

/** The value where admins live: each admin's org unit's nearest policy, and every group policy. */
function adminsValue(
  def: TPolicySetting,
  policies: readonly TGPolicy[],
  orgUnits: readonly TGOrgUnit[],
  admins: readonly TGAdminUser[],
): TSettingValue {
  const mine = policies.filter((p) => appliesTo(def, p));
  const idByPath = new Map(orgUnits.map((o) => [o.orgUnitPath ?? "", o.orgUnitId]));
  const valueOf = (p: TGPolicy) => def.read(p.setting?.value ?? {}) ?? def.googleDefault;
  const effective = (path: string): TSettingValue => {
    for (let at: string | null = path || "/"; at !== null; at = parentPath(at)) {
      const id = idByPath.get(at);
      const found = id
        ? mine.find((p) => !p.policyQuery?.group && p.policyQuery?.orgUnit === ouRef(id))
        : undefined;
      if (found) return valueOf(found);
    }
    return def.googleDefault;
  };
  const paths = new Set(admins.filter(active).map((u) => u.orgUnitPath || "/"));
  if (paths.size === 0) paths.add("/");
  // Group membership is not read, so a group policy counts as reaching an admin.
  const values = [...[...paths].map(effective), ...mine.filter((p) => p.policyQuery?.group).map(valueOf)];
  return values.reduce((a, b) => def.weaker(a, b));
}

/** Every setting of GOOGLE_SETTINGS, read or marked unavailable (never throws for one setting). */
export async function readGoogleSettings(clients: TGoogleSettingsClients): Promise<TTenantSetting[]> {
  const { admin, cloudIdentity } = clients;
  const namespaces = [
    ...new Set(DEFS.flatMap((d) => (d.kind === "policy" ? [d.setting.split(".")[0] ?? ""] : []))),
  ];
  const [adminsRead, orgUnitsRead, rolesRead, ...namespaceReads] = await Promise.all([
    attempt(DIRECTORY_USERS_SCOPE, () => readAdmins(admin)),
    attempt(ORG_UNITS_SCOPE, () => readOrgUnits(admin)),
    attempt(ROLES_SCOPE, () => readRoles(admin)),
    ...namespaces.map((ns) => attempt(POLICIES_SCOPE, () => readNamespace(cloudIdentity, ns))),
  ]);
  const byNamespace = new Map(namespaces.map((ns, i) => [ns, namespaceReads[i]]));
  const rootId = orgUnitsRead?.ok
    ? (orgUnitsRead.value.find((o) => o.orgUnitPath === "/")?.orgUnitId ?? null)
    : null;

  return DEFS.map((def): TTenantSetting => {
    if (def.kind === "roles") {
      if (!adminsRead?.ok) return { key: def.key, unavailable: adminsRead?.reason ?? "not read" };
      if (!rolesRead?.ok) return { key: def.key, unavailable: rolesRead?.reason ?? "not read" };
      return { key: def.key, value: def.compute(adminsRead.value, rolesRead.value), source: def.source };
    }
    if (def.kind === "directory") {
      if (!adminsRead?.ok) return { key: def.key, unavailable: adminsRead?.reason ?? "not read" };
      return { key: def.key, value: def.compute(adminsRead.value), source: def.source };
    }
    const read = byNamespace.get(def.setting.split(".")[0] ?? "");
    if (!read?.ok) return { key: def.key, unavailable: read?.reason ?? "not read" };
    if (def.adminsOnly) {
      if (!adminsRead?.ok) return { key: def.key, unavailable: adminsRead?.reason ?? "not read" };
      if (!orgUnitsRead?.ok) return { key: def.key, unavailable: orgUnitsRead?.reason ?? "not read" };
      return {
        key: def.key,
        value: adminsValue(def, read.value, orgUnitsRead.value, adminsRead.value),
        source: `${policySource(def)}: effective policy of the org units holding admin accounts`,
      };
    }
    const mine = read.value.filter((p) => appliesTo(def, p));
    const overrides = def.customerLevel
      ? 0
      : mine.filter(
          (p) => p.policyQuery?.group || (rootId !== null && p.policyQuery?.orgUnit !== ouRef(rootId)),
        ).length;
    const how =
      mine.length === 0
        ? ": no policy set, Google's default"
        : overrides > 0
          ? `: least secure of the root and ${overrides} org-unit or group override(s)`
          : "";
    return { key: def.key, value: tenantValue(def, read.value, rootId), source: policySource(def) + how };
  });
}
