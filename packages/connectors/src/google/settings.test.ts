import { describe, expect, it } from "vitest";
import type { TJsonClient } from "../http/client";
import { SourceAuthError } from "../types";
import {
  GOOGLE_SETTINGS,
  GOOGLE_SETTINGS_ACCESS,
  ORG_UNITS_SCOPE,
  POLICIES_SCOPE,
  readGoogleSettings,
  type TGPolicy,
} from "./settings";

/** A client answering from a table of paths (query ignored), or refusing as Google does. */
function client(answers: Record<string, unknown>): TJsonClient {
  return {
    get: async <T>(path: string): Promise<T> => {
      const answer = answers[path];
      if (answer instanceof Error) throw answer;
      if (answer === undefined) throw new Error(`unexpected ${path}`);
      return answer as T;
    },
    // The settings are only read.
    post: () => Promise.reject(new Error("unexpected POST")),
    send: () => Promise.reject(new Error("unexpected request")),
  };
}

const ROOT = "orgUnits/root1";
const policy = (type: string, value: Record<string, unknown>, orgUnit = ROOT, group?: string): TGPolicy => ({
  policyQuery: { orgUnit, ...(group ? { group } : {}) },
  setting: { type: `settings/${type}`, value },
});
const orgUnits = {
  organizationUnits: [
    { orgUnitId: "id:root1", orgUnitPath: "/" },
    { orgUnitId: "id:ou2", orgUnitPath: "/Admins", parentOrgUnitId: "id:root1" },
  ],
};

async function read(policies: TGPolicy[], extra: Record<string, unknown> = {}) {
  const settings = await readGoogleSettings({
    admin: client({
      "/admin/directory/v1/users": {
        users: [{ id: "a1", isAdmin: true, isEnforcedIn2Sv: true, orgUnitPath: "/Admins" }],
      },
      "/admin/directory/v1/customer/my_customer/orgunits": orgUnits,
      ...extra,
    }),
    cloudIdentity: client({ "/v1/policies": { policies }, ...extra }),
  });
  return Object.fromEntries(
    settings.map((s) => [s.key, "value" in s ? s.value : { unavailable: s.unavailable }]),
  );
}

