import { afterEach, describe, expect, it } from "vitest";
import { createJsonClient, type THttpOptions } from "../http/client";
import { SourceHttpError } from "../http/errors";
import { staticTokenProvider } from "../http/token";
import { collect, groupsOf, recordingSleep } from "../../../fakes/src/adapter-harness";
import { ALL_CONNECTOR_SCOPES, startFakeGoogle, type TFakeGoogle } from "../../../fakes/src/fake-google";
import { type TFakeGroup } from "../../../fakes/src/fake-google-directory";
import { buildGoogleFixture, generateServiceAccount } from "../../../fakes/src/google-fixture";
import { GOOGLE_FEATURE, GOOGLE_SCOPE } from "./access";
import { createGoogleWorkspaceAdapter } from "./adapter";

// Directory groups (issue 30): groups.list and members.list with derived membership against the
// fake Admin SDK, which pages, throttles, expires tokens and refuses what the Discovery document
// does not declare.

const ACCOUNT = generateServiceAccount("admin@acme.test");
const TOKEN = "static-test-token";

const user = (email: string, status = "ACTIVE") => ({ email, type: "USER", status, id: email });
const group = (email: string) => ({ email, type: "GROUP", id: `g-${email}` });
const people = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => user(`${prefix}${i + 1}@acme.test`));

/** All Staff is made of groups (no direct user but the admin); Engineering and Sales overlap in Alice. */
const GROUPS: TFakeGroup[] = [
  {
    id: "g-all",
    email: "all-staff@acme.test",
    name: "All Staff",
    members: [group("engineering@acme.test"), group("sales@acme.test"), user("admin@acme.test")],
  },
  {
    id: "g-eng",
    email: "engineering@acme.test",
    name: "Engineering",
    members: [...people("eng", 5), user("alice@acme.test")],
  },
  {
    id: "g-sales",
    email: "sales@acme.test",
    name: "Sales",
    members: [...people("sales", 3), user("alice@acme.test"), user("gone@acme.test", "SUSPENDED")],
  },
  {
    id: "g-every",
    email: "everyone@acme.test",
    name: "Everyone",
    members: [{ type: "CUSTOMER", id: "C0abc" }],
  },
  { id: "g-empty", email: "empty@acme.test", name: "", members: [] },
];

let fake: TFakeGoogle | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function start(opts: Partial<Parameters<typeof startFakeGoogle>[0]> = {}) {
  fake = await startFakeGoogle({
    fixture: { ...buildGoogleFixture(), groups: GROUPS },
    accessToken: TOKEN,
    serviceAccounts: [{ clientEmail: ACCOUNT.credentials.clientEmail, publicKey: ACCOUNT.publicKey }],
    ...opts,
  });
  return fake;
}

const adapterFor = (server: TFakeGoogle, http: THttpOptions = {}) =>
  createGoogleWorkspaceAdapter({ credentials: ACCOUNT.credentials, endpoints: server.endpoints, http });

const byEmail = <T extends { email: string }>(list: T[]) =>
  [...list].sort((a, b) => a.email.localeCompare(b.email));

const EXPECTED = [
  {
    id: "g-all",
    email: "all-staff@acme.test",
    name: "All Staff",
    memberCount: 10,
    memberEmails: [
      "admin@acme.test",
      "alice@acme.test",
      "eng1@acme.test",
      "eng2@acme.test",
      "eng3@acme.test",
      "eng4@acme.test",
      "eng5@acme.test",
      "sales1@acme.test",
      "sales2@acme.test",
      "sales3@acme.test",
    ],
  },
  { id: "g-empty", email: "empty@acme.test", name: "empty@acme.test", memberCount: 0, memberEmails: [] },
  {
    id: "g-eng",
    email: "engineering@acme.test",
    name: "Engineering",
    memberCount: 6,
    memberEmails: [
      "alice@acme.test",
      "eng1@acme.test",
      "eng2@acme.test",
      "eng3@acme.test",
      "eng4@acme.test",
      "eng5@acme.test",
    ],
  },
  // The whole account is a member: its three active users (Bob is suspended).
  { id: "g-every", email: "everyone@acme.test", name: "Everyone", memberCount: 3 },
  {
    id: "g-sales",
    email: "sales@acme.test",
    name: "Sales",
    memberCount: 4,
    memberEmails: ["alice@acme.test", "sales1@acme.test", "sales2@acme.test", "sales3@acme.test"],
  },
];

