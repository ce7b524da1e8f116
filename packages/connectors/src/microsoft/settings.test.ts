import { describe, expect, it } from "vitest";
import {
  CIS_ADMIN_ROLE_TEMPLATE_IDS,
  conditionalAccessValues,
  GLOBAL_ADMIN_ROLE_TEMPLATE_ID,
  MICROSOFT_SETTINGS,
  MICROSOFT_SETTINGS_ACCESS,
  PHISHING_RESISTANT_STRENGTH_ID,
  type TMsConditionalAccessPolicy,
} from "./settings";

const allUsers = { includeUsers: ["All"] };
const allApps = { includeApplications: ["All"] };

function mfaPolicy(over: Partial<TMsConditionalAccessPolicy> = {}): TMsConditionalAccessPolicy {
  return {
    id: "p",
    state: "enabled",
    conditions: { users: allUsers, applications: allApps, clientAppTypes: ["all"] },
    grantControls: { operator: "OR", builtInControls: ["mfa"] },
    ...over,
  };
}

const mfaAllUsers = (policies: TMsConditionalAccessPolicy[]) =>
  conditionalAccessValues(policies)["ca.mfa_all_users"];

describe("conditionalAccessValues: how Conditional Access policies are read", () => {
  it("counts an enabled MFA policy for all users and all apps", () => {
    expect(mfaAllUsers([mfaPolicy()])).toBe(true);
    expect(conditionalAccessValues([mfaPolicy()])["ca.enabled_policy_count"]).toBe(1);
  });

  it("ignores report-only and disabled policies", () => {
    expect(mfaAllUsers([mfaPolicy({ state: "enabledForReportingButNotEnforced" })])).toBe(false);
    expect(mfaAllUsers([mfaPolicy({ state: "disabled" })])).toBe(false);
    expect(conditionalAccessValues([mfaPolicy({ state: "disabled" })])["ca.enabled_policy_count"]).toBe(0);
  });

  it("does not count MFA that another control can replace (OR), but does with AND or a strength", () => {
    expect(
      mfaAllUsers([
        mfaPolicy({ grantControls: { operator: "OR", builtInControls: ["mfa", "compliantDevice"] } }),
      ]),
    ).toBe(false);
    expect(
      mfaAllUsers([
        mfaPolicy({ grantControls: { operator: "AND", builtInControls: ["mfa", "compliantDevice"] } }),
      ]),
    ).toBe(true);
    expect(
      mfaAllUsers([
        mfaPolicy({
          grantControls: {
            operator: "OR",
            builtInControls: [],
            authenticationStrength: { id: "00000000-0000-0000-0000-000000000002" },
          },
        }),
      ]),
    ).toBe(true);
  });

  it("allows up to two excluded (break-glass) users, and no excluded groups or roles", () => {
    const users = (u: object) =>
      mfaPolicy({ conditions: { users: { ...allUsers, ...u }, applications: allApps } });
    expect(mfaAllUsers([users({ excludeUsers: ["bg1", "bg2"] })])).toBe(true);
    expect(mfaAllUsers([users({ excludeUsers: ["bg1", "bg2", "ceo"] })])).toBe(false);
    expect(mfaAllUsers([users({ excludeGroups: ["g"] })])).toBe(false);
    expect(mfaAllUsers([users({ excludeRoles: [GLOBAL_ADMIN_ROLE_TEMPLATE_ID] })])).toBe(false);
  });

  it("requires all cloud apps without exclusions, and no narrowing condition", () => {
    expect(
      mfaAllUsers([
        mfaPolicy({ conditions: { users: allUsers, applications: { includeApplications: ["Office365"] } } }),
      ]),
    ).toBe(false);
    expect(
      mfaAllUsers([
        mfaPolicy({
          conditions: { users: allUsers, applications: { ...allApps, excludeApplications: ["x"] } },
        }),
      ]),
    ).toBe(false);
    expect(
      mfaAllUsers([
        mfaPolicy({ conditions: { users: allUsers, applications: allApps, signInRiskLevels: ["high"] } }),
      ]),
    ).toBe(false);
    expect(
      mfaAllUsers([
        mfaPolicy({ conditions: { users: allUsers, applications: allApps, clientAppTypes: ["browser"] } }),
      ]),
    ).toBe(false);
    expect(
      mfaAllUsers([
        mfaPolicy({
          conditions: {
            users: allUsers,
            applications: allApps,
            locations: { includeLocations: ["All"], excludeLocations: ["AllTrusted"] },
          },
        }),
      ]),
    ).toBe(false);
  });

  it("covers admin roles role by role, across several policies", () => {
    const half = CIS_ADMIN_ROLE_TEMPLATE_IDS.slice(0, 7);
    const rest = CIS_ADMIN_ROLE_TEMPLATE_IDS.slice(7);
    const roles = (ids: readonly string[]) =>
      mfaPolicy({ conditions: { users: { includeRoles: [...ids] }, applications: allApps } });
    expect(conditionalAccessValues([roles(half)])["ca.mfa_admin_roles"]).toBe(false);
    expect(conditionalAccessValues([roles(half), roles(rest)])["ca.mfa_admin_roles"]).toBe(true);
    // A policy for all users covers every role too.
    expect(conditionalAccessValues([mfaPolicy()])["ca.mfa_admin_roles"]).toBe(true);
  });

  it("admin session controls need both a frequency of at most 4 hours and a never-persistent browser", () => {
    const session = (sessionControls: TMsConditionalAccessPolicy["sessionControls"]) =>
      conditionalAccessValues([mfaPolicy({ grantControls: null, sessionControls })])[
        "ca.admin_session_controls"
      ];
    const never = { isEnabled: true, mode: "never" as const };
    expect(
      session({ signInFrequency: { isEnabled: true, type: "hours", value: 4 }, persistentBrowser: never }),
    ).toBe(true);
    expect(
      session({ signInFrequency: { isEnabled: true, type: "hours", value: 5 }, persistentBrowser: never }),
    ).toBe(false);
    expect(
      session({ signInFrequency: { isEnabled: true, type: "days", value: 1 }, persistentBrowser: never }),
    ).toBe(false);
    expect(
      session({
        signInFrequency: { isEnabled: true, frequencyInterval: "everyTime" },
        persistentBrowser: never,
      }),
    ).toBe(true);
    expect(session({ signInFrequency: { isEnabled: true, type: "hours", value: 1 } })).toBe(false);
    expect(
      session({ signInFrequency: { isEnabled: false, type: "hours", value: 1 }, persistentBrowser: never }),
    ).toBe(false);
  });

  it("phishing-resistant MFA means the built-in Phishing-resistant MFA strength", () => {
    const strength = (id: string) =>
      conditionalAccessValues([
        mfaPolicy({ grantControls: { builtInControls: [], authenticationStrength: { id } } }),
      ])["ca.phishing_resistant_mfa_admins"];
    expect(strength(PHISHING_RESISTANT_STRENGTH_ID)).toBe(true);
    expect(strength("00000000-0000-0000-0000-000000000002")).toBe(false);
  });

  it("risk policies: high user risk with MFA AND password change; medium and high sign-in risk", () => {
    const risk = (conditions: object, grantControls: TMsConditionalAccessPolicy["grantControls"]) =>
      conditionalAccessValues([
        mfaPolicy({ conditions: { users: allUsers, applications: allApps, ...conditions }, grantControls }),
      ]);
    expect(
      risk({ userRiskLevels: ["high"] }, { operator: "AND", builtInControls: ["mfa", "passwordChange"] })[
        "ca.user_risk_policy"
      ],
    ).toBe(true);
    expect(
      risk({ userRiskLevels: ["high"] }, { operator: "OR", builtInControls: ["mfa", "passwordChange"] })[
        "ca.user_risk_policy"
      ],
    ).toBe(false);
    expect(risk({ userRiskLevels: ["high"] }, { builtInControls: ["block"] })["ca.user_risk_policy"]).toBe(
      true,
    );
    expect(
      risk({ signInRiskLevels: ["high", "medium"] }, { builtInControls: ["mfa"] })["ca.sign_in_risk_policy"],
    ).toBe(true);
    expect(risk({ signInRiskLevels: ["high"] }, { builtInControls: ["mfa"] })["ca.sign_in_risk_policy"]).toBe(
      false,
    );
  });

  it("legacy authentication is blocked only when both Exchange ActiveSync and other clients are", () => {
    const legacy = (clientAppTypes: string[]) =>
      conditionalAccessValues([
        mfaPolicy({
          conditions: { users: allUsers, applications: allApps, clientAppTypes },
          grantControls: { builtInControls: ["block"] },
        }),
      ])["ca.block_legacy_auth"];
    expect(legacy(["exchangeActiveSync", "other"])).toBe(true);
    expect(legacy(["other"])).toBe(false);
  });
});

describe("MICROSOFT_SETTINGS", () => {
  it("has unique keys, a Graph source and a demo value for each", () => {
    const keys = MICROSOFT_SETTINGS.map((s) => s.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const s of MICROSOFT_SETTINGS) {
      expect(s.source).toMatch(/^GET \/v1\.0\//);
      expect(s.demo).not.toBeUndefined();
    }
  });

  it("lists the least-privileged application permissions, one Conditional Access licence", () => {
    expect([...new Set(MICROSOFT_SETTINGS_ACCESS.map((a) => a.permission))].sort()).toEqual([
      "Domain.Read.All",
      "Policy.Read.All",
      "Policy.Read.AuthenticationMethod",
      "RoleManagement.Read.Directory",
      "SharePointTenantSettings.Read.All",
    ]);
    expect(MICROSOFT_SETTINGS_ACCESS.filter((a) => a.licence).map((a) => a.licence)).toEqual([
      "Microsoft Entra ID P1",
    ]);
  });
});
