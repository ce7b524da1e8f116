import { createMicrosoft365Adapter, type TTenantSetting } from "@posture/connectors";
import { startFakeGraph, type TFakeGraph } from "@posture/fakes/graph";
import { buildGraphFixture, GRAPH_TENANT_ID } from "@posture/fakes/graph-fixture";
import { afterEach, describe, expect, it } from "vitest";
import {
  buildSecureGraphSettings,
  buildWeakGraphSettings,
  type TGraphSettingsFixture,
} from "@posture/fakes/graph-settings";
import { evaluateTenantChecks } from "./evaluate";
import { MICROSOFT_365_CHECKS } from "./microsoft-365";

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";

let fake: TFakeGraph | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

/** The tenant's settings, read end to end through the Microsoft 365 adapter against the fake Graph. */
async function tenantSettings(settings: TGraphSettingsFixture): Promise<TTenantSetting[]> {
  fake = await startFakeGraph({
    fixture: { ...buildGraphFixture(), settings },
    clientId: CLIENT_ID,
    clientSecret: SECRET,
  });
  return createMicrosoft365Adapter({
    credentials: { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET },
    endpoints: { graphBaseUrl: fake.url, loginBaseUrl: fake.url },
  }).tenantSettings();
}

/** Each check's outcome: pass, fail, or not evaluated when a setting it reads is unavailable. */
function outcomes(settings: TTenantSetting[]): Record<string, "pass" | "fail" | "not_evaluated"> {
  return Object.fromEntries(
    evaluateTenantChecks(MICROSOFT_365_CHECKS, settings).map((r) => [
      r.check.id,
      r.status === "unavailable" ? "not_evaluated" : r.status,
    ]),
  );
}

describe("CIS Microsoft 365 checks over the adapter's tenant settings (fake Graph)", () => {
  it("every check passes on the secure tenant", async () => {
    const result = outcomes(await tenantSettings(buildSecureGraphSettings()));
    expect(Object.keys(result)).toHaveLength(MICROSOFT_365_CHECKS.length);
    expect(Object.entries(result).filter(([, o]) => o !== "pass")).toEqual([]);
  });

  it("every check fails on the weak tenant", async () => {
    const result = outcomes(await tenantSettings(buildWeakGraphSettings()));
    expect(Object.entries(result).filter(([, o]) => o !== "fail")).toEqual([]);
  });

  it("a missing SharePoint permission leaves exactly the SharePoint checks unevaluated", async () => {
    const settings = await tenantSettings({
      ...buildWeakGraphSettings(),
      granted: ["Policy.Read.All", "RoleManagement.Read.Directory", "Domain.Read.All"],
    });
    const result = outcomes(settings);
    const notEvaluated = Object.entries(result)
      .filter(([, o]) => o === "not_evaluated")
      .map(([id]) => id)
      .sort();
    expect(notEvaluated).toEqual(
      [
        "m365_onedrive_sync_restricted",
        "m365_sharepoint_domain_restriction",
        "m365_sharepoint_external_sharing",
        "m365_sharepoint_guest_resharing",
        "m365_sharepoint_modern_auth",
      ].sort(),
    );
    expect(Object.values(result).filter((o) => o === "fail")).toHaveLength(MICROSOFT_365_CHECKS.length - 5);
  });

  it("without Entra ID P1 the Conditional Access checks are not evaluated, the others still are", async () => {
    const result = outcomes(await tenantSettings({ ...buildSecureGraphSettings(), entraIdP1: false }));
    const caChecks = MICROSOFT_365_CHECKS.filter((c) => c.settings.some((k) => k.startsWith("ca."))).map(
      (c) => c.id,
    );
    expect(caChecks.length).toBe(9);
    for (const id of caChecks) expect(result[id], id).toBe("not_evaluated");
    expect(Object.values(result).filter((o) => o === "pass")).toHaveLength(MICROSOFT_365_CHECKS.length - 9);
  });
});
