import { afterEach, describe, expect, it } from "vitest";
import { collect, recordingSleep } from "../../../fakes/src/adapter-harness";
import {
  ALL_GRAPH_ROLES,
  startFakeGraph,
  type TFakeGraph,
  type TGraphFixture,
} from "../../../fakes/src/fake-graph";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../../../fakes/src/graph-fixture";
import { type THttpOptions } from "../http/client";
import { createMicrosoft365Adapter } from "./adapter";

// Agents from Graph v1.0's own registries (issue 30): agent identities and blueprints' service
// principals, the Copilot admin catalog's packages; application permissions → `application`,
// delegated consents → `delegated`.

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";
const FILES_READ_ALL = "01d4889c-1287-42c6-ac1f-5d1e02578ef6";

let fake: TFakeGraph | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

/** The base tenant plus an agent identity, a blueprint principal and the Copilot catalog. */
function registryFixture(): TGraphFixture {
  const base = buildGraphFixture();
  const agent = {
    id: "sp-agent-contracts",
    appId: "app-agent-contracts",
    displayName: "Contract Review Agent",
    appOwnerOrganizationId: GRAPH_TENANT_ID,
    servicePrincipalType: "ServiceIdentity",
    verifiedPublisher: null,
  };
  const blueprint = {
    id: "sp-blueprint-helpdesk",
    appId: "app-blueprint-helpdesk",
    displayName: "Helpdesk Agent Blueprint",
    appOwnerOrganizationId: "99999999-0000-0000-0000-000000000003",
    servicePrincipalType: "Application",
    verifiedPublisher: null,
  };
  const research = {
    id: "sp-research",
    appId: "app-research",
    displayName: "Research Assistant",
    appOwnerOrganizationId: "99999999-0000-0000-0000-000000000004",
    servicePrincipalType: "Application",
    verifiedPublisher: null,
  };
  return {
    ...base,
    servicePrincipals: [...base.servicePrincipals, agent, blueprint, research],
    agentIdentities: [{ ...agent, agentIdentityBlueprintId: "bp-contracts" }],
    agentBlueprintPrincipals: [blueprint],
    permissionGrants: [
      ...base.permissionGrants,
      {
        id: "g-helpdesk",
        clientId: "sp-blueprint-helpdesk",
        consentType: "Principal",
        principalId: "m-bob",
        resourceId: "sp-graph",
        scope: "Files.Read.All",
      },
      {
        id: "g-research",
        clientId: "sp-research",
        consentType: "Principal",
        principalId: "m-alice",
        resourceId: "sp-graph",
        scope: "Sites.Read.All",
      },
    ],
    appRoleAssignments: [
      ...base.appRoleAssignments,
      {
        id: "ar-agent",
        appRoleId: FILES_READ_ALL,
        principalId: "sp-agent-contracts",
        principalType: "ServicePrincipal",
        resourceId: "sp-graph",
        createdDateTime: "2026-06-01T09:00:00Z",
      },
    ],
    copilotPackages: [
      {
        id: "P_sales-coach",
        appId: "app-sales-coach",
        displayName: "Sales Coach",
        publisher: "Contoso",
        type: "custom",
        elementTypes: ["DeclarativeAgent"],
        isBlocked: false,
        availableTo: "some",
        deployedTo: "some",
        createdDateTime: "2026-05-01T12:00:00Z",
      },
      // Holds a delegated consent of its own: listed once, by that grant.
      {
        id: "P_research",
        appId: "app-research",
        displayName: "Research Assistant",
        publisher: "Research Labs",
        type: "external",
        elementTypes: ["CustomEngineCopilot", "Bot"],
        isBlocked: false,
        availableTo: "all",
        deployedTo: "all",
        createdDateTime: "2026-04-01T12:00:00Z",
      },
      // A bot is not an agent; a blocked agent reaches nothing.
      {
        id: "P_bot",
        appId: "app-bot",
        displayName: "Lunch Bot",
        type: "external",
        elementTypes: ["Bot"],
        isBlocked: false,
      },
      {
        id: "P_blocked",
        appId: "app-blocked",
        displayName: "Blocked Agent",
        type: "external",
        elementTypes: ["DeclarativeAgent"],
        isBlocked: true,
      },
    ],
  };
}

