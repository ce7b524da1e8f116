import { beforeEach, describe, expect, it } from "vitest";
import { generateGithubApp } from "../../../fakes/src/fake-github-fixture";
import { createTestClock, useFakeGithub, type TTestClock } from "../../../fakes/src/fake-github-harness";
import { SourceAuthError } from "../types";
import { githubAppTokens, signAppJwt, TOKEN_REFRESH_MARGIN_MS } from "./auth";

const APP = generateGithubApp();
let clock: TTestClock;
beforeEach(() => {
  clock = createTestClock();
});
const start = useFakeGithub(APP, () => clock);

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString()) as Record<string, unknown>;

describe("signAppJwt", () => {
  it("signs RS256 with iat 60 s in the past and exp 10 minutes after iat", () => {
    const jwt = signAppJwt(APP, Date.UTC(2025, 5, 1, 12, 0, 0));
    const now = Date.UTC(2025, 5, 1, 12, 0, 0) / 1000;
    expect(JSON.parse(Buffer.from(jwt.split(".")[0] ?? "", "base64url").toString())).toEqual({
      alg: "RS256",
      typ: "JWT",
    });
    expect(claimsOf(jwt)).toEqual({ iat: now - 60, exp: now + 540, iss: String(APP.appId) });
  });
});

describe("githubAppTokens", () => {
  it("trades the app's JWT for an installation token and caches it until shortly before expires_at", async () => {
    const fake = await start();
    const tokens = githubAppTokens({ ...APP, installationId: 88 }, { baseUrl: fake.url, http: clock.http });
    const [first, concurrent] = await Promise.all([tokens.getToken(), tokens.getToken()]);
    expect(first).toMatch(/^ghs_[0-9a-f]{36}$/);
    expect(concurrent).toBe(first);
    expect(fake.jwts).toEqual([
      { iss: String(APP.appId), iat: clock.now() / 1000 - 60, exp: clock.now() / 1000 + 540 },
    ]);
    expect(await tokens.permissions()).toEqual({
      metadata: "read",
      members: "read",
      administration: "read",
      organization_administration: "read",
    });

    // Still outside the refresh margin: the same token, no exchange.
    clock.advance(3_600_000 - TOKEN_REFRESH_MARGIN_MS - 1000);
    expect(await tokens.getToken()).toBe(first);
    expect(fake.jwts).toHaveLength(1);

    // Inside the margin (4 minutes before expires_at): a new token, before the old one expires.
    clock.advance(2000);
    const second = await tokens.getToken();
    expect(second).not.toBe(first);
    expect(fake.tokens.map((t) => t.expiresAt - Date.UTC(2025, 5, 1, 12, 0, 0))).toEqual([
      3_600_000,
      3_600_000 * 2 - TOKEN_REFRESH_MARGIN_MS + 1000,
    ]);
    expect(fake.jwts).toHaveLength(2);
  });

  it("keeps a short-lived token for half its life rather than minting one a call", async () => {
    const fake = await start({ tokenTtlSec: 120 });
    const tokens = githubAppTokens({ ...APP, installationId: 88 }, { baseUrl: fake.url, http: clock.http });
    const first = await tokens.getToken();
    clock.advance(59_000);
    expect(await tokens.getToken()).toBe(first);
    clock.advance(2000);
    expect(await tokens.getToken()).not.toBe(first);
    expect(fake.tokens).toHaveLength(2);
  });

  it("refuses a wrong key, an unknown app and a missing installation with SourceAuthError", async () => {
    const fake = await start();
    const other = generateGithubApp(APP.appId);
    const wrongKey = githubAppTokens(
      { ...other, installationId: 88 },
      { baseUrl: fake.url, http: clock.http },
    );
    await expect(wrongKey.getToken()).rejects.toThrow(
      new SourceAuthError("GitHub: A JSON web token could not be decoded (HTTP 401)"),
    );
    const unknownApp = githubAppTokens(
      { ...APP, appId: 1, installationId: 88 },
      { baseUrl: fake.url, http: clock.http },
    );
    await expect(unknownApp.getToken()).rejects.toThrow(/'Issuer' claim \('iss'\) must be an Integer/);
    const gone = githubAppTokens({ ...APP, installationId: 404 }, { baseUrl: fake.url, http: clock.http });
    await expect(gone.getToken()).rejects.toThrow(
      new SourceAuthError("GitHub App installation 404: GitHub: Not Found (HTTP 404)"),
    );
    expect(fake.tokens).toEqual([]);
  });

  it("signs a fresh JWT after waiting out a rate limit on the token exchange", async () => {
    const fake = await start();
    fake.injectFault({ status: 429, count: 1, retryAfter: 30, pathPrefix: "/app/" });
    const tokens = githubAppTokens({ ...APP, installationId: 88 }, { baseUrl: fake.url, http: clock.http });
    await tokens.getToken();
    expect(clock.delays).toEqual([30_000]);
    const sent = fake.requests.map((r) => claimsOf(String(r.headers.authorization).slice(7)).iat);
    expect(sent).toEqual([clock.now() / 1000 - 30 - 60, clock.now() / 1000 - 60]);
  });
});
