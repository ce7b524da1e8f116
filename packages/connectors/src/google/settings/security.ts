import { atLeast, choice, durationAtMost, flag, policy, type TPolicyShape, type TSettingDef } from "./shapes";

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

const SIGN_IN_FACTORS = [
  "PASSKEY_ONLY",
  "PASSKEY_PLUS_IP_BOUND_SECURITY_CODE",
  "PASSKEY_PLUS_SECURITY_CODE",
  "NO_TELEPHONY",
  "ALL",
];

// Security: authentication
export const AUTHENTICATION_SETTINGS: readonly TSettingDef[] = [
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
];

// API controls
export const API_CONTROL_SETTINGS: readonly TSettingDef[] = [
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
];

// Marketplace
export const MARKETPLACE_SETTINGS: readonly TSettingDef[] = [
  policy(
    "marketplace.apps_access",
    "Which Google Workspace Marketplace apps users may install",
    "workspace_marketplace.apps_access_options",
    choice("accessLevel", ["ALLOW_NONE", "ALLOW_LISTED_APPS", "ALLOW_ALL"], "ALLOW_ALL"),
    "ALLOW_LISTED_APPS",
  ),
];
