import { afterEach, describe, expect, it } from "vitest";
import { createSourceAdapter } from "./factory";
import { startFakeGoogle, type TFakeGoogle } from "../../fakes/src/fake-google";
import { startFakeGraph, type TFakeGraph } from "../../fakes/src/fake-graph";
import { buildGoogleFixture, generateServiceAccount } from "../../fakes/src/google-fixture";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../../fakes/src/graph-fixture";

const fakes: Array<TFakeGoogle | TFakeGraph> = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

describe("createSourceAdapter in real mode against the fakes", () => {
  it("reads a Google Workspace tenant through a service account", async () => {
    const account = generateServiceAccount("admin@acme.test");
    const fake = await startFakeGoogle({
      fixture: buildGoogleFixture(),
      serviceAccounts: [{ clientEmail: account.credentials.clientEmail, publicKey: account.publicKey }],
    });
    fakes.push(fake);
    const adapter = createSourceAdapter({
      type: "google_workspace",
      mode: "real",
      connectorId: "conn-g",
      credentials: account.credentials,
      config: { domain: "acme.test" },
      endpoints: { google: fake.endpoints },
    });
    expect(await adapter.workspace()).toEqual({ domain: "acme.test", internalDomains: ["acme.test"] });
    const users: string[] = [];
    for await (const user of adapter.users()) users.push(user.email);
    expect(users).toEqual(["admin@acme.test", "alice@acme.test", "bob@acme.test", "dave@acme.test"]);
  });

  it("reads a Microsoft 365 tenant through client credentials", async () => {
    const clientId = "aaaaaaaa-0000-0000-0000-000000000001";
    const fake = await startFakeGraph({ fixture: buildGraphFixture(), clientId, clientSecret: "secret" });
    fakes.push(fake);
    const adapter = createSourceAdapter({
      type: "microsoft_365",
      mode: "real",
      connectorId: "conn-m",
      credentials: { tenantId: GRAPH_TENANT_ID, clientId, clientSecret: "secret" },
      config: {},
      endpoints: { microsoft: { graphBaseUrl: fake.url, loginBaseUrl: fake.url, manageBaseUrl: fake.url } },
    });
    const grants: string[] = [];
    for await (const grant of adapter.appGrants()) grants.push(grant.label);
    expect(grants.sort()).toEqual([
      "ChatGPT Connector",
      "Free Mail Merge",
      "Mailbox Archiver Daemon",
      "Microsoft Graph",
      "backup-identity",
    ]);
  });
});
