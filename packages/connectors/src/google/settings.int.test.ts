import { afterEach, describe, expect, it } from "vitest";
import type { THttpOptions } from "../http/client";
import { recordingSleep } from "../../../fakes/src/adapter-harness";
import { startFakeGoogle, type TFakeGoogle } from "../../../fakes/src/fake-google";
import {
  ORG_UNITS_SCOPE,
  POLICIES_SCOPE,
  ROLES_SCOPE,
  withGoogleTenant,
} from "../../../fakes/src/fake-google-settings";
import { buildGoogleFixture } from "../../../fakes/src/google-fixture";
import type { TTenantSetting } from "../types";
import { createGoogleWorkspaceAdapter } from "./adapter";
import { GOOGLE_SETTINGS, policyFilter } from "./settings";

const TOKEN = "static-test-token";

let fake: TFakeGoogle | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function settingsOf(
  tenant: "secure" | "weak",
  opts: {
    withheldScopes?: string[];
    pageSize?: number;
    http?: THttpOptions;
    faults?: Array<Parameters<TFakeGoogle["injectFault"]>[0]>;
  } = {},
): Promise<Map<string, TTenantSetting>> {
  const fixture = withGoogleTenant(buildGoogleFixture(), tenant, { withheldScopes: opts.withheldScopes });
  if (fixture.settings && opts.pageSize) fixture.settings.pageSize = opts.pageSize;
  fake = await startFakeGoogle({ fixture, accessToken: TOKEN });
  for (const fault of opts.faults ?? []) fake.injectFault(fault);
  const adapter = createGoogleWorkspaceAdapter({
    http: opts.http,
    credentials: { accessToken: TOKEN },
    endpoints: {
      driveBaseUrl: fake.url,
      adminBaseUrl: fake.url,
      cloudIdentityBaseUrl: fake.url,
      tokenUrl: fake.tokenUrl,
    },
  });
  const settings = await adapter.tenantSettings();
  return new Map(settings.map((s) => [s.key, s]));
}

const valueOf = (s: TTenantSetting | undefined) => (s && "value" in s ? s.value : undefined);

type TBody = {
  error?: Record<string, unknown>;
  policies?: Array<{ setting: { type: string } }>;
  nextPageToken?: string;
  organizationUnits?: Array<{ orgUnitPath: string }>;
};

async function get(path: string, query: Record<string, string>) {
  const url = new URL(path, fake?.url);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: response.status, body: (await response.json()) as TBody };
}

