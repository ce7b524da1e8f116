import { describe, expect, it } from "vitest";
import type { TSettingValue } from "@posture/connectors";
// Test-only relative imports: the benchmarks package depends on neither's internals.
import { FRAMEWORKS } from "../../compliance/src/catalogs/index";
import { GOOGLE_SETTINGS } from "../../connectors/src/google/settings";
import { GOOGLE_WORKSPACE_CHECKS } from "./google-workspace";
import type { TTenantCheck } from "./types";

const byId = (id: string): TTenantCheck => {
  const found = GOOGLE_WORKSPACE_CHECKS.find((c) => c.id === id);
  if (!found) throw new Error(`no check ${id}`);
  return found;
};
const demoValues: Record<string, TSettingValue> = Object.fromEntries(
  GOOGLE_SETTINGS.map((s) => [s.key, s.demo]),
);

describe("GOOGLE_WORKSPACE_CHECKS", () => {
  it("has at least 20 checks with unique gws_ ids and CIS Google Workspace 1.3.0 ids", () => {
    expect(GOOGLE_WORKSPACE_CHECKS.length).toBeGreaterThanOrEqual(20);
    const ids = GOOGLE_WORKSPACE_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    const cisIds = GOOGLE_WORKSPACE_CHECKS.map((c) => c.benchmark.id);
    expect(new Set(cisIds).size).toBe(cisIds.length);
    for (const c of GOOGLE_WORKSPACE_CHECKS) {
      expect(c.id).toMatch(/^gws_[a-z0-9_]+$/);
      expect(c.source).toBe("google_workspace");
      expect(c.benchmark).toMatchObject({ name: "CIS Google Workspace Foundations", version: "1.3.0" });
      expect(c.benchmark.id).toMatch(/^\d+(\.\d+)+$/);
      expect(c.title && c.expected && c.fix, c.id).toBeTruthy();
    }
  });

  it("reads only settings the Google connector lists", () => {
    const keys = new Set(GOOGLE_SETTINGS.map((s) => s.key));
    for (const c of GOOGLE_WORKSPACE_CHECKS) {
      expect(c.settings.length, c.id).toBeGreaterThan(0);
      for (const key of c.settings) expect(keys.has(key), `${c.id} reads ${key}`).toBe(true);
    }
  });

  it("maps every check to controls that exist in all five frameworks' catalogs", () => {
    for (const c of GOOGLE_WORKSPACE_CHECKS) {
      for (const [framework, catalog] of Object.entries(FRAMEWORKS)) {
        const ids = c.controls[framework as keyof typeof FRAMEWORKS];
        expect(ids.length, `${c.id} ${framework}`).toBeGreaterThan(0);
        const known = new Set(catalog.controls.map((control) => control.id));
        for (const id of ids) expect(known.has(id), `${c.id}: ${framework} ${id}`).toBe(true);
      }
    }
  });

  it("fails roughly a third of the checks on the demo tenant's settings", () => {
    const failing = GOOGLE_WORKSPACE_CHECKS.filter((c) => !c.test(demoValues)).map((c) => c.id);
    const share = failing.length / GOOGLE_WORKSPACE_CHECKS.length;
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.42);
    expect(failing).toContain("gws_admins_security_keys");
    expect(failing).toContain("gws_gmail_auto_forwarding_disabled");
  });

  it("fails every check whose settings are missing, rather than passing on absence", () => {
    for (const c of GOOGLE_WORKSPACE_CHECKS) expect(c.test({}), c.id).toBe(false);
  });
});

describe("check edge cases", () => {
  const admins = (n: number) => ({ "directory.super_admin_count": n });
  it("wants between two and four super admins", () => {
    expect([0, 1, 2, 4, 5].map((n) => byId("gws_super_admins_at_least_two").test(admins(n)))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
    expect([0, 1, 2, 4, 5].map((n) => byId("gws_super_admins_at_most_four").test(admins(n)))).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
  });

  it("wants no admin without 2SV enforced, and a count (not null) to pass", () => {
    const test = byId("gws_admins_2sv_enforced").test;
    expect(test({ "directory.admins_without_2sv_enforced": 0 })).toBe(true);
    expect(test({ "directory.admins_without_2sv_enforced": 1 })).toBe(false);
    expect(test({ "directory.admins_without_2sv_enforced": null })).toBe(false);
  });

  it("caps web sessions at 12 hours and refuses a zero duration", () => {
    const test = byId("gws_session_duration_limited").test;
    const at = (s: TSettingValue) => test({ "security.web_session_seconds": s });
    expect([at(43200), at(43201), at(3600), at(0), at("43200s")]).toEqual([true, false, true, false, false]);
  });

  it("needs every part of the password policy", () => {
    const test = byId("gws_password_policy_strong").test;
    const good = {
      "security.password_strength": "STRONG",
      "security.password_min_length": 14,
      "security.password_reuse_allowed": false,
      "security.password_enforced_at_login": true,
    };
    expect(test(good)).toBe(true);
    expect(test({ ...good, "security.password_min_length": 13 })).toBe(false);
    expect(test({ ...good, "security.password_strength": "WEAK" })).toBe(false);
    expect(test({ ...good, "security.password_reuse_allowed": true })).toBe(false);
    expect(test({ ...good, "security.password_enforced_at_login": false })).toBe(false);
  });

  it("needs both enrollment and enforcement for 2SV, and both POP and IMAP off", () => {
    const twoStep = byId("gws_2sv_enforced_all_users").test;
    expect(twoStep({ "security.2sv_enrollment_allowed": true, "security.2sv_enforced": true })).toBe(true);
    expect(twoStep({ "security.2sv_enrollment_allowed": false, "security.2sv_enforced": true })).toBe(false);
    const mail = byId("gws_gmail_pop_imap_disabled").test;
    expect(mail({ "gmail.pop_access": false, "gmail.imap_access": false })).toBe(true);
    expect(mail({ "gmail.pop_access": false, "gmail.imap_access": true })).toBe(false);
  });

  it("accepts the stricter values of an enum, not only the benchmark's", () => {
    const drive = byId("gws_drive_sharing_allowlisted_domains").test;
    expect(
      ["DISALLOWED", "ALLOWLISTED_DOMAINS", "ALLOWED", "SOMETHING_NEW"].map((x) =>
        drive({ "drive.external_sharing": x }),
      ),
    ).toEqual([true, true, false, false]);
    const apps = byId("gws_unconfigured_apps_blocked").test;
    expect(
      ["BLOCK_ALL", "ALLOW_SIGN_IN_ONLY", "ACCESS_LEVEL_UNSPECIFIED"].map((x) =>
        apps({ "api_controls.unconfigured_third_party_apps": x }),
      ),
    ).toEqual([true, true, false]);
  });
});
