// Deriving the directory-wide settings from Graph's resources: the authorization policy, the
// authentication methods policy and the domains (Conditional Access: conditional-access.ts).
import {
  GUEST_ROLE,
  PASSWORD_NEVER_EXPIRES_DAYS,
  type TMsAuthenticationMethodsPolicy,
  type TMsAuthorizationPolicy,
  type TMsDomain,
} from "./api";
import type { TValues } from "./catalog";

function userConsent(assigned: string[] | undefined): string {
  const self = (assigned ?? []).filter((p) => p.startsWith("ManagePermissionGrantsForSelf."));
  if (self.length === 0) return "disabled";
  const ids = self.map((p) => p.slice("ManagePermissionGrantsForSelf.".length));
  if (ids.includes("microsoft-user-default-legacy")) return "all_apps";
  if (ids.length === 1 && ids[0] === "microsoft-user-default-low") return "low_impact";
  return "custom";
}

function guestRole(id: string | undefined): string {
  if (id === GUEST_ROLE.restricted) return "restricted";
  if (id === GUEST_ROLE.limited) return "limited";
  if (id === GUEST_ROLE.member) return "member";
  return id ?? "unknown";
}

export function fromAuthorization(p: TMsAuthorizationPolicy): TValues {
  const d = p.defaultUserRolePermissions ?? {};
  return {
    "authorization.users_can_register_apps": d.allowedToCreateApps ?? true,
    // null (never set) means the default: non-admin users may create tenants.
    "authorization.users_can_create_tenants": d.allowedToCreateTenants ?? true,
    "authorization.user_consent": userConsent(d.permissionGrantPoliciesAssigned),
    "authorization.guest_user_role": guestRole(p.guestUserRoleId),
    "authorization.allow_invites_from": p.allowInvitesFrom ?? "everyone",
    "authorization.block_msol_powershell": p.blockMsolPowerShell ?? false,
  };
}

export function fromAuthMethods(p: TMsAuthenticationMethodsPolicy): TValues {
  const config = (id: string) =>
    (p.authenticationMethodConfigurations ?? []).find((c) => c.id?.toLowerCase() === id.toLowerCase());
  const enabled = (id: string) => config(id)?.state === "enabled";
  const authenticator = config("MicrosoftAuthenticator");
  const features = authenticator?.featureSettings;
  return {
    "auth_methods.authenticator_show_context":
      authenticator?.state === "enabled" &&
      features?.displayAppInformationRequiredState?.state === "enabled" &&
      features?.displayLocationInformationRequiredState?.state === "enabled",
    "auth_methods.sms_enabled": enabled("Sms"),
    "auth_methods.voice_enabled": enabled("Voice"),
    "auth_methods.email_otp_enabled": enabled("Email"),
    "auth_methods.registration_campaign":
      p.registrationEnforcement?.authenticationMethodsRegistrationCampaign?.state ?? "default",
  };
}

export function fromDomains(domains: TMsDomain[]): TValues {
  // Federated domains take their password policy from the identity provider, not from Entra ID.
  const managed = domains.filter((d) => d.isVerified && d.authenticationType === "Managed");
  return {
    "domains.passwords_never_expire":
      managed.length > 0 &&
      managed.every((d) => d.passwordValidityPeriodInDays === PASSWORD_NEVER_EXPIRES_DAYS),
  };
}
