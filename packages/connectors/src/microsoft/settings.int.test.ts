import { afterEach, describe, expect, it } from "vitest";
import { type THttpOptions } from "../http/client";
import { recordingSleep } from "../../../fakes/src/adapter-harness";
import { startFakeGraph, type TFakeGraph } from "../../../fakes/src/fake-graph";
import {
  buildSecureGraphSettings,
  buildWeakGraphSettings,
  type TGraphSettingsFixture,
} from "../../../fakes/src/fake-graph-settings";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../../../fakes/src/graph-fixture";
import { SourceUnavailableError, type TSettingValue, type TTenantSetting } from "../types";
import { createMicrosoft365Adapter } from "./adapter";
import { MICROSOFT_SETTINGS, MICROSOFT_SETTINGS_ACCESS } from "./settings";

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";

let fake: TFakeGraph | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function settingsOf(settings: TGraphSettingsFixture | undefined, http: THttpOptions = {}) {
  fake = await startFakeGraph({
    fixture: { ...buildGraphFixture(), settings },
    clientId: CLIENT_ID,
    clientSecret: SECRET,
  });
  const adapter = createMicrosoft365Adapter({
    credentials: { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET },
    endpoints: { graphBaseUrl: fake.url, loginBaseUrl: fake.url },
    http,
  });
  return { server: fake, read: () => adapter.tenantSettings() };
}

const valuesOf = (settings: TTenantSetting[]): Record<string, TSettingValue> =>
  Object.fromEntries(settings.flatMap((s) => ("value" in s ? [[s.key, s.value]] : [])));

const unavailableOf = (settings: TTenantSetting[]): Record<string, string> =>
  Object.fromEntries(settings.flatMap((s) => ("unavailable" in s ? [[s.key, s.unavailable]] : [])));

const ALL_PERMISSIONS = [...new Set(MICROSOFT_SETTINGS_ACCESS.map((a) => a.permission))];