const groupsCalls = (server: TFakeGoogle) =>
  server.requests.filter((r) => r.path === "/admin/directory/v1/groups");

describe("Google Workspace groups against the fake Directory", () => {
  it("lists every group across pages and sizes each by its people, nested groups' included, once", async () => {
    const server = await start({ pageSize: 2 });
    const groups = await collect(groupsOf(adapterFor(server)));
    expect(byEmail(groups)).toEqual(EXPECTED);
    // Five groups, two a page: three pages, each asking for the 200 the API allows.
    const listed = groupsCalls(server);
    expect(listed).toHaveLength(3);
    expect(listed.map((r) => r.query.get("maxResults"))).toEqual(["200", "200", "200"]);
    expect(listed.map((r) => r.query.get("customer"))).toEqual(["my_customer", "my_customer", "my_customer"]);
    expect(listed[0]?.query.has("pageToken")).toBe(false);
    expect(listed[1]?.query.get("pageToken")).toBeTruthy();
    // All Staff's 13 derived members (2 groups, 10 people, a suspended one) take 7 pages of members.list.
    const allStaff = server.requests.filter((r) => r.path === "/admin/directory/v1/groups/g-all/members");
    expect(allStaff).toHaveLength(7);
    expect(allStaff.every((r) => r.query.get("includeDerivedMembership") === "true")).toBe(true);
    // Each group expanded once in the scan.
    const expanded = server.requests.filter((r) => r.path.endsWith("/members") && !r.query.has("pageToken"));
    expect(expanded.map((r) => r.path).sort()).toEqual(
      ["g-all", "g-empty", "g-eng", "g-every", "g-sales"].map(
        (id) => `/admin/directory/v1/groups/${id}/members`,
      ),
    );
    // The one token that reads them carries the groups scope alone.
    expect(server.grants.filter((g) => g.scopes.includes(GOOGLE_SCOPE.groups))).toEqual([
      { subject: "admin@acme.test", scopes: [GOOGLE_SCOPE.groups] },
    ]);
  });

  it("waits out a 429 with its Retry-After, then reads the same groups", async () => {
    const server = await start({ pageSize: 2 });
    server.injectFault({ status: 429, count: 1, retryAfter: 7, pathPrefix: "/admin/directory/v1/groups" });
    const { delays, http } = recordingSleep();
    const groups = await collect(groupsOf(adapterFor(server, http)));
    expect(byEmail(groups)).toEqual(EXPECTED);
    expect(delays).toEqual([7000]);
    expect(groupsCalls(server)).toHaveLength(4);
  });

  it("gets a fresh token when the Directory answers 401 for an expired one mid-listing", async () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const server = await start({ pageSize: 2, tokenTtlSec: 3600, now: () => clock });
    const adapter = adapterFor(server);
    const iterator = groupsOf(adapter)[Symbol.asyncIterator]();
    // The first page and the first groups' members are read with the first token...
    const first = await iterator.next();
    expect(first.done).toBe(false);
    // ...which then expires (the fake's clock, not the adapter's, moves on).
    clock += 2 * 3600 * 1000;
    const rest: unknown[] = [first.value];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    expect(byEmail(rest as typeof EXPECTED)).toEqual(EXPECTED);
    expect(server.grants.filter((g) => g.scopes.includes(GOOGLE_SCOPE.groups))).toHaveLength(2);
  });

  it("sizes a group whose members are refused by its direct users, and says so", async () => {
    const server = await start();
    server.injectFault({
      status: 403,
      count: 1,
      pathPrefix: "/admin/directory/v1/groups/g-sales/members",
      body: { error: { code: 403, message: "Not Authorized to access this resource/api" } },
    });
    const adapter = adapterFor(server);
    const groups = byEmail(await collect(groupsOf(adapter)));
    // Sales' five direct users (the suspended one too: groups.list does not tell), no addresses.
    expect(groups.find((g) => g.id === "g-sales")).toEqual({
      id: "g-sales",
      email: "sales@acme.test",
      name: "Sales",
      memberCount: 5,
    });
    expect(groups.filter((g) => g.id !== "g-sales")).toEqual(EXPECTED.filter((g) => g.id !== "g-sales"));
    expect(adapter.coverageGaps().filter((g) => g.feature === GOOGLE_FEATURE.groups)).toEqual([
      {
        feature: GOOGLE_FEATURE.groups,
        missing: GOOGLE_SCOPE.groups,
        detail:
          "Some groups' members were not listed, so they count their direct users only: Google Workspace: " +
          "Not Authorized to access this resource/api (HTTP 403) (1: sales@acme.test)",
      },
    ]);
  });

  it("is a coverage gap, and no group, when the delegation lacks the groups scope", async () => {
    const server = await start({
      authorizedScopes: ALL_CONNECTOR_SCOPES.filter((s) => s !== GOOGLE_SCOPE.groups),
    });
    const adapter = adapterFor(server);
    expect(await collect(groupsOf(adapter))).toEqual([]);
    const gaps = adapter.coverageGaps().filter((g) => g.feature === GOOGLE_FEATURE.groups);
    expect(gaps.map((g) => g.missing)).toEqual([GOOGLE_SCOPE.groups]);
    expect(gaps[0]?.detail).toMatch(
      /^Directory groups were not read, so a grant to a group counts as one person/,
    );
  });
});

