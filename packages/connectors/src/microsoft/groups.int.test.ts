import { afterEach, describe, expect, it } from "vitest";
import { createJsonClient, type THttpOptions } from "../http/client";
import { SourceHttpError } from "../http/errors";
import { collect, groupsOf, recordingSleep } from "../../../fakes/src/adapter-harness";
import { ALL_GRAPH_ROLES, startFakeGraph, type TFakeGraph } from "../../../fakes/src/fake-graph";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../../../fakes/src/graph-fixture";
import { ALL_COMPANY_ID, withGroupGrants } from "../../../fakes/src/graph-groups-fixture";
import { type TSourceGroup } from "../types";
import { MS_FEATURE } from "./access";
import { createMicrosoft365Adapter } from "./adapter";
import { microsoftTokenProvider } from "./auth";

// Directory groups (issue 30): GET /groups and each group's transitiveMembers/$count against the
// Graph fake, which pages with @odata.nextLink, throttles, expires tokens, and refuses `$count`
// without `ConsistencyLevel: eventual` and `$select` of a property v1.0's group does not declare.

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";

let fake: TFakeGraph | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function start(opts: { pageSize?: number; now?: () => number; grantedRoles?: string[] } = {}) {
  const fixture = withGroupGrants(buildGraphFixture());
  fake = await startFakeGraph({
    fixture: { ...fixture, ...(opts.grantedRoles ? { grantedRoles: opts.grantedRoles } : {}) },
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    pageSize: opts.pageSize,
    now: opts.now,
    tokenTtlSec: 3600,
  });
  return fake;
}

const credentials = { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET };
const adapterFor = (server: TFakeGraph, http: THttpOptions = {}) =>
  createMicrosoft365Adapter({
    credentials,
    endpoints: { graphBaseUrl: server.url, loginBaseUrl: server.url, manageBaseUrl: server.url },
    http,
  });

const TEAMS = Array.from({ length: 6 }, (_, i) => ({
  id: `grp-team-${i + 1}`,
  email: `team${i + 1}@contoso.test`,
  name: `Team ${i + 1}`,
  memberCount: 1,
}));
/** Users only, each once: All Company's 10 (its device and nested groups are no one). */
const EXPECTED: TSourceGroup[] = [
  { id: ALL_COMPANY_ID, email: "allcompany@contoso.test", name: "All Company", memberCount: 10 },
  { id: "grp-eng", email: "engineering@contoso.test", name: "Engineering", memberCount: 6 },
  { id: "grp-sales", email: "sales@contoso.test", name: "Sales", memberCount: 4 },
  ...TEAMS,
];

const listCalls = (server: TFakeGraph) => server.requests.filter((r) => r.path === "/v1.0/groups");
const countCalls = (server: TFakeGraph) => server.requests.filter((r) => r.path.endsWith("/$count"));

