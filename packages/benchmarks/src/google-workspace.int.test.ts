import { afterEach, describe, expect, it } from "vitest";
import { createGoogleWorkspaceAdapter } from "@posture/connectors";
import { startFakeGoogle, type TFakeGoogle } from "@posture/fakes/google";
import { buildGoogleFixture } from "@posture/fakes/google-fixture";
import { POLICIES_SCOPE, withGoogleTenant } from "@posture/fakes/google-settings";
import { evaluateTenantChecks } from "./evaluate";
import { GOOGLE_WORKSPACE_CHECKS } from "./google-workspace";

const TOKEN = "static-test-token";

let fake: TFakeGoogle | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

/** Reads the tenant's settings end to end (adapter → fake Policy API and Directory) and runs every check. */
async function evaluate(
  tenant: "secure" | "weak",
  opts: { superAdmins?: number; withheldScopes?: string[] } = {},
) {
  fake = await startFakeGoogle({
    fixture: withGoogleTenant(buildGoogleFixture(), tenant, opts),
    accessToken: TOKEN,
  });
  const adapter = createGoogleWorkspaceAdapter({
    credentials: { accessToken: TOKEN },
    endpoints: {
      driveBaseUrl: fake.url,
      adminBaseUrl: fake.url,
      cloudIdentityBaseUrl: fake.url,
      tokenUrl: fake.tokenUrl,
    },
  });
  return evaluateTenantChecks(GOOGLE_WORKSPACE_CHECKS, await adapter.tenantSettings()).map((r) => ({
    id: r.check.id,
    evaluated: r.status !== "unavailable",
    passed: r.status === "pass",
  }));
}

describe("Google Workspace CIS checks over the fake tenant's settings", () => {
  it("passes every check on the secure tenant", async () => {
    const results = await evaluate("secure");
    expect(results.filter((r) => !r.evaluated)).toEqual([]);
    expect(results.filter((r) => !r.passed).map((r) => r.id)).toEqual([]);
  });

  it("fails every check on the weak tenant (the upper super-admin bound with five of them)", async () => {
    const results = await evaluate("weak");
    expect(results.filter((r) => !r.evaluated)).toEqual([]);
    expect(results.filter((r) => r.passed).map((r) => r.id)).toEqual(["gws_super_admins_at_most_four"]);

    await fake?.close();
    const crowded = await evaluate("weak", { superAdmins: 5 });
    expect(crowded.find((r) => r.id === "gws_super_admins_at_most_four")).toMatchObject({ passed: false });
    expect(crowded.find((r) => r.id === "gws_super_admins_at_least_two")).toMatchObject({ passed: true });
  });

  it("skips exactly the Policy API checks when its scope is withheld", async () => {
    const results = await evaluate("secure", { withheldScopes: [POLICIES_SCOPE] });
    const skipped = results.filter((r) => !r.evaluated).map((r) => r.id);
    const directoryOnly = GOOGLE_WORKSPACE_CHECKS.filter((c) =>
      c.settings.every((k) => k.startsWith("directory.")),
    );
    expect(skipped.sort()).toEqual(
      GOOGLE_WORKSPACE_CHECKS.filter((c) => !directoryOnly.includes(c))
        .map((c) => c.id)
        .sort(),
    );
    expect(results.filter((r) => r.evaluated).every((r) => r.passed)).toBe(true);
  });
});