describe("Google Workspace tenant settings against the fake Policy API and Directory", () => {
  it("reads every setting of GOOGLE_SETTINGS, each with its source", async () => {
    const settings = await settingsOf("secure");
    expect([...settings.keys()].sort()).toEqual(GOOGLE_SETTINGS.map((s) => s.key).sort());
    for (const s of settings.values()) expect(s, s.key).toHaveProperty("source");
    expect(valueOf(settings.get("directory.super_admin_count"))).toBe(2);
    expect(valueOf(settings.get("security.password_min_length"))).toBe(14);
    expect(valueOf(settings.get("security.web_session_seconds"))).toBe(43200);
    expect(valueOf(settings.get("security.2sv_methods_admins"))).toBe("PASSKEY_ONLY");
    expect(valueOf(settings.get("chat.external_chat"))).toBe("TRUSTED_DOMAINS");
  });

  it("judges the least secure of the root and every org-unit or group override", async () => {
    const settings = await settingsOf("weak");
    // Root 14 characters, /Sales 8.
    expect(valueOf(settings.get("security.password_min_length"))).toBe(8);
    expect(settings.get("security.password_min_length")).toMatchObject({
      source: expect.stringContaining("1 org-unit or group override"),
    });
    // Root off, a group turns it on.
    expect(valueOf(settings.get("security.less_secure_apps_allowed"))).toBe(true);
    // Root passkeys only, but the admins' org unit allows every method.
    expect(valueOf(settings.get("security.2sv_methods_admins"))).toBe("ALL");
    // The zero Timestamp means enforcement is off.
    expect(valueOf(settings.get("security.2sv_enforced"))).toBe(false);
    // No root policy for IMAP: Google's default (on) applies at the root.
    expect(valueOf(settings.get("gmail.imap_access"))).toBe(true);
    expect(valueOf(settings.get("directory.super_admin_count"))).toBe(1);
    expect(valueOf(settings.get("directory.admins_without_2sv_enforced"))).toBe(1);
  });

  it("keeps the stricter override from lowering a secure root", async () => {
    const settings = await settingsOf("secure");
    // Root 12 hours, /Sales 8 hours: the tenant's weakest is 12 hours.
    expect(valueOf(settings.get("security.web_session_seconds"))).toBe(43200);
  });

  it("filters per application and pages with the filter-bound token", async () => {
    await settingsOf("weak", { pageSize: 2 });
    const calls = fake?.requests.filter((r) => r.path === "/v1/policies") ?? [];
    const filters = new Set(calls.map((r) => r.query.get("filter")));
    expect(filters).toContain(policyFilter("security"));
    expect(filters).toContain(policyFilter("gmail"));
    expect(calls.every((r) => r.query.get("pageSize") === "100")).toBe(true);
    const securityPages = calls.filter((r) => r.query.get("filter") === policyFilter("security"));
    expect(securityPages.length).toBeGreaterThanOrEqual(3);
    expect(securityPages.slice(1).every((r) => r.query.get("pageToken"))).toBe(true);
  });

  it("marks exactly the Policy API's settings unavailable when its scope is withheld", async () => {
    const settings = await settingsOf("secure", { withheldScopes: [POLICIES_SCOPE] });
    for (const s of settings.values()) {
      if (s.key.startsWith("directory.")) expect("value" in s, s.key).toBe(true);
      else expect(s, s.key).toMatchObject({ unavailable: expect.stringContaining(POLICIES_SCOPE) });
    }
  });

  it("marks only the admins' 2SV methods unavailable without the org-units scope", async () => {
    const settings = await settingsOf("secure", { withheldScopes: [ORG_UNITS_SCOPE] });
    const unavailable = [...settings.values()].filter((s) => "unavailable" in s).map((s) => s.key);
    expect(unavailable).toEqual(["security.2sv_methods_admins"]);
    expect(settings.get("security.2sv_methods_admins")).toMatchObject({
      unavailable: expect.stringContaining(ORG_UNITS_SCOPE),
    });
  });

  it("retries the Policy API's 429 after Retry-After and still reads every setting", async () => {
    const { delays, http } = recordingSleep();
    const settings = await settingsOf("secure", {
      http,
      faults: [{ status: 429, count: 2, retryAfter: 1, pathPrefix: "/v1/policies" }],
    });
    expect([...settings.values()].filter((s) => "unavailable" in s)).toEqual([]);
    expect(delays).toEqual([1000, 1000]);
  });

  it("marks the Policy API's settings unavailable when it stays down, and keeps the Directory's", async () => {
    const { http } = recordingSleep();
    const settings = await settingsOf("secure", {
      http,
      faults: [{ status: 503, count: 1000, pathPrefix: "/v1/policies" }],
    });
    expect(settings.get("gmail.auto_forwarding")).toMatchObject({
      unavailable: expect.stringContaining("503"),
    });
    expect(valueOf(settings.get("directory.super_admin_count"))).toBe(2);
  });

  it("marks only the role check's count unavailable without the role-management scope", async () => {
    const settings = await settingsOf("weak", { withheldScopes: [ROLES_SCOPE] });
    const unavailable = [...settings.values()].filter((s) => "unavailable" in s).map((s) => s.key);
    expect(unavailable).toEqual(["directory.super_admins_with_other_roles"]);
  });

  it("counts super admins who also hold another admin role", async () => {
    expect(valueOf((await settingsOf("weak")).get("directory.super_admins_with_other_roles"))).toBe(1);
    await fake?.close();
    const secure = await settingsOf("secure");
    expect(valueOf(secure.get("directory.super_admins_with_other_roles"))).toBe(0);
    const calls = fake?.requests.filter((r) => r.path.endsWith("/roleassignments")) ?? [];
    expect(calls.map((r) => r.query.get("maxResults"))).toEqual(["200"]);
  });

  it("answers like the Policy API: 400 on a bad filter or token, 403 on a withheld scope", async () => {
    await settingsOf("secure", { pageSize: 1 });
    const badRegex = await get("/v1/policies", { filter: "setting.type.matches('(')" });
    expect(badRegex.status).toBe(400);
    expect(badRegex.body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    const unsupported = await get("/v1/policies", { filter: "setting.value.enabled == true" });
    expect(unsupported.status).toBe(400);
    const twoTypes = await get("/v1/policies", {
      filter: "setting.type.matches('a') && setting.type.matches('b')",
    });
    expect(twoTypes.status).toBe(400);
    const unknownParam = await get("/v1/policies", { orderBy: "name" });
    expect(unknownParam.status).toBe(400);

    const first = await get("/v1/policies", { filter: policyFilter("gmail") });
    expect(first.body.policies).toHaveLength(1);
    expect(first.body.policies?.[0]?.setting.type).toMatch(/^settings\/gmail\./);
    const mismatched = await get("/v1/policies", {
      filter: policyFilter("chat"),
      pageToken: first.body.nextPageToken ?? "",
    });
    expect(mismatched.status).toBe(400);
    const both = await get("/v1/policies", {
      filter: `customer == "customers/my_customer" && ${policyFilter("calendar")}`,
      pageSize: "100",
    });
    expect(both.status).toBe(200);
    // The reference's spellings (`\\.` as printed, `\\\\.` as CEL escapes it) and an unanchored pattern select alike.
    for (const filter of [
      "setting.type.matches('^settings/gmail\\..*$')",
      "setting.type.matches('^settings/gmail\\\\..*$')",
      'setting.type.matches("gmail.*")',
    ]) {
      const answer = await get("/v1/policies", { filter, pageSize: "100" });
      expect(answer.status, filter).toBe(200);
      expect(
        answer.body.policies?.map((p) => p.setting.type).every((t) => t.startsWith("settings/gmail.")),
      ).toBe(true);
      // One per page here (the fixture pages by 1), and more to come.
      expect(answer.body.policies?.length, filter).toBe(1);
      expect(answer.body.nextPageToken, filter).toBeTruthy();
    }
    const unterminated = await get("/v1/policies", { filter: "setting.type.matches('^settings/gmail)" });
    expect(unterminated.status).toBe(400);
    const otherCustomer = await get("/v1/policies", { filter: 'customer == "customers/C0other"' });
    expect(otherCustomer.status).toBe(403);

    const ous = await get("/admin/directory/v1/customer/my_customer/orgunits", {
      orgUnitPath: "/Sales",
      type: "all",
    });
    expect(ous.body.organizationUnits?.map((o) => o.orgUnitPath)).toEqual(["/Sales/EMEA"]);
  });

  it("refuses with PERMISSION_DENIED and the scope error when the delegation lacks the scope", async () => {
    await settingsOf("secure", { withheldScopes: [POLICIES_SCOPE] });
    const refused = await get("/v1/policies", {});
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      status: "PERMISSION_DENIED",
      details: [expect.objectContaining({ reason: "ACCESS_TOKEN_SCOPE_INSUFFICIENT" })],
    });
  });
});