describe("the fake Directory refuses what the API refuses", () => {
  const client = (server: TFakeGoogle) =>
    createJsonClient({
      source: "Test",
      baseUrl: server.url,
      tokens: staticTokenProvider(TOKEN),
      http: { sleep: async () => undefined },
    });
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceHttpError);
    return { status: (error as SourceHttpError).status, message: (error as Error).message };
  };

  it("answers 400 to a parameter Discovery does not declare, a field it does not have, and no customer", async () => {
    const server = await start();
    const api = client(server);
    expect(
      await refusal(
        api.get("/admin/directory/v1/groups", { customer: "my_customer", includeDerivedMembership: true }),
      ),
    ).toEqual({
      status: 400,
      message:
        'Test: Invalid JSON payload received. Unknown name "includeDerivedMembership": Cannot bind query ' +
        "parameter. Field 'includeDerivedMembership' could not be found in request message. (HTTP 400)",
    });
    expect(
      await refusal(
        api.get("/admin/directory/v1/groups", { customer: "my_customer", fields: "groups(memberCount)" }),
      ),
    ).toEqual({ status: 400, message: "Test: Invalid field selection memberCount (HTTP 400)" });
    expect(await refusal(api.get("/admin/directory/v1/groups", {}))).toEqual({
      status: 400,
      message: "Test: Bad Request (HTTP 400)",
    });
    expect(
      await refusal(api.get("/admin/directory/v1/groups/g-eng/members", { includeDerivedMembership: "yes" })),
    ).toEqual({
      status: 400,
      message: "Test: Invalid value 'yes'. Values must be 'true' or 'false' (HTTP 400)",
    });
    expect(await refusal(api.get("/admin/directory/v1/groups/nope/members"))).toEqual({
      status: 404,
      message: "Test: Resource Not Found: groupKey (HTTP 404)",
    });
  });

  it("counts direct users only in directMembersCount, as an int64 string", async () => {
    const server = await start();
    const page = await client(server).get<{ groups: Array<{ email: string; directMembersCount: string }> }>(
      "/admin/directory/v1/groups",
      { customer: "my_customer", fields: "groups(email,directMembersCount)" },
    );
    expect(page.groups).toEqual([
      { email: "all-staff@acme.test", directMembersCount: "1" },
      { email: "empty@acme.test", directMembersCount: "0" },
      { email: "engineering@acme.test", directMembersCount: "6" },
      { email: "everyone@acme.test", directMembersCount: "0" },
      { email: "sales@acme.test", directMembersCount: "5" },
    ]);
  });
});