describe("GOOGLE_SETTINGS", () => {
  it("lists unique keys, each with its API source and a demo value", () => {
    const keys = GOOGLE_SETTINGS.map((s) => s.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const s of GOOGLE_SETTINGS) {
      expect(s.source).toMatch(/^GET \//);
      expect(s.demo, s.key).not.toBeUndefined();
    }
    expect(GOOGLE_SETTINGS_ACCESS.map((a) => a.permission)).toContain(POLICIES_SCOPE);
  });
});

describe("readGoogleSettings", () => {
  it("uses Google's default where no policy is set, and reads string spellings of booleans and numbers", async () => {
    const values = await read([
      policy("gmail.auto_forwarding", { enableAutoForwarding: "False" }),
      policy("security.password", { minimumLength: "12" }),
    ]);
    expect(values["gmail.auto_forwarding"]).toBe(false);
    expect(values["security.password_min_length"]).toBe(12);
    expect(values["gmail.pop_access"]).toBe(true);
    expect(values["security.less_secure_apps_allowed"]).toBe(false);
  });

  it("takes the least secure of the root and its overrides, an unknown enum value counting as worst", async () => {
    const values = await read([
      policy("drive_and_docs.external_sharing", { externalSharingMode: "ALLOWLISTED_DOMAINS" }),
      policy("drive_and_docs.external_sharing", { externalSharingMode: "DISALLOWED" }, "orgUnits/ou2"),
      policy("workspace_marketplace.apps_access_options", { accessLevel: "ALLOW_LISTED_APPS" }),
      policy("workspace_marketplace.apps_access_options", { accessLevel: "SOMETHING_NEW" }, "orgUnits/ou2"),
      policy("security.session_controls", { webSessionDuration: "3600s" }),
      policy("security.session_controls", { webSessionDuration: "86400s" }, ROOT, "groups/g1"),
    ]);
    expect(values["drive.external_sharing"]).toBe("ALLOWLISTED_DOMAINS");
    expect(values["marketplace.apps_access"]).toBe("SOMETHING_NEW");
    expect(values["security.web_session_seconds"]).toBe(86400);
  });

  it("says in the source when Google's default stands in for a missing policy", async () => {
    const settings = await readGoogleSettings({
      admin: client({
        "/admin/directory/v1/users": { users: [] },
        "/admin/directory/v1/customer/my_customer/orgunits": orgUnits,
      }),
      cloudIdentity: client({
        "/v1/policies": { policies: [policy("gmail.pop_access", { enablePopAccess: false })] },
      }),
    });
    const source = (key: string) => settings.find((s) => s.key === key);
    expect(source("gmail.imap_access")).toMatchObject({
      source: expect.stringContaining("Google's default"),
    });
    expect(source("gmail.pop_access")).toMatchObject({
      value: false,
      source: expect.not.stringContaining("default"),
    });
  });

  it("counts the default when only an override is set", async () => {
    const values = await read([
      policy("gmail.auto_forwarding", { enableAutoForwarding: false }, "orgUnits/ou2"),
    ]);
    expect(values["gmail.auto_forwarding"]).toBe(true);
  });

  it("judges admins by their org unit's nearest policy", async () => {
    const factor = "security.two_step_verification_enforcement_factor";
    const values = await read([
      policy(factor, { allowedSignInFactorSet: "ALL" }),
      policy(factor, { allowedSignInFactorSet: "PASSKEY_ONLY" }, "orgUnits/ou2"),
    ]);
    expect(values["security.2sv_methods_admins"]).toBe("PASSKEY_ONLY");
  });

  it("reads enforcement as on only from a past, non-zero timestamp", async () => {
    const at = async (enforcedFrom: string) =>
      (await read([policy("security.two_step_verification_enforcement", { enforcedFrom })]))[
        "security.2sv_enforced"
      ];
    expect(await at("2023-05-01T00:00:00Z")).toBe(true);
    expect(await at("1970-01-01T00:00:00Z")).toBe(false);
    expect(await at("2999-01-01T00:00:00Z")).toBe(false);
  });

  it("reads each alert rule from its own policy, customer-wide, else Google's default state", async () => {
    const rule = (displayName: string, state: string, recipients: unknown[]): TGPolicy => ({
      policyQuery: {},
      setting: {
        type: "settings/rule.system_defined_alerts",
        value: { displayName, state, action: { alertCenterAction: { recipients } } },
      },
    });
    const values = await read([
      rule("User's password changed", "ACTIVE", [{ allSuperAdmins: true }]),
      rule("Leaked password", "ACTIVE", [{ email: "secops@acme.test" }]),
    ]);
    expect(values["rules.alert_password_changed"]).toBe(true);
    expect(values["rules.alert_leaked_password"]).toBe(false);
    // No policy: Google ships "Suspicious login" on and "User granted Admin privilege" off.
    expect(values["rules.alert_suspicious_login"]).toBe(true);
    expect(values["rules.alert_admin_privilege_granted"]).toBe(false);
  });

  it("marks only the refused read's settings unavailable, naming the scope", async () => {
    const values = await read([], {
      "/admin/directory/v1/customer/my_customer/orgunits": new SourceAuthError(
        "Google Workspace: Request had insufficient authentication scopes. (HTTP 403)",
      ),
    });
    expect(values["security.2sv_methods_admins"]).toEqual({
      unavailable: expect.stringContaining(ORG_UNITS_SCOPE),
    });
    expect(values["directory.super_admin_count"]).toBe(1);
    expect(values["gmail.auto_forwarding"]).toBe(true);
  });
});
