// Calendar, Groups for Business, Chat and Sites (catalog.ts holds the order they are read in).
import {
  asBoolean,
  choice,
  flag,
  lessSecureOf,
  policy,
  type TPolicyShape,
  type TPolicySetting,
  type TSettingDef,
} from "./shapes";

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

// Calendar
export const CALENDAR_SETTINGS: readonly TSettingDef[] = [
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
];

// Groups for Business
export const GROUPS_SETTINGS: readonly TSettingDef[] = [
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
];

// Chat
export const CHAT_SETTINGS: readonly TSettingDef[] = [
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
];

export const CALENDAR_SECONDARY_SHARING: TPolicySetting = policy(
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
);

export const GROUPS_VIEW_CONVERSATIONS: TPolicySetting = policy(
  "groups.view_conversations_default",
  "Who may view a new group's conversations by default",
  "groups_for_business.groups_sharing",
  choice("viewTopicsDefaultAccessLevel", ["GROUP_MANAGERS", "GROUP_MEMBERS"], "DOMAIN_USERS"),
  "DOMAIN_USERS",
);

export const SITES_SERVICE_STATUS: TPolicySetting = policy(
  "sites.service_status",
  "Google Sites service status",
  "sites.service_status",
  choice("serviceState", ["DISABLED", "ENABLED"], "ENABLED"),
  "ENABLED",
);

export const GROUPS_CONSUMER_SERVICE: TPolicySetting = policy(
  "groups.consumer_service_status",
  "Access to Google Groups outside Groups for Business (external Google Groups)",
  "groups.service_status",
  choice("serviceState", ["DISABLED", "ENABLED"], "ENABLED"),
  "DISABLED",
);