describe("Microsoft 365 tenant settings against the fake Graph", () => {
  it("reads every setting of the secure tenant, following the Conditional Access pages", async () => {
    const { server, read } = await settingsOf(buildSecureGraphSettings());
    const settings = await read();
    expect(settings.map((s) => s.key)).toEqual(MICROSOFT_SETTINGS.map((s) => s.key));
    expect(unavailableOf(settings)).toEqual({});
    expect(valuesOf(settings)).toEqual({
      "security_defaults.enabled": false,
      "authorization.users_can_register_apps": false,
      "authorization.users_can_create_tenants": false,
      "authorization.user_consent": "disabled",
      "authorization.guest_user_role": "restricted",
      "authorization.allow_invites_from": "adminsAndGuestInviters",
      "authorization.block_msol_powershell": true,
      "admin_consent_request.enabled": true,
      "roles.global_admin_count": 3,
      "domains.passwords_never_expire": true,
      "ca.enabled_policy_count": 9,
      "ca.mfa_all_users": true,
      "ca.mfa_admin_roles": true,
      "ca.block_legacy_auth": true,
      "ca.admin_session_controls": true,
      "ca.phishing_resistant_mfa_admins": true,
      "ca.user_risk_policy": true,
      "ca.sign_in_risk_policy": true,
      "ca.admin_portals_restricted": true,
      "ca.managed_device_required": true,
      "ca.device_code_flow_blocked": true,
      "auth_methods.authenticator_show_context": true,
      "auth_methods.sms_enabled": false,
      "auth_methods.voice_enabled": false,
      "auth_methods.email_otp_enabled": false,
      "auth_methods.registration_campaign": "enabled",
      "sharepoint.sharing_capability": "externalUserSharingOnly",
      "sharepoint.guest_resharing": false,
      "sharepoint.sharing_domain_restriction_mode": "allowList",
      "sharepoint.legacy_auth_enabled": false,
      "sharepoint.unmanaged_sync_restricted": true,
    });
    const caPages = server.requests.filter((r) => r.path === "/v1.0/identity/conditionalAccess/policies");
    expect(caPages.length).toBe(5); // 9 policies, 2 a page
    expect(caPages.slice(1).every((r) => r.query.get("$skiptoken"))).toBe(true);
    expect(settings.find((s) => s.key === "ca.mfa_all_users")).toMatchObject({
      source: "GET /v1.0/identity/conditionalAccess/policies",
    });
    // Only declared properties are asked for; the fake refuses others as Graph does.
    const domains = server.requests.find((r) => r.path === "/v1.0/domains");
    expect(domains?.query.get("$select")).toBe(
      "id,authenticationType,isVerified,passwordValidityPeriodInDays",
    );
  });

  it("reads the weak tenant: permissive values, and look-alike policies that enforce nothing", async () => {
    const { read } = await settingsOf(buildWeakGraphSettings());
    expect(valuesOf(await read())).toEqual({
      "security_defaults.enabled": true,
      "authorization.users_can_register_apps": true,
      "authorization.users_can_create_tenants": true,
      "authorization.user_consent": "all_apps",
      "authorization.guest_user_role": "member",
      "authorization.allow_invites_from": "everyone",
      "authorization.block_msol_powershell": false,
      "admin_consent_request.enabled": false,
      "roles.global_admin_count": 1,
      "domains.passwords_never_expire": false,
      "ca.enabled_policy_count": 3,
      "ca.mfa_all_users": false,
      "ca.mfa_admin_roles": false,
      "ca.block_legacy_auth": false,
      "ca.admin_session_controls": false,
      "ca.phishing_resistant_mfa_admins": false,
      "ca.user_risk_policy": false,
      "ca.sign_in_risk_policy": false,
      "ca.admin_portals_restricted": false,
      "ca.managed_device_required": false,
      "ca.device_code_flow_blocked": false,
      "auth_methods.authenticator_show_context": false,
      "auth_methods.sms_enabled": true,
      "auth_methods.voice_enabled": true,
      "auth_methods.email_otp_enabled": true,
      "auth_methods.registration_campaign": "disabled",
      "sharepoint.sharing_capability": "externalUserAndGuestSharing",
      "sharepoint.guest_resharing": true,
      "sharepoint.sharing_domain_restriction_mode": "none",
      "sharepoint.legacy_auth_enabled": true,
      "sharepoint.unmanaged_sync_restricted": false,
    });
  });

  it("marks exactly the SharePoint settings unavailable when SharePointTenantSettings.Read.All is missing", async () => {
    const fixture = {
      ...buildSecureGraphSettings(),
      granted: ALL_PERMISSIONS.filter((p) => p !== "SharePointTenantSettings.Read.All"),
    };
    const { server, read } = await settingsOf(fixture);
    const settings = await read();
    const sharepointKeys = MICROSOFT_SETTINGS.filter((s) => s.key.startsWith("sharepoint.")).map(
      (s) => s.key,
    );
    expect(sharepointKeys.length).toBe(5);
    expect(unavailableOf(settings)).toEqual(
      Object.fromEntries(
        sharepointKeys.map((k) => [k, "SharePointTenantSettings.Read.All application permission"]),
      ),
    );
    expect(Object.keys(valuesOf(settings))).toHaveLength(MICROSOFT_SETTINGS.length - 5);
    const denied = server.requests.filter((r) => r.path === "/v1.0/admin/sharepoint/settings");
    expect(denied).toHaveLength(1); // a 403 is final: not retried
  });

  it("says the Conditional Access settings need Entra ID P1 when the tenant has no licence", async () => {
    const { read } = await settingsOf({ ...buildSecureGraphSettings(), entraIdP1: false });
    const unavailable = unavailableOf(await read());
    const caKeys = MICROSOFT_SETTINGS.filter((s) => s.key.startsWith("ca.")).map((s) => s.key);
    expect(unavailable).toEqual(Object.fromEntries(caKeys.map((k) => [k, "Microsoft Entra ID P1 licence"])));
  });

  it("says which permission (or licence) is missing when Policy.Read.All is not granted", async () => {
    const fixture = {
      ...buildSecureGraphSettings(),
      granted: ["SharePointTenantSettings.Read.All", "Domain.Read.All", "RoleManagement.Read.Directory"],
    };
    const { read } = await settingsOf(fixture);
    const unavailable = unavailableOf(await read());
    expect(unavailable["security_defaults.enabled"]).toBe("Policy.Read.All application permission");
    expect(unavailable["authorization.user_consent"]).toBe("Policy.Read.All application permission");
    expect(unavailable["admin_consent_request.enabled"]).toBe("Policy.Read.All application permission");
    expect(unavailable["ca.mfa_all_users"]).toBe(
      "Policy.Read.All application permission (and a Microsoft Entra ID P1 licence)",
    );
    expect(unavailable["auth_methods.sms_enabled"]).toBe(
      "Policy.Read.AuthenticationMethod application permission",
    );
    expect(unavailable["sharepoint.sharing_capability"]).toBeUndefined();
    expect(unavailable["roles.global_admin_count"]).toBeUndefined();
  });

  it("marks everything unavailable, without throwing, when no permission is granted", async () => {
    const { read } = await settingsOf({ ...buildSecureGraphSettings(), granted: [] });
    const settings = await read();
    expect(settings).toHaveLength(MICROSOFT_SETTINGS.length);
    expect(settings.every((s) => "unavailable" in s)).toBe(true);
  });

  it("throws SourceUnavailableError when Graph stays down after the client's retries", async () => {
    const { delays, http } = recordingSleep({ retry: { maxAttempts: 3 } });
    const { server, read } = await settingsOf(buildSecureGraphSettings(), http);
    server.injectFault({ status: 503, count: 10, pathPrefix: "/v1.0/policies/authorizationPolicy" });
    await expect(read()).rejects.toBeInstanceOf(SourceUnavailableError);
    expect(delays.length).toBeGreaterThanOrEqual(2);
  });

  it("recovers from a 429 with Retry-After on the Conditional Access pages", async () => {
    const { delays, http } = recordingSleep();
    const { server, read } = await settingsOf(buildSecureGraphSettings(), http);
    server.injectFault({
      status: 429,
      count: 1,
      retryAfter: 2,
      pathPrefix: "/v1.0/identity/conditionalAccess",
    });
    expect(valuesOf(await read())["ca.mfa_all_users"]).toBe(true);
    expect(delays).toContain(2000);
  });

  it("refuses a $select property the resource does not declare", async () => {
    const { server } = await settingsOf(buildSecureGraphSettings());
    const token = await fetch(`${server.url}/${GRAPH_TENANT_ID}/oauth2/v2.0/token`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: CLIENT_ID,
        client_secret: SECRET,
        scope: "https://graph.microsoft.com/.default",
      }),
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    const res = await fetch(`${server.url}/v1.0/admin/sharepoint/settings?$select=guestLinkExpiryInDays`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(res.status).toBe(400);
  });
});