describe("Microsoft 365 groups against the fake Graph", () => {
  it("pages GET /groups by nextLink and counts each mail-enabled group's users as an advanced query", async () => {
    const server = await start({ pageSize: 4 });
    expect(await collect(groupsOf(adapterFor(server)))).toEqual(EXPECTED);
    // 10 groups, 4 a page: 3 pages; the next links carry the query whole.
    const listed = listCalls(server);
    expect(listed).toHaveLength(3);
    expect(listed.map((r) => r.query.get("$select"))).toEqual(Array(3).fill("id,displayName,mail"));
    expect(listed.map((r) => r.query.get("$skiptoken") === null)).toEqual([true, false, false]);
    // One count per mail-enabled group (the security group without mail is not counted), each
    // with the header Graph needs.
    const counts = countCalls(server);
    expect(counts.map((r) => r.path).sort()).toEqual(
      EXPECTED.map((g) => `/v1.0/groups/${g.id}/transitiveMembers/microsoft.graph.user/$count`).sort(),
    );
    expect(counts.every((r) => r.headers.consistencylevel === "eventual")).toBe(true);
  });

  it("gives a file's grant to an Entra group the group's mail, so reach and the rules find it", async () => {
    const server = await start();
    const files = await collect(adapterFor(server).files());
    const grants = files
      .filter((f) => f.id === "a-roadmap" || f.id === "a-pipeline")
      .map((f) => ({ id: f.id, permissions: f.permissions }));
    expect(grants).toEqual([
      {
        id: "a-roadmap",
        permissions: [
          { id: "perm-all", type: "group", role: "reader", emailAddress: "allcompany@contoso.test" },
        ],
      },
      {
        id: "a-pipeline",
        permissions: [
          { id: "perm-sales", type: "group", role: "writer", emailAddress: "sales@contoso.test" },
        ],
      },
    ]);
    // The groups were listed once for the files' grants; no count was needed for them.
    expect(listCalls(server)).toHaveLength(1);
    expect(countCalls(server)).toHaveLength(0);
  });

  it("waits out a 429 on a count with its Retry-After, then reads the same groups", async () => {
    const server = await start();
    server.injectFault({ status: 429, count: 1, retryAfter: 3, pathPrefix: "/v1.0/groups/grp-eng/" });
    const { delays, http } = recordingSleep();
    expect(await collect(groupsOf(adapterFor(server, http)))).toEqual(EXPECTED);
    expect(delays).toEqual([3000]);
    expect(countCalls(server).filter((r) => r.path.startsWith("/v1.0/groups/grp-eng/"))).toHaveLength(2);
  });

  it("takes a fresh token when Graph answers 401 for an expired one mid-listing", async () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const server = await start({ now: () => clock });
    const iterator = groupsOf(adapterFor(server))[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toEqual(EXPECTED[0]);
    // The fake's clock moves past the token's hour; the adapter's own does not, so it sends it
    // with the second round's one count, which Graph answers 401.
    clock += 2 * 3600 * 1000;
    const read: TSourceGroup[] = [first.value as TSourceGroup];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) read.push(next.value);
    expect(read).toEqual(EXPECTED);
    expect(server.issuedTokens).toHaveLength(2);
  });

  it("is a coverage gap, and group grants without address, when no group permission is granted", async () => {
    const server = await start({
      grantedRoles: ALL_GRAPH_ROLES.filter((r) => r !== "GroupMember.Read.All" && r !== "Directory.Read.All"),
    });
    const adapter = adapterFor(server);
    expect(await collect(groupsOf(adapter))).toEqual([]);
    const roadmap = (await collect(adapter.files())).find((f) => f.id === "a-roadmap");
    expect(roadmap?.permissions).toEqual([{ id: "perm-all", type: "group", role: "reader" }]);
    const gaps = adapter.coverageGaps().filter((g) => g.feature === MS_FEATURE.groups);
    expect(gaps.map((g) => g.missing)).toEqual(["GroupMember.Read.All"]);
    expect(gaps[0]?.detail).toContain("Graph answered: Microsoft 365: Insufficient privileges");
  });
});

describe("the Graph fake refuses what Graph refuses", () => {
  const client = (server: TFakeGraph) =>
    createJsonClient({
      source: "Test",
      baseUrl: server.url,
      tokens: microsoftTokenProvider(credentials, { loginBaseUrl: server.url }),
      http: { sleep: async () => undefined },
    });
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceHttpError);
    return { status: (error as SourceHttpError).status, message: (error as Error).message };
  };

  it("answers $count without ConsistencyLevel: eventual with Graph's 400", async () => {
    const server = await start();
    const path = `/v1.0/groups/${ALL_COMPANY_ID}/transitiveMembers/$count`;
    const response = await client(server).send("GET", path);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: "Request_BadRequest", message: "$count is not currently supported." },
    });
    // With the header: every transitive member, the device and the nested groups too.
    const counted = await client(server).send("GET", path, undefined, undefined, {
      headers: { ConsistencyLevel: "eventual" },
    });
    expect(counted.headers.get("content-type")).toBe("text/plain");
    expect(await counted.text()).toBe("13");
  });

  it("answers 400 to a $select of a property group does not declare, and 404 to an unknown group", async () => {
    const server = await start();
    expect(await refusal(client(server).get("/v1.0/groups", { $select: "id,memberCount" }))).toEqual({
      status: 400,
      message:
        "Test: Could not find a property named 'memberCount' on type 'microsoft.graph.group'. (HTTP 400)",
    });
    const missing = await client(server).send(
      "GET",
      "/v1.0/groups/nope/transitiveMembers/microsoft.graph.user/$count",
      undefined,
      undefined,
      { headers: { ConsistencyLevel: "eventual" } },
    );
    expect(missing.status).toBe(404);
  });
});
