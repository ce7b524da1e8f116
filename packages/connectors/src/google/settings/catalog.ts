import type { TAccessRequirement, TSettingValue } from "../../types";
import { ALERT_RULE_SETTINGS } from "./alerts";
import { DIRECTORY_USERS_SCOPE, ORG_UNITS_SCOPE, POLICIES_SCOPE, ROLES_SCOPE } from "./api";
import {
  CALENDAR_SECONDARY_SHARING,
  CALENDAR_SETTINGS,
  CHAT_SETTINGS,
  GROUPS_CONSUMER_SERVICE,
  GROUPS_SETTINGS,
  GROUPS_VIEW_CONVERSATIONS,
  SITES_SERVICE_STATUS,
} from "./collaboration";
import { DIRECTORY_SETTINGS } from "./directory";
import { DLP_DRIVE_RULE, DRIVE_SETTINGS } from "./drive";
import { GMAIL_SETTINGS } from "./gmail";
import { API_CONTROL_SETTINGS, AUTHENTICATION_SETTINGS, MARKETPLACE_SETTINGS } from "./security";
import type { TPolicySetting, TSettingDef } from "./shapes";

/**
 * One Google Workspace tenant setting the connector reads: its key (what the checks of
 * `@posture/benchmarks` name), where it comes from, and the value the demo tenant has.
 */
export type TGoogleSettingSpec = { key: string; title: string; source: string; demo: TSettingValue };

/**
 * Every setting, in the order they are read and listed (a scan's coverage gaps name unread ones in
 * this order, and the demo tenant's settings follow it): area by area, then five added after Chat's,
 * then Marketplace and the alert rules.
 */
export const DEFS: readonly TSettingDef[] = [
  ...DIRECTORY_SETTINGS,
  ...AUTHENTICATION_SETTINGS,
  ...API_CONTROL_SETTINGS,
  ...DRIVE_SETTINGS,
  ...GMAIL_SETTINGS,
  ...CALENDAR_SETTINGS,
  ...GROUPS_SETTINGS,
  ...CHAT_SETTINGS,
  CALENDAR_SECONDARY_SHARING,
  GROUPS_VIEW_CONVERSATIONS,
  SITES_SERVICE_STATUS,
  GROUPS_CONSUMER_SERVICE,
  DLP_DRIVE_RULE,
  ...MARKETPLACE_SETTINGS,
  ...ALERT_RULE_SETTINGS,
];

export const policySource = (d: TPolicySetting) => `GET /v1/policies settings/${d.setting} (${d.field})`;

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