async function start(opts: { pageSize?: number; grantedRoles?: string[] } = {}) {
  fake = await startFakeGraph({
    fixture: { ...registryFixture(), ...(opts.grantedRoles ? { grantedRoles: opts.grantedRoles } : {}) },
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    pageSize: opts.pageSize,
  });
  return fake;
}

function adapterFor(server: TFakeGraph, http: THttpOptions = {}) {
  return createMicrosoft365Adapter({
    credentials: { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET },
    endpoints: { graphBaseUrl: server.url, loginBaseUrl: server.url, manageBaseUrl: server.url },
    http,
  });
}

const summary = (grants: Array<{ id: string; kind: string; access?: string; agentSource?: string }>) =>
  Object.fromEntries(grants.map((g) => [g.id, [g.kind, g.access ?? null, g.agentSource ?? null]]));

describe("Microsoft 365 agents from Graph's registries", () => {
  it("marks registry agents, with application permissions as application and consents as delegated", async () => {
    const server = await start();
    const grants = await collect(adapterFor(server).appGrants());
    expect(summary(grants)).toEqual({
      "approle:sp-archiver:sp-graph": ["service_account", "application", null],
      "approle:sp-agent-contracts:sp-graph": ["ai_agent", "application", "agent_registry"],
      "g-chatgpt": ["ai_agent", "delegated", "publisher_catalog"],
      "g-mailmerge": ["oauth_app", "delegated", null],
      "g-mi": ["service_account", "delegated", null],
      "g-graph": ["oauth_app", "delegated", null],
      "g-helpdesk": ["ai_agent", "delegated", "agent_registry"],
      "g-research": ["ai_agent", "delegated", "copilot_catalog"],
      "copilot:P_sales-coach": ["ai_agent", "delegated", "copilot_catalog"],
    });
    expect(grants.find((g) => g.id === "copilot:P_sales-coach")).toEqual({
      id: "copilot:P_sales-coach",
      clientId: "app-sales-coach",
      label: "Sales Coach",
      kind: "ai_agent",
      agentSource: "copilot_catalog",
      access: "delegated",
      publisher: "Contoso",
      isKnownPublisher: true,
      scopes: [],
      userEmail: "",
      grantedAt: "2026-05-01T12:00:00Z",
    });
    expect(grants.find((g) => g.id === "approle:sp-agent-contracts:sp-graph")).toMatchObject({
      label: "Contract Review Agent",
      scopes: ["Files.Read.All"],
      userEmail: "",
      publisher: "This organization",
    });
    // Each registry is asked with a $select of v1.0 properties only (the fake refuses others).
    const paths = server.requests.map((r) => r.path);
    expect(paths).toContain("/v1.0/servicePrincipals/microsoft.graph.agentIdentity");
    expect(paths).toContain("/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal");
    expect(paths).toContain("/v1.0/copilot/admin/catalog/packages");
  });

  it("pages every registry (@odata.nextLink) and agrees with the unpaged read", async () => {
    const whole = summary(await collect(adapterFor(await start()).appGrants()));
    await fake?.close();
    const server = await start({ pageSize: 1 });
    const paged = await collect(adapterFor(server).appGrants());
    expect(summary(paged)).toEqual(whole);
    const pages = (path: string) => server.requests.filter((r) => r.path === path).length;
    expect(pages("/v1.0/copilot/admin/catalog/packages")).toBe(4);
    expect(pages("/v1.0/servicePrincipals/microsoft.graph.agentIdentity")).toBe(1);
    expect(server.requests.some((r) => r.query.has("$skiptoken"))).toBe(true);
  });

  it("waits out a 429 with Retry-After on each registry", async () => {
    const server = await start();
    server.injectFault({
      status: 429,
      count: 1,
      retryAfter: 2,
      pathPrefix: "/v1.0/copilot/admin/catalog/packages",
    });
    server.injectFault({
      status: 429,
      count: 1,
      retryAfter: 1,
      pathPrefix: "/v1.0/servicePrincipals/microsoft.graph.agentIdentity",
    });
    const { delays, http } = recordingSleep();
    const grants = await collect(adapterFor(server, http).appGrants());
    expect([...delays].sort()).toEqual([1000, 2000]);
    expect(summary(grants)["approle:sp-agent-contracts:sp-graph"]).toEqual([
      "ai_agent",
      "application",
      "agent_registry",
    ]);
    expect(summary(grants)["copilot:P_sales-coach"]).toEqual(["ai_agent", "delegated", "copilot_catalog"]);
  });

  it("without the registries' permissions reports each as a gap and keeps the grants", async () => {
    const server = await start({
      grantedRoles: ALL_GRAPH_ROLES.filter(
        (r) =>
          ![
            "AgentIdentity.Read.All",
            "AgentIdentityBlueprintPrincipal.Read.All",
            "CopilotPackages.Read.All",
          ].includes(r),
      ),
    });
    const adapter = adapterFor(server);
    const grants = summary(await collect(adapter.appGrants()));
    expect(grants["approle:sp-agent-contracts:sp-graph"]).toEqual(["service_account", "application", null]);
    expect(grants["g-helpdesk"]).toEqual(["oauth_app", "delegated", null]);
    expect(grants["g-chatgpt"]).toEqual(["ai_agent", "delegated", "publisher_catalog"]);
    expect(grants["copilot:P_sales-coach"]).toBeUndefined();
    expect(adapter.coverageGaps().map((g) => [g.feature, g.missing])).toEqual([
      ["Agents: Entra agent identities", "AgentIdentity.Read.All"],
      ["Agents: agent blueprints", "AgentIdentityBlueprintPrincipal.Read.All"],
      ["Agents: Copilot admin catalog", "CopilotPackages.Read.All"],
    ]);
  });
});

