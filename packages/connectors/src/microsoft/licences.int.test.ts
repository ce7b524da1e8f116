import { afterEach, describe, expect, it } from "vitest";
import { createJsonClient } from "../http/client";
import { collect, recordingSleep } from "../../../fakes/src/adapter-harness";
import { ALL_GRAPH_ROLES, startFakeGraph, type TFakeGraph } from "../../../fakes/src/fake-graph";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../../../fakes/src/graph-fixture";
import { createMicrosoft365Adapter } from "./adapter";
import { microsoftTokenProvider } from "./auth";

// Microsoft 365 Copilot licences (issue 30): GET /subscribedSkus names the Copilot SKUs, users'
// assignedLicenses say who holds one with a Copilot plan enabled.

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";
let fake: TFakeGraph | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function start(opts: { pageSize?: number; extraUsers?: number; grantedRoles?: string[] } = {}) {
  fake = await startFakeGraph({
    fixture: {
      ...buildGraphFixture({ extraUsers: opts.extraUsers }),
      ...(opts.grantedRoles ? { grantedRoles: opts.grantedRoles } : {}),
    },
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    pageSize: opts.pageSize,
  });
  return fake;
}

const adapterFor = (server: TFakeGraph, http = {}) =>
  createMicrosoft365Adapter({
    credentials: { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET },
    endpoints: { graphBaseUrl: server.url, loginBaseUrl: server.url, manageBaseUrl: server.url },
    http,
  });

describe("Copilot licences from Graph", () => {
  it("marks the users holding a Copilot SKU with a Copilot plan enabled, across pages", async () => {
    const server = await start({ pageSize: 1, extraUsers: 2 });
    const users = await collect(adapterFor(server).users());
    expect(users.map((u) => [u.id, u.assistants])).toEqual([
      ["m-admin", []],
      ["m-alice", ["copilot"]],
      // Copilot assigned, both Copilot plans disabled.
      ["m-bob", []],
      ["m-dave", []],
      ["m-extra-0", []],
      ["m-extra-1", []],
    ]);
    // Graph answers subscribedSkus whole (no paging); the users come one a page.
    const skuReads = server.requests.filter((r) => r.path === "/v1.0/subscribedSkus");
    expect(skuReads.map((r) => r.query.get("$select"))).toEqual(["skuId,skuPartNumber,servicePlans"]);
    const userPages = server.requests.filter(
      (r) => r.path === "/v1.0/users" && r.query.get("$select")?.includes("signInActivity"),
    );
    expect(userPages).toHaveLength(6);
    expect(userPages.every((r) => r.query.get("$select")?.includes("assignedLicenses"))).toBe(true);
    expect(userPages.slice(1).every((r) => r.query.get("$skiptoken"))).toBe(true);
  });

  it("retries a 429 on subscribedSkus after its Retry-After", async () => {
    const server = await start();
    server.injectFault({ status: 429, count: 1, retryAfter: 2, pathPrefix: "/v1.0/subscribedSkus" });
    const { delays, http } = recordingSleep();
    const users = await collect(adapterFor(server, http).users());
    expect(users.find((u) => u.id === "m-alice")?.assistants).toEqual(["copilot"]);
    expect(delays).toEqual([2000]);
  });

  it("is a coverage gap, not a failure, without a licence permission", async () => {
    const server = await start({
      grantedRoles: ALL_GRAPH_ROLES.filter(
        (r) => !["Organization.Read.All", "LicenseAssignment.Read.All", "Directory.Read.All"].includes(r),
      ),
    });
    const adapter = adapterFor(server);
    const users = await collect(adapter.users());
    expect(users).toHaveLength(4);
    expect(users.every((u) => u.assistants === undefined)).toBe(true);
    expect(adapter.coverageGaps().filter((g) => g.feature === "AI assistant licences")).toEqual([
      expect.objectContaining({ feature: "AI assistant licences", missing: "Organization.Read.All" }),
    ]);
  });

  it("the fake refuses what Graph refuses on subscribedSkus: an unknown property or option", async () => {
    const server = await start();
    const graph = createJsonClient({
      baseUrl: server.url,
      tokens: microsoftTokenProvider(
        { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET },
        { loginBaseUrl: server.url },
      ),
      source: "Microsoft 365",
    });
    await expect(graph.get("/v1.0/subscribedSkus", { $select: "skuId,copilotSeats" })).rejects.toMatchObject({
      status: 400,
    });
    await expect(graph.get("/v1.0/subscribedSkus", { $filter: "skuId eq 'x'" })).rejects.toMatchObject({
      status: 400,
    });
  });
});
