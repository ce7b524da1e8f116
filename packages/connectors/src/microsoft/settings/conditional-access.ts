import {
  CIS_ADMIN_ROLE_TEMPLATE_IDS,
  MAX_BREAK_GLASS_EXCLUSIONS,
  PHISHING_RESISTANT_STRENGTH_ID,
  type TMsConditionalAccessPolicy,
} from "./api";
import type { TValues } from "./catalog";

// Conditional Access: a policy counts only when its state is "enabled" (report-only and disabled
// policies enforce nothing). A requirement is met when one enabled policy targets the users and
// the apps the benchmark names, with the grant or session control it names.

const has = (list: string[] | undefined, value: string) => (list ?? []).includes(value);

function targetsAllUsers(p: TMsConditionalAccessPolicy): boolean {
  const u = p.conditions?.users ?? {};
  return (
    has(u.includeUsers, "All") &&
    (u.excludeUsers ?? []).length <= MAX_BREAK_GLASS_EXCLUSIONS &&
    (u.excludeGroups ?? []).length === 0 &&
    (u.excludeRoles ?? []).length === 0
  );
}

function targetsRole(p: TMsConditionalAccessPolicy, roleId: string): boolean {
  const u = p.conditions?.users ?? {};
  if (has(u.excludeRoles, roleId)) return false;
  return targetsAllUsers(p) || has(u.includeRoles, roleId);
}

function targetsAllApps(p: TMsConditionalAccessPolicy): boolean {
  const a = p.conditions?.applications ?? {};
  return has(a.includeApplications, "All") && (a.excludeApplications ?? []).length === 0;
}

function blocks(p: TMsConditionalAccessPolicy): boolean {
  return has(p.grantControls?.builtInControls, "block");
}

/** The policy applies to every sign-in: no risk, client app, location or platform condition narrows it. */
function unconditional(p: TMsConditionalAccessPolicy): boolean {
  const c = p.conditions ?? {};
  const clientApps = c.clientAppTypes ?? [];
  return (
    (c.signInRiskLevels ?? []).length === 0 &&
    (c.userRiskLevels ?? []).length === 0 &&
    (clientApps.length === 0 || clientApps.includes("all")) &&
    !c.locations &&
    !c.platforms
  );
}

/** MFA is required when it cannot be bypassed: the only control, every control (AND), or a strength. */
function requiresMfa(p: TMsConditionalAccessPolicy): boolean {
  const g = p.grantControls;
  if (!g) return false;
  if (g.authenticationStrength?.id) return true;
  const controls = g.builtInControls ?? [];
  if (!controls.includes("mfa")) return false;
  return controls.length === 1 || g.operator === "AND";
}

function signInFrequencyAtMost4Hours(p: TMsConditionalAccessPolicy): boolean {
  const f = p.sessionControls?.signInFrequency;
  if (!f?.isEnabled) return false;
  if (f.frequencyInterval === "everyTime") return true;
  return f.type === "hours" && typeof f.value === "number" && f.value <= 4;
}

function noPersistentBrowser(p: TMsConditionalAccessPolicy): boolean {
  const b = p.sessionControls?.persistentBrowser;
  return Boolean(b?.isEnabled) && b?.mode === "never";
}

/** Every CIS admin role is covered by some enabled policy meeting `meets`. */
function coversAdminRoles(
  policies: TMsConditionalAccessPolicy[],
  meets: (p: TMsConditionalAccessPolicy) => boolean,
): boolean {
  const qualifying = policies.filter((p) => targetsAllApps(p) && unconditional(p) && meets(p));
  return CIS_ADMIN_ROLE_TEMPLATE_IDS.every((role) => qualifying.some((p) => targetsRole(p, role)));
}

/** Derives the `ca.*` settings from every policy of the tenant (only enabled ones count). */
export function conditionalAccessValues(all: TMsConditionalAccessPolicy[]): TValues {
  const enabled = all.filter((p) => p.state === "enabled");
  const allUsersAllApps = enabled.filter((p) => targetsAllUsers(p) && targetsAllApps(p));
  return {
    "ca.enabled_policy_count": enabled.length,
    "ca.mfa_all_users": allUsersAllApps.some((p) => unconditional(p) && requiresMfa(p)),
    "ca.mfa_admin_roles": coversAdminRoles(enabled, requiresMfa),
    "ca.block_legacy_auth": allUsersAllApps.some(
      (p) =>
        blocks(p) &&
        has(p.conditions?.clientAppTypes, "exchangeActiveSync") &&
        has(p.conditions?.clientAppTypes, "other"),
    ),
    "ca.admin_session_controls": coversAdminRoles(
      enabled,
      (p) => signInFrequencyAtMost4Hours(p) && noPersistentBrowser(p),
    ),
    "ca.phishing_resistant_mfa_admins": coversAdminRoles(
      enabled,
      (p) => p.grantControls?.authenticationStrength?.id === PHISHING_RESISTANT_STRENGTH_ID,
    ),
    "ca.user_risk_policy": allUsersAllApps.some(
      (p) =>
        has(p.conditions?.userRiskLevels, "high") &&
        (blocks(p) ||
          (has(p.grantControls?.builtInControls, "mfa") &&
            has(p.grantControls?.builtInControls, "passwordChange") &&
            p.grantControls?.operator === "AND")),
    ),
    "ca.sign_in_risk_policy": allUsersAllApps.some(
      (p) =>
        has(p.conditions?.signInRiskLevels, "high") &&
        has(p.conditions?.signInRiskLevels, "medium") &&
        (blocks(p) || requiresMfa(p)),
    ),
    "ca.admin_portals_restricted": enabled.some((p) => {
      const u = p.conditions?.users ?? {};
      return (
        has(p.conditions?.applications?.includeApplications, "MicrosoftAdminPortals") &&
        has(u.includeUsers, "All") &&
        (u.excludeRoles ?? []).length > 0 &&
        blocks(p)
      );
    }),
    "ca.managed_device_required": allUsersAllApps.some((p) => {
      if (!unconditional(p)) return false;
      const controls = p.grantControls?.builtInControls ?? [];
      return controls.includes("compliantDevice") || controls.includes("domainJoinedDevice");
    }),
    "ca.device_code_flow_blocked": allUsersAllApps.some(
      (p) =>
        blocks(p) && (p.conditions?.authenticationFlows?.transferMethods ?? "").includes("deviceCodeFlow"),
    ),
  };
}
