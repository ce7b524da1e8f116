import type { TSettingValue } from "@posture/connectors";
import type { TBenchmarkRef, TCheckControls, TTenantCheck } from "./types";

// CIS Microsoft 365 Foundations Benchmark v4.0.0, the recommendations that Microsoft Graph v1.0
// exposes to an application (Entra ID policies, Conditional Access, authentication methods,
// SharePoint tenant settings). Recommendation ids as the benchmark numbers them; the settings
// are those of `@posture/connectors` `microsoft/settings/`.

const BENCHMARK = "CIS Microsoft 365 Foundations";
const VERSION = "4.0.0";

const cis = (id: string): TBenchmarkRef => ({ name: BENCHMARK, version: VERSION, id });

const isTrue = (v: TSettingValue | undefined) => v === true;
const isFalse = (v: TSettingValue | undefined) => v === false;
const oneOf = (v: TSettingValue | undefined, allowed: readonly string[]) =>
  typeof v === "string" && allowed.includes(v);

// Control sets, by what a check evidences; ids as in packages/compliance/src/catalogs.
const MFA: TCheckControls = {
  soc2: ["CC6.1"],
  iso27001: ["A.5.17", "A.8.5"],
  gdpr: ["Art. 32"],
  hipaa: ["164.312(d)"],
  nist_csf: ["PR.AA-03"],
};
const PRIVILEGED: TCheckControls = {
  soc2: ["CC6.1", "CC6.3"],
  iso27001: ["A.8.2", "A.5.15"],
  gdpr: ["Art. 32"],
  hipaa: ["164.308(a)(4)(ii)(B)", "164.312(a)(1)"],
  nist_csf: ["PR.AA-05"],
};
const ADMIN_MFA: TCheckControls = {
  soc2: ["CC6.1"],
  iso27001: ["A.8.2", "A.8.5"],
  gdpr: ["Art. 32"],
  hipaa: ["164.312(d)", "164.312(a)(1)"],
  nist_csf: ["PR.AA-03", "PR.AA-05"],
};
const SESSION: TCheckControls = {
  soc2: ["CC6.1"],
  iso27001: ["A.8.2", "A.8.5"],
  gdpr: ["Art. 32"],
  hipaa: ["164.312(a)(2)(iii)"],
  nist_csf: ["PR.AA-03"],
};
const RISK: TCheckControls = {
  soc2: ["CC6.6", "CC7.2"],
  iso27001: ["A.8.5", "A.8.16"],
  gdpr: ["Art. 32"],
  hipaa: ["164.308(a)(5)(ii)(C)", "164.312(d)"],
  nist_csf: ["PR.AA-03", "DE.CM-03"],
};
const THIRD_PARTY_APPS: TCheckControls = {
  soc2: ["CC6.1", "CC9.2"],
  iso27001: ["A.5.19", "A.5.23"],
  gdpr: ["Art. 28", "Art. 32"],
  hipaa: ["164.308(b)(1)"],
  nist_csf: ["GV.SC-07"],
};
const GUESTS: TCheckControls = {
  soc2: ["CC6.2"],
  iso27001: ["A.5.16", "A.5.18"],
  gdpr: ["Art. 32"],
  hipaa: ["164.308(a)(4)(ii)(C)"],
  nist_csf: ["PR.AA-01", "PR.AA-05"],
};
const SHARING: TCheckControls = {
  soc2: ["CC6.7", "C1.1"],
  iso27001: ["A.5.14", "A.8.12"],
  gdpr: ["Art. 5(1)(f)", "Art. 25"],
  hipaa: ["164.312(e)(1)", "164.308(a)(4)(i)"],
  nist_csf: ["PR.DS-01"],
};
const BASELINE: TCheckControls = {
  soc2: ["CC7.1"],
  iso27001: ["A.5.23"],
  gdpr: ["Art. 32"],
  hipaa: ["164.308(a)(1)(ii)(B)"],
  nist_csf: ["PR.PS-01"],
};
const AUTHENTICATION_METHODS: TCheckControls = {
  soc2: ["CC6.1"],
  iso27001: ["A.5.17", "A.8.5"],
  gdpr: ["Art. 32"],
  hipaa: ["164.312(d)", "164.308(a)(5)(ii)(D)"],
  nist_csf: ["PR.AA-01", "PR.AA-03"],
};
const DEVICES: TCheckControls = {
  soc2: ["CC6.1", "CC6.8"],
  iso27001: ["A.5.15", "A.8.5"],
  gdpr: ["Art. 32"],
  hipaa: ["164.312(a)(1)"],
  nist_csf: ["PR.AA-03", "PR.PS-01"],
};

