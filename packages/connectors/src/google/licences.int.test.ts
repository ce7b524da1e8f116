import { afterEach, describe, expect, it } from "vitest";
import { createJsonClient } from "../http/client";
import { collect, recordingSleep } from "../../../fakes/src/adapter-harness";
import { ALL_CONNECTOR_SCOPES, startFakeGoogle, type TFakeGoogle } from "../../../fakes/src/fake-google";
import { buildGoogleFixture, generateServiceAccount } from "../../../fakes/src/google-fixture";
import { GOOGLE_SCOPE } from "./access";
import { createGoogleWorkspaceAdapter } from "./adapter";

// Gemini licences (issue 30): Enterprise License Manager licenseAssignments.listForProduct of the
// Gemini product, for the users' customer.

let fake: TFakeGoogle | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

const ACCOUNT = generateServiceAccount("admin@acme.test");

async function start(
  opts: { pageSize?: number; extraUsers?: number; authorizedScopes?: readonly string[] } = {},
) {
  fake = await startFakeGoogle({
    fixture: buildGoogleFixture({ extraUsers: opts.extraUsers }),
    serviceAccounts: [{ clientEmail: ACCOUNT.credentials.clientEmail, publicKey: ACCOUNT.publicKey }],
    ...(opts.pageSize ? { pageSize: opts.pageSize } : {}),
    ...(opts.authorizedScopes ? { authorizedScopes: opts.authorizedScopes } : {}),
  });
  return fake;
}

const adapterFor = (server: TFakeGoogle, http = {}) =>
  createGoogleWorkspaceAdapter({ credentials: ACCOUNT.credentials, endpoints: server.endpoints, http });

const LICENCES = "/apps/licensing/v1/product/101047/users";

describe("Gemini licences from the Enterprise License Manager", () => {
  it("marks the users holding a Gemini SKU, reading every page of the assignments", async () => {
    const server = await start({ pageSize: 1 });
    const users = await collect(adapterFor(server).users());
    expect(users.map((u) => [u.email, u.assistants])).toEqual([
      ["admin@acme.test", []],
      ["alice@acme.test", ["gemini"]],
      ["bob@acme.test", ["gemini"]],
      // Another product's licence is not Gemini.
      ["dave@acme.test", []],
    ]);
    const reads = server.requests.filter((r) => r.path === LICENCES);
    expect(reads).toHaveLength(2);
    expect(reads.map((r) => r.query.get("customerId"))).toEqual(["C0abc", "C0abc"]);
    expect(reads[1]?.query.get("pageToken")).toBeTruthy();
  });

  it("retries a 429 after its Retry-After", async () => {
    const server = await start();
    server.injectFault({ status: 429, count: 1, retryAfter: 3, pathPrefix: LICENCES });
    const { delays, http } = recordingSleep();
    const users = await collect(adapterFor(server, http).users());
    expect(users.find((u) => u.email === "alice@acme.test")?.assistants).toEqual(["gemini"]);
    expect(delays).toEqual([3000]);
  });

  it("is a coverage gap, not a failure, without the licensing scope", async () => {
    const server = await start({
      authorizedScopes: ALL_CONNECTOR_SCOPES.filter((s) => s !== GOOGLE_SCOPE.licensing),
    });
    const adapter = adapterFor(server);
    const users = await collect(adapter.users());
    expect(users).toHaveLength(4);
    expect(users.every((u) => u.assistants === undefined)).toBe(true);
    expect(adapter.coverageGaps()).toEqual([
      expect.objectContaining({ feature: "AI assistant licences (Gemini)", missing: GOOGLE_SCOPE.licensing }),
    ]);
  });

  it("the fake refuses what the Discovery description refuses", async () => {
    const server = await start();
    const adapter = adapterFor(server);
    await collect(adapter.users());
    const { http } = recordingSleep();
    // A client holding the licensing scope, as the adapter's own: an unknown parameter and a
    // missing customerId are Google's 400s.
    const index = server.grants.findIndex((g) => g.scopes.includes(GOOGLE_SCOPE.licensing));
    expect(index).toBeGreaterThanOrEqual(0);
    const token = server.issuedTokens[index] ?? "";
    const licensing = createJsonClient({
      source: "Google Workspace",
      baseUrl: server.url,
      tokens: { getToken: async () => token, invalidate: () => undefined },
      http,
    });
    await expect(licensing.get(LICENCES, { customerId: "C0abc", skuId: "1010470003" })).rejects.toMatchObject(
      { status: 400 },
    );
    await expect(licensing.get(LICENCES, {})).rejects.toMatchObject({ status: 400 });
  });
});
