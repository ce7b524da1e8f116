import type { TFindingCategory } from "./types";

export const RULE_IDS = {
  publicLink: "public_link",
  externalShare: "external_share",
  sharedDriveExternalMembers: "shared_drive_external_members",
  adminWithoutMfa: "admin_without_mfa",
  userWithoutMfa: "user_without_mfa",
  dormantAccount: "dormant_account",
  excessAdmins: "excess_admins",
  appBroadScopesUnverified: "app_broad_scopes_unverified",
  appBroadScopes: "app_broad_scopes",
  appUnverifiedPublisher: "app_unverified_publisher",
  // Internal exposure (issue 30, CONTRACT): an organization-wide link, a grant to everyone in the
  // tenant, a grant to a group of at least the configured size.
  orgWideLink: "org_wide_link",
  orgWideGrant: "org_wide_grant",
  broadGroupGrant: "broad_group_grant",
  // GitHub (issue 31): a repository's deploy key that can push.
  deployKeyWrite: "deploy_key_write",
} as const;

export type TRuleId = (typeof RULE_IDS)[keyof typeof RULE_IDS];

export const RULE_CATEGORY: Record<TRuleId, TFindingCategory> = {
  public_link: "public_exposure",
  external_share: "external_sharing",
  shared_drive_external_members: "shared_drive_exposure",
  admin_without_mfa: "identity",
  user_without_mfa: "identity",
  dormant_account: "identity",
  excess_admins: "identity",
  app_broad_scopes_unverified: "third_party_apps",
  app_broad_scopes: "third_party_apps",
  app_unverified_publisher: "third_party_apps",
  org_wide_link: "internal_exposure",
  org_wide_grant: "internal_exposure",
  broad_group_grant: "internal_exposure",
  deploy_key_write: "third_party_apps",
};

/** Fixed by one action on one resource (remove the link, remove the outside grants). */
export const QUICK_WIN_RULES: ReadonlySet<string> = new Set([RULE_IDS.publicLink, RULE_IDS.externalShare]);

/**
 * The groups a quick win acts on (one action over every finding of the group): all public links,
 * outside shares split by whether an untrusted domain is reached, and unverified apps (revoking
 * every user's grant). Tenant-configuration findings are quick wins one by one (change_setting).
 */
export const QUICK_WIN_GROUPS = [
  { key: "public_links", action: "remove_public_link", ruleId: RULE_IDS.publicLink, trustedOnly: null },
  {
    key: "untrusted_shares",
    action: "remove_external_access",
    ruleId: RULE_IDS.externalShare,
    trustedOnly: false,
  },
  {
    key: "trusted_shares",
    action: "remove_external_access",
    ruleId: RULE_IDS.externalShare,
    trustedOnly: true,
  },
  {
    key: "unverified_broad_apps",
    action: "revoke_oauth_grant",
    ruleId: RULE_IDS.appBroadScopesUnverified,
    trustedOnly: null,
  },
  {
    key: "unverified_apps",
    action: "revoke_oauth_grant",
    ruleId: RULE_IDS.appUnverifiedPublisher,
    trustedOnly: null,
  },
  // Internal exposure (issue 30, CONTRACT): every organization-wide link, every grant to everyone
  // in the tenant, every broad group's grant, each removed at the source.
  { key: "org_wide_links", action: "remove_org_wide_link", ruleId: RULE_IDS.orgWideLink, trustedOnly: null },
  {
    key: "everyone_grants",
    action: "remove_everyone_grant",
    ruleId: RULE_IDS.orgWideGrant,
    trustedOnly: null,
  },
  {
    key: "broad_group_grants",
    action: "remove_group_grant",
    ruleId: RULE_IDS.broadGroupGrant,
    trustedOnly: null,
  },
] as const;
export type TQuickWinGroup = (typeof QUICK_WIN_GROUPS)[number];

/** A quick win names at most this many findings (the worst first); `findingCount` says how many the group holds. */
export const QUICK_WIN_GROUP_CAP = 500;