describe("a tenant whose Copilot catalog answers 404", () => {
  it("keeps the other registries and the grants, and reports the catalog as a gap", async () => {
    const server = await start();
    server.injectFault({ status: 404, count: 1, pathPrefix: "/v1.0/copilot/admin/catalog/packages" });
    const adapter = adapterFor(server);
    const grants = summary(await collect(adapter.appGrants()));
    expect(grants["approle:sp-agent-contracts:sp-graph"]).toEqual([
      "ai_agent",
      "application",
      "agent_registry",
    ]);
    expect(grants["g-research"]).toEqual(["oauth_app", "delegated", null]);
    expect(grants["copilot:P_sales-coach"]).toBeUndefined();
    expect(adapter.coverageGaps().map((g) => [g.feature, g.missing])).toEqual([
      ["Agents: Copilot admin catalog", "CopilotPackages.Read.All"],
    ]);
  });
});

describe("the fake Graph's registries", () => {
  it("refuses a $select Graph v1.0 does not declare with Graph's 400 body, and $top on the catalog", async () => {
    const server = await start();
    const token = await fetch(`${server.url}/${GRAPH_TENANT_ID}/oauth2/v2.0/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: CLIENT_ID,
        client_secret: SECRET,
        scope: "https://graph.microsoft.com/.default",
      }).toString(),
    }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);
    const get = async (path: string) => {
      const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      return {
        status: response.status,
        body: (await response.json()) as { error?: { code: string; message: string } },
      };
    };
    // `publisherName` is beta-only; `sponsors` is a navigation property, not a structural one.
    expect(
      await get("/v1.0/servicePrincipals/microsoft.graph.agentIdentity?$select=id,publisherName"),
    ).toMatchObject({
      status: 400,
      body: {
        error: {
          code: "BadRequest",
          message: "Could not find a property named 'publisherName' on type 'microsoft.graph.agentIdentity'.",
        },
      },
    });
    expect((await get("/v1.0/copilot/admin/catalog/packages?$select=id,manifest")).status).toBe(400);
    expect((await get("/v1.0/copilot/admin/catalog/packages?$top=5")).body.error?.message).toBe(
      "Query option '$top' is not supported on this resource.",
    );
    const ok = await get(
      "/v1.0/servicePrincipals/microsoft.graph.agentIdentity?$select=id,agentIdentityBlueprintId",
    );
    expect(ok).toMatchObject({
      status: 200,
      body: { value: [{ id: "sp-agent-contracts", agentIdentityBlueprintId: "bp-contracts" }] },
    });
  });
});
