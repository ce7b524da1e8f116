import { afterEach, describe, expect, it } from "vitest";
import { ALL_CONNECTOR_SCOPES, startFakeGoogle, type TFakeGoogle } from "../../../fakes/src/fake-google";
import { buildGoogleFixture, generateServiceAccount } from "../../../fakes/src/google-fixture";
import { GOOGLE_ACCESS, GOOGLE_FEATURE, GOOGLE_SCOPE } from "./access";
import { createGoogleWorkspaceAdapter } from "./adapter";
import { type TGoogleCredentials } from "./auth";

const TOKEN = "static-admin-token";
const ACCOUNT = generateServiceAccount("admin@acme.test");

let fake: TFakeGoogle | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function checkAccess(
  opts: Partial<Parameters<typeof startFakeGoogle>[0]>,
  credentials: TGoogleCredentials = ACCOUNT.credentials,
) {
  fake = await startFakeGoogle({
    fixture: buildGoogleFixture(),
    accessToken: TOKEN,
    serviceAccounts: [{ clientEmail: ACCOUNT.credentials.clientEmail, publicKey: ACCOUNT.publicKey }],
    ...opts,
  });
  const adapter = createGoogleWorkspaceAdapter({ credentials, endpoints: fake.endpoints });
  return adapter.checkAccess();
}

describe("checkAccess through domain-wide delegation", () => {
  it("grants every requirement when the delegation lists every scope", async () => {
    const checks = await checkAccess({});
    expect(checks).toHaveLength(GOOGLE_ACCESS.length);
    expect(checks.every((c) => c.granted)).toBe(true);
    // Each scope asked for alone, as the admin, once.
    expect(fake?.grants.map((g) => g.scopes).sort()).toEqual(ALL_CONNECTOR_SCOPES.map((s) => [s]).sort());
    expect(new Set(fake?.grants.map((g) => g.subject))).toEqual(new Set(["admin@acme.test"]));
  });

  it("answers granted: false for exactly the scope missing from the delegation", async () => {
    const checks = await checkAccess({
      authorizedScopes: ALL_CONNECTOR_SCOPES.filter((s) => s !== GOOGLE_SCOPE.labels),
    });
    const refused = checks.filter((c) => !c.granted);
    expect(refused).toEqual([
      {
        ...GOOGLE_ACCESS.find((r) => r.feature === GOOGLE_FEATURE.labels),
        granted: false,
        detail: expect.stringContaining(
          "Client is unauthorized to retrieve access tokens using this method, or client not authorized " +
            "for any of the scopes requested.",
        ),
      },
    ]);
  });

  it("marks both features of a shared scope when it is missing", async () => {
    const checks = await checkAccess({
      authorizedScopes: ALL_CONNECTOR_SCOPES.filter((s) => s !== GOOGLE_SCOPE.drive),
    });
    expect(checks.filter((c) => !c.granted).map((c) => c.feature)).toEqual([
      GOOGLE_FEATURE.files,
      GOOGLE_FEATURE.sharedDrives,
    ]);
  });
});

describe("checkAccess with a bare access token (tokeninfo)", () => {
  it("reads the token's scopes; a read-write scope covers its read-only one", async () => {
    const scopes = ALL_CONNECTOR_SCOPES.filter((s) => s !== GOOGLE_SCOPE.reports && s !== GOOGLE_SCOPE.drive);
    const checks = await checkAccess(
      { accessTokenScopes: [...scopes, "https://www.googleapis.com/auth/drive"] },
      { accessToken: TOKEN },
    );
    expect(checks.filter((c) => !c.granted)).toEqual([
      {
        ...GOOGLE_ACCESS.find((r) => r.feature === GOOGLE_FEATURE.activity),
        granted: false,
        detail: "The access token does not carry this scope",
      },
    ]);
    expect(fake?.requests.filter((r) => r.path === "/tokeninfo")).toHaveLength(1);
  });

  it("answers granted: false everywhere for a token Google does not know", async () => {
    const checks = await checkAccess({}, { accessToken: "revoked-token" });
    expect(checks.every((c) => !c.granted && c.detail?.includes("Invalid Value"))).toBe(true);
  });
});
