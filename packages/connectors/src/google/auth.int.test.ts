import { afterEach, describe, expect, it } from "vitest";
import { ALL_CONNECTOR_SCOPES, startFakeGoogle, type TFakeGoogle } from "../../../fakes/src/fake-google";
import { buildGoogleFixture, generateServiceAccount } from "../../../fakes/src/google-fixture";
import { SourceAuthError } from "../types";
import { GOOGLE_SCOPE } from "./access";
import { googleTokens } from "./auth";

const ACCOUNT = generateServiceAccount("admin@acme.test");

let fake: TFakeGoogle | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function start(authorizedScopes: readonly string[]) {
  fake = await startFakeGoogle({
    fixture: buildGoogleFixture(),
    serviceAccounts: [{ clientEmail: ACCOUNT.credentials.clientEmail, publicKey: ACCOUNT.publicKey }],
    authorizedScopes,
  });
  return googleTokens(ACCOUNT.credentials, { tokenUrl: fake.tokenUrl });
}

describe("googleTokens", () => {
  it("caches one token per subject and scope set, impersonating the subject asked for", async () => {
    const tokens = await start(ALL_CONNECTOR_SCOPES);
    const alice = await tokens.as("alice@acme.test", [GOOGLE_SCOPE.drive]).getToken();
    expect(await tokens.as("Alice@acme.test", [GOOGLE_SCOPE.drive]).getToken()).toBe(alice);
    const admin = await tokens.as("admin@acme.test", [GOOGLE_SCOPE.drive]).getToken();
    expect(admin).not.toBe(alice);
    expect(fake?.grants).toEqual([
      { subject: "alice@acme.test", scopes: [GOOGLE_SCOPE.drive] },
      { subject: "admin@acme.test", scopes: [GOOGLE_SCOPE.drive] },
    ]);
  });

  it("asGranted falls back to the delegated scopes when one of them is not delegated", async () => {
    const tokens = await start(ALL_CONNECTOR_SCOPES.filter((s) => s !== GOOGLE_SCOPE.reports));
    await expect(
      tokens.as("admin@acme.test", [GOOGLE_SCOPE.users, GOOGLE_SCOPE.reports]).getToken(),
    ).rejects.toThrow(SourceAuthError);
    expect(
      await tokens.asGranted("admin@acme.test", [GOOGLE_SCOPE.users, GOOGLE_SCOPE.reports]).getToken(),
    ).toMatch(/^ya29\./);
    expect(fake?.grants.at(-1)).toEqual({ subject: "admin@acme.test", scopes: [GOOGLE_SCOPE.users] });
  });

  it("asGranted still refuses when no scope at all is delegated", async () => {
    const tokens = await start([GOOGLE_SCOPE.users]);
    await expect(
      tokens.asGranted("admin@acme.test", [GOOGLE_SCOPE.labels, GOOGLE_SCOPE.reports]).getToken(),
    ).rejects.toThrow(/Client is unauthorized/);
  });
});