const m365 = (check: Omit<TTenantCheck, "source">): TTenantCheck => ({ ...check, source: "microsoft_365" });

/** CIS Microsoft 365 Foundations Benchmark checks, over the settings of `microsoft/settings/`. */
export const MICROSOFT_365_CHECKS: readonly TTenantCheck[] = [
  // 1 Microsoft 365 admin center
  m365({
    id: "m365_global_admin_count",
    benchmark: cis("1.1.3"),
    title: "Between two and four Global Administrators are designated",
    severity: "MEDIUM",
    settings: ["roles.global_admin_count"],
    expected: "2, 3 or 4 users hold the Global Administrator role",
    test: (v) => {
      const n = v["roles.global_admin_count"];
      return typeof n === "number" && n >= 2 && n <= 4;
    },
    fix: "Microsoft 365 admin center > Users > Active users > Manage roles: keep Global Administrator on two to four accounts",
    controls: PRIVILEGED,
  }),
  m365({
    id: "m365_password_never_expire",
    benchmark: cis("1.3.1"),
    title: "The password expiration policy is set to never expire",
    severity: "LOW",
    settings: ["domains.passwords_never_expire"],
    expected: "Passwords never expire on every verified managed domain (MFA replaces periodic rotation)",
    test: (v) => isTrue(v["domains.passwords_never_expire"]),
    fix: "Microsoft 365 admin center > Settings > Org settings > Security & privacy > Password expiration policy: Set passwords to never expire (recommended)",
    controls: {
      soc2: ["CC6.1"],
      iso27001: ["A.5.17"],
      gdpr: ["Art. 32"],
      hipaa: ["164.308(a)(5)(ii)(D)"],
      nist_csf: ["PR.AA-01"],
    },
  }),
  // 5.1 Entra ID: identity
  m365({
    id: "m365_security_defaults_disabled",
    benchmark: cis("5.1.1.1"),
    title: "Security defaults are disabled in favour of Conditional Access policies",
    severity: "LOW",
    settings: ["security_defaults.enabled"],
    expected:
      "Security defaults disabled (Conditional Access enforces MFA and blocks legacy authentication instead)",
    test: (v) => isFalse(v["security_defaults.enabled"]),
    fix: "Microsoft Entra admin center > Identity > Overview > Properties > Manage security defaults: Disabled (after the Conditional Access policies are in place)",
    controls: BASELINE,
  }),
  m365({
    id: "m365_users_cannot_register_apps",
    benchmark: cis("5.1.2.2"),
    title: "Third-party integrated applications are not allowed",
    severity: "MEDIUM",
    settings: ["authorization.users_can_register_apps"],
    expected: "Users can register applications: No",
    test: (v) => isFalse(v["authorization.users_can_register_apps"]),
    fix: "Microsoft Entra admin center > Identity > Users > User settings: Users can register applications = No",
    controls: THIRD_PARTY_APPS,
  }),
  m365({
    id: "m365_users_cannot_create_tenants",
    benchmark: cis("5.1.2.3"),
    title: "Restrict non-admin users from creating tenants is set to Yes",
    severity: "LOW",
    settings: ["authorization.users_can_create_tenants"],
    expected: "Non-admin users cannot create tenants",
    test: (v) => isFalse(v["authorization.users_can_create_tenants"]),
    fix: "Microsoft Entra admin center > Identity > Users > User settings: Restrict non-admin users from creating tenants = Yes",
    controls: BASELINE,
  }),
  m365({
    id: "m365_user_consent_disabled",
    benchmark: cis("5.1.5.1"),
    title: "User consent to apps accessing company data on their behalf is not allowed",
    severity: "HIGH",
    settings: ["authorization.user_consent"],
    expected: "User consent for applications: Do not allow user consent",
    test: (v) => v["authorization.user_consent"] === "disabled",
    fix: "Microsoft Entra admin center > Identity > Applications > Enterprise applications > Consent and permissions > User consent settings: Do not allow user consent",
    controls: THIRD_PARTY_APPS,
  }),
  m365({
    id: "m365_admin_consent_workflow",
    benchmark: cis("5.1.5.2"),
    title: "The admin consent workflow is enabled",
    severity: "MEDIUM",
    settings: ["admin_consent_request.enabled"],
    expected: "Users can request admin consent to apps they are unable to consent to: Yes",
    test: (v) => isTrue(v["admin_consent_request.enabled"]),
    fix: "Microsoft Entra admin center > Identity > Applications > Enterprise applications > Consent and permissions > Admin consent settings: Users can request admin consent = Yes, with reviewers",
    controls: THIRD_PARTY_APPS,
  }),
  m365({
    id: "m365_guest_access_restricted",
    benchmark: cis("5.1.6.2"),
    title: "Guest user access is restricted",
    severity: "MEDIUM",
    settings: ["authorization.guest_user_role"],
    expected: "Guest users have limited access, or are restricted to their own directory objects",
    test: (v) => oneOf(v["authorization.guest_user_role"], ["limited", "restricted"]),
    fix: "Microsoft Entra admin center > Identity > External Identities > External collaboration settings: Guest user access restrictions = limited or most restrictive",
    controls: GUESTS,
  }),
  m365({
    id: "m365_guest_invites_admins_only",
    benchmark: cis("5.1.6.3"),
    title: "Guest user invitations are limited to the Guest Inviter role",
    severity: "MEDIUM",
    settings: ["authorization.allow_invites_from"],
    expected: "Only users assigned to specific admin roles (or no one) can invite guest users",
    test: (v) => oneOf(v["authorization.allow_invites_from"], ["adminsAndGuestInviters", "none"]),
    fix: "Microsoft Entra admin center > Identity > External Identities > External collaboration settings: Guest invite restrictions = Only users assigned to specific admin roles can invite guest users",
    controls: GUESTS,
  }),
  // 5.2.2 Conditional Access
  m365({
    id: "m365_mfa_admin_roles",
    benchmark: cis("5.2.2.1"),
    title: "Multifactor authentication is enabled for all users in administrative roles",
    severity: "CRITICAL",
    settings: ["ca.mfa_admin_roles"],
    expected:
      "Enabled Conditional Access policies require MFA of every administrative role on all cloud apps",
    test: (v) => isTrue(v["ca.mfa_admin_roles"]),
    fix: "Microsoft Entra admin center > Protection > Conditional Access > New policy: Directory roles (admin roles), All cloud apps, Grant: Require multifactor authentication, On",
    controls: ADMIN_MFA,
  }),
  m365({
    id: "m365_mfa_all_users",
    benchmark: cis("5.2.2.2"),
    title: "Multifactor authentication is enabled for all users",
    severity: "CRITICAL",
    settings: ["ca.mfa_all_users"],
    expected: "An enabled Conditional Access policy requires MFA of all users on all cloud apps",
    test: (v) => isTrue(v["ca.mfa_all_users"]),
    fix: "Microsoft Entra admin center > Protection > Conditional Access > New policy: All users, All cloud apps, Grant: Require multifactor authentication, On",
    controls: MFA,
  }),
  m365({
    id: "m365_legacy_auth_blocked",
    benchmark: cis("5.2.2.3"),
    title: "Conditional Access policies block legacy authentication",
    severity: "HIGH",
    settings: ["ca.block_legacy_auth"],
    expected:
      "An enabled policy blocks Exchange ActiveSync and other clients for all users and all cloud apps",
    test: (v) => isTrue(v["ca.block_legacy_auth"]),
    fix: "Microsoft Entra admin center > Protection > Conditional Access > New policy: All users, All cloud apps, Client apps: Exchange ActiveSync clients and Other clients, Grant: Block access, On",
    controls: MFA,
  }),
  m365({
    id: "m365_admin_sign_in_frequency",
    benchmark: cis("5.2.2.4"),
    title: "Sign-in frequency is enabled and browser sessions are not persistent for administrative users",
    severity: "MEDIUM",
    settings: ["ca.admin_session_controls"],
    expected:
      "Administrative roles: sign-in frequency of 4 hours or less, persistent browser session Never persistent",
    test: (v) => isTrue(v["ca.admin_session_controls"]),
    fix: "Microsoft Entra admin center > Protection > Conditional Access > New policy: Directory roles (admin roles), All cloud apps, Session: Sign-in frequency 4 hours, Persistent browser session Never persistent, On",
    controls: SESSION,
  }),
  m365({
    id: "m365_admin_phishing_resistant_mfa",
    benchmark: cis("5.2.2.5"),
    title: "Phishing-resistant MFA strength is required for administrators",
    severity: "HIGH",
    settings: ["ca.phishing_resistant_mfa_admins"],
    expected: "Administrative roles must satisfy the Phishing-resistant MFA authentication strength",
    test: (v) => isTrue(v["ca.phishing_resistant_mfa_admins"]),
    fix: "Microsoft Entra admin center > Protection > Conditional Access > New policy: Directory roles (admin roles), All cloud apps, Grant: Require authentication strength = Phishing-resistant MFA, On",
    controls: ADMIN_MFA,
  }),
  m365({
    id: "m365_user_risk_policy",
    benchmark: cis("5.2.2.6"),
    title: "Microsoft Entra ID Protection user risk policies are enabled",
    severity: "HIGH",
    settings: ["ca.user_risk_policy"],
    expected: "High user risk requires MFA and a password change (or is blocked) for all users (Entra ID P2)",
    test: (v) => isTrue(v["ca.user_risk_policy"]),
    fix: "Microsoft Entra admin center > Protection > Conditional Access > New policy: All users, All cloud apps, Conditions: User risk High, Grant: Require multifactor authentication and Require password change, On",
    controls: RISK,
  }),
  m365({
    id: "m365_sign_in_risk_policy",
    benchmark: cis("5.2.2.7"),
    title: "Microsoft Entra ID Protection sign-in risk policies are enabled",
    severity: "HIGH",
    settings: ["ca.sign_in_risk_policy"],
    expected: "Medium and high sign-in risk require MFA (or are blocked) for all users (Entra ID P2)",
    test: (v) => isTrue(v["ca.sign_in_risk_policy"]),
    fix: "Microsoft Entra admin center > Protection > Conditional Access > New policy: All users, All cloud apps, Conditions: Sign-in risk High and Medium, Grant: Require multifactor authentication, On",
    controls: RISK,
  }),
  m365({
    id: "m365_admin_portals_restricted",
    benchmark: cis("5.2.2.8"),
    title: "Admin center access is limited to administrative roles",
    severity: "MEDIUM",
    settings: ["ca.admin_portals_restricted"],
    expected: "An enabled policy blocks Microsoft Admin Portals for all users except administrative roles",
    test: (v) => isTrue(v["ca.admin_portals_restricted"]),
    fix: "Microsoft Entra admin center > Protection > Conditional Access > New policy: All users excluding admin directory roles, Target resources: Microsoft Admin Portals, Grant: Block access, On",
    controls: PRIVILEGED,
  }),
  m365({
    id: "m365_managed_device_required",
    benchmark: cis("5.2.2.10"),
    title: "A managed device is required for authentication",
    severity: "MEDIUM",
    settings: ["ca.managed_device_required"],
    expected:
      "An enabled policy for all users and all cloud apps grants access with a compliant or Entra hybrid joined device",
    test: (v) => isTrue(v["ca.managed_device_required"]),
    fix: "Microsoft Entra admin center > Protection > Conditional Access > New policy: All users, All cloud apps, Grant: Require device to be marked as compliant / Require Microsoft Entra hybrid joined device, On",
    controls: DEVICES,
  }),
  // 5.2.3 Authentication methods
  m365({
    id: "m365_authenticator_context",
    benchmark: cis("5.2.3.1"),
    title: "Microsoft Authenticator is configured to protect against MFA fatigue",
    severity: "MEDIUM",
    settings: ["auth_methods.authenticator_show_context"],
    expected:
      "Microsoft Authenticator enabled, showing the application name and the geographic location in push requests",
    test: (v) => isTrue(v["auth_methods.authenticator_show_context"]),
    fix: "Microsoft Entra admin center > Protection > Authentication methods > Policies > Microsoft Authenticator > Configure: Show application name and Show geographic location = Enabled",
    controls: AUTHENTICATION_METHODS,
  }),
  m365({
    id: "m365_weak_auth_methods_disabled",
    benchmark: cis("5.2.3.5"),
    title: "Weak authentication methods are disabled",
    severity: "MEDIUM",
    settings: ["auth_methods.sms_enabled", "auth_methods.voice_enabled", "auth_methods.email_otp_enabled"],
    expected: "SMS, Voice call and Email OTP disabled in the authentication methods policy",
    test: (v) =>
      isFalse(v["auth_methods.sms_enabled"]) &&
      isFalse(v["auth_methods.voice_enabled"]) &&
      isFalse(v["auth_methods.email_otp_enabled"]),
    fix: "Microsoft Entra admin center > Protection > Authentication methods > Policies: SMS, Voice call and Email OTP, Enable = off",
    controls: AUTHENTICATION_METHODS,
  }),
  // 7 SharePoint admin center
  m365({
    id: "m365_sharepoint_modern_auth",
    benchmark: cis("7.2.1"),
    title: "Modern authentication for SharePoint applications is required",
    severity: "HIGH",
    settings: ["sharepoint.legacy_auth_enabled"],
    expected: "Apps that don't use modern authentication: Block access",
    test: (v) => isFalse(v["sharepoint.legacy_auth_enabled"]),
    fix: "SharePoint admin center > Policies > Access control > Apps that don't use modern authentication: Block access",
    controls: MFA,
  }),
  m365({
    id: "m365_sharepoint_external_sharing",
    benchmark: cis("7.2.3"),
    title: "External content sharing is restricted",
    severity: "HIGH",
    settings: ["sharepoint.sharing_capability"],
    expected: "SharePoint external sharing at New and existing guests or less permissive (never Anyone)",
    test: (v) =>
      oneOf(v["sharepoint.sharing_capability"], [
        "externalUserSharingOnly",
        "existingExternalUserSharingOnly",
        "disabled",
      ]),
    fix: "SharePoint admin center > Policies > Sharing > External sharing: SharePoint slider at New and existing guests or lower",
    controls: SHARING,
  }),
  m365({
    id: "m365_sharepoint_guest_resharing",
    benchmark: cis("7.2.5"),
    title: "SharePoint guest users cannot share items they don't own",
    severity: "MEDIUM",
    settings: ["sharepoint.guest_resharing"],
    expected: "Allow guests to share items they don't own: off",
    test: (v) => isFalse(v["sharepoint.guest_resharing"]),
    fix: "SharePoint admin center > Policies > Sharing > More external sharing settings: uncheck Allow guests to share items they don't own",
    controls: SHARING,
  }),
  m365({
    id: "m365_sharepoint_domain_restriction",
    benchmark: cis("7.2.6"),
    title: "SharePoint external sharing is managed through domain allow or block lists",
    severity: "MEDIUM",
    settings: ["sharepoint.sharing_domain_restriction_mode"],
    expected: "Limit external sharing by domain: an allow list or a block list",
    test: (v) => oneOf(v["sharepoint.sharing_domain_restriction_mode"], ["allowList", "blockList"]),
    fix: "SharePoint admin center > Policies > Sharing > More external sharing settings: Limit external sharing by domain, add the approved domains",
    controls: SHARING,
  }),
  m365({
    id: "m365_onedrive_sync_restricted",
    benchmark: cis("7.3.2"),
    title: "OneDrive sync is restricted for unmanaged devices",
    severity: "LOW",
    settings: ["sharepoint.unmanaged_sync_restricted"],
    expected: "Allow syncing only on computers joined to specific domains: on",
    test: (v) => isTrue(v["sharepoint.unmanaged_sync_restricted"]),
    fix: "SharePoint admin center > Settings > OneDrive - Sync: Allow syncing only on computers joined to specific domains, with the domain GUIDs",
    controls: DEVICES,
  }),
];
