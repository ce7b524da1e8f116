import type { TSettingValue } from "@posture/connectors";
import { describe, expect, it } from "vitest";
// Test-only relative imports: @posture/benchmarks depends on neither list at run time.
import { MICROSOFT_SETTINGS } from "../../connectors/src/microsoft/settings";
import { FRAMEWORKS } from "../../compliance/src/catalogs";
import { MICROSOFT_365_CHECKS } from "./microsoft-365";
import type { TTenantCheck } from "./types";

const check = (id: string): TTenantCheck => {
  const found = MICROSOFT_365_CHECKS.find((c) => c.id === id);
  if (!found) throw new Error(`no check ${id}`);
  return found;
};

const DEMO: Record<string, TSettingValue> = Object.fromEntries(
  MICROSOFT_SETTINGS.map((s) => [s.key, s.demo]),
);

describe("MICROSOFT_365_CHECKS", () => {
  it("has at least 20 checks with unique m365_ ids and CIS Microsoft 365 Foundations v4.0.0 ids", () => {
    expect(MICROSOFT_365_CHECKS.length).toBeGreaterThanOrEqual(20);
    const ids = MICROSOFT_365_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    const cisIds = MICROSOFT_365_CHECKS.map((c) => c.benchmark.id);
    expect(new Set(cisIds).size).toBe(cisIds.length);
    for (const c of MICROSOFT_365_CHECKS) {
      expect(c.id).toMatch(/^m365_[a-z0-9]+(_[a-z0-9]+)*$/);
      expect(c.source).toBe("microsoft_365");
      expect(c.benchmark).toEqual({
        name: "CIS Microsoft 365 Foundations",
        version: "4.0.0",
        id: c.benchmark.id,
      });
      expect(c.benchmark.id).toMatch(/^[1-9]\d*(\.\d+)+$/);
      expect(c.title.length).toBeGreaterThan(10);
      expect(c.expected.length).toBeGreaterThan(5);
      expect(c.fix).toMatch(/admin center/);
    }
  });

  it("reads only settings the connector lists", () => {
    const keys = new Set(MICROSOFT_SETTINGS.map((s) => s.key));
    for (const c of MICROSOFT_365_CHECKS) {
      expect(c.settings.length).toBeGreaterThan(0);
      for (const key of c.settings) expect(keys, `${c.id} reads ${key}`).toContain(key);
    }
  });

  it("maps every check to existing controls of all five frameworks", () => {
    for (const c of MICROSOFT_365_CHECKS) {
      for (const [framework, catalog] of Object.entries(FRAMEWORKS)) {
        const ids = c.controls[framework as keyof typeof FRAMEWORKS];
        expect(ids.length, `${c.id} ${framework}`).toBeGreaterThan(0);
        const known = new Set(catalog.controls.map((control) => control.id));
        for (const id of ids) expect(known, `${c.id} ${framework} ${id}`).toContain(id);
      }
    }
  });

  it("fails roughly a third of the checks on the demo tenant, the ones its story names", () => {
    const failing = MICROSOFT_365_CHECKS.filter((c) => !c.test(DEMO)).map((c) => c.id);
    expect(failing.sort()).toEqual(
      [
        "m365_admin_phishing_resistant_mfa",
        "m365_admin_sign_in_frequency",
        "m365_global_admin_count",
        "m365_guest_invites_admins_only",
        "m365_sharepoint_external_sharing",
        "m365_user_consent_disabled",
        "m365_user_risk_policy",
        "m365_users_cannot_register_apps",
        "m365_weak_auth_methods_disabled",
      ].sort(),
    );
    expect(failing.length / MICROSOFT_365_CHECKS.length).toBeGreaterThan(0.25);
    expect(failing.length / MICROSOFT_365_CHECKS.length).toBeLessThan(0.45);
    // Security defaults off, with Conditional Access doing the job: passes.
    expect(DEMO["security_defaults.enabled"]).toBe(false);
    expect(check("m365_mfa_all_users").test(DEMO)).toBe(true);
  });
});

describe("check tests at their edges", () => {
  it("Global Administrators: 2 to 4 inclusive, and a number", () => {
    const t = (n: TSettingValue) => check("m365_global_admin_count").test({ "roles.global_admin_count": n });
    expect([0, 1, 2, 3, 4, 5, 6].map(t)).toEqual([false, false, true, true, true, false, false]);
    expect(t("3")).toBe(false);
    expect(t(null)).toBe(false);
  });

  it("user consent passes only when disabled", () => {
    const t = (v: TSettingValue) =>
      check("m365_user_consent_disabled").test({ "authorization.user_consent": v });
    expect(["disabled", "low_impact", "all_apps", "custom"].map(t)).toEqual([true, false, false, false]);
  });

  it("guest access: limited or restricted; member access or an unknown role fails", () => {
    const t = (v: TSettingValue) =>
      check("m365_guest_access_restricted").test({ "authorization.guest_user_role": v });
    expect(["restricted", "limited", "member", "0000-unknown"].map(t)).toEqual([true, true, false, false]);
  });

  it("guest invites: admins and guest inviters, or nobody", () => {
    const t = (v: TSettingValue) =>
      check("m365_guest_invites_admins_only").test({ "authorization.allow_invites_from": v });
    expect(["none", "adminsAndGuestInviters", "adminsGuestInvitersAndAllMembers", "everyone"].map(t)).toEqual(
      [true, true, false, false],
    );
  });

  it("SharePoint sharing: New and existing guests or less; Anyone fails", () => {
    const t = (v: TSettingValue) =>
      check("m365_sharepoint_external_sharing").test({ "sharepoint.sharing_capability": v });
    expect(
      [
        "disabled",
        "existingExternalUserSharingOnly",
        "externalUserSharingOnly",
        "externalUserAndGuestSharing",
      ].map(t),
    ).toEqual([true, true, true, false]);
    expect(t(null)).toBe(false);
  });

  it("domain restriction: an allow or block list; none fails", () => {
    const t = (v: TSettingValue) =>
      check("m365_sharepoint_domain_restriction").test({ "sharepoint.sharing_domain_restriction_mode": v });
    expect(["allowList", "blockList", "none"].map(t)).toEqual([true, true, false]);
  });

  it("weak methods: any one of SMS, voice or email OTP enabled fails", () => {
    const c = check("m365_weak_auth_methods_disabled");
    const off = {
      "auth_methods.sms_enabled": false,
      "auth_methods.voice_enabled": false,
      "auth_methods.email_otp_enabled": false,
    };
    expect(c.test(off)).toBe(true);
    for (const key of Object.keys(off)) expect(c.test({ ...off, [key]: true }), key).toBe(false);
  });

  it("boolean checks need the boolean itself: a missing or null value never passes", () => {
    for (const c of MICROSOFT_365_CHECKS) {
      expect(c.test({}), c.id).toBe(false);
      expect(c.test(Object.fromEntries(c.settings.map((k) => [k, null]))), c.id).toBe(false);
    }
  });
});
