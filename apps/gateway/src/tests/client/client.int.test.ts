import { beforeAll, describe, expect, it } from "vitest";
// A relative import, not the package name: @posture/client depends on the gateway (for the
// router's type), so the gateway naming it back would make a dependency cycle.
import {
  createPostureClient,
  errorCodeOf,
  MAX_BATCH_ITEMS,
  type TPostureClient,
} from "../../../../../packages/client/src/index";
import { dashboard, findingsPage, planQuickWin } from "../../../../../packages/client/src/consumer-example";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// @posture/client against a real gateway: sign in, batched reads, a mutation, the batch limit and
// the CSRF guard, each seen from the client's side and counted in HTTP requests.

const gw = useTestGateway();

/** The global fetch, recording `METHOD /path` of every request the client makes. */
function countingFetch() {
  const requests: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    requests.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
    return globalThis.fetch(input, init);
  };
  return { requests, fetch };
}

describe("@posture/client over the gateway", () => {
  const { requests, fetch } = countingFetch();
  let client: TPostureClient;
  let owner: Awaited<ReturnType<typeof gw.createUser>>;

  beforeAll(async () => {
    const org = await gw.createOrg({ plan: "business" });
    owner = await gw.createUser(org.id, "OWNER");
    // A client address of its own: this file's calls count against a budget of their own.
    client = createPostureClient({ url: gw.url, fetch, headers: { "x-forwarded-for": freshIp() } });
  });

  it("signs in with e-mail and password and keeps the session", async () => {
    await expect(client.auth.session.get.query()).rejects.toSatisfy(
      (e: unknown) => errorCodeOf(e) === "unauthenticated",
    );
    const session = await client.auth.signIn.mutate({ email: owner.email, password: owner.password });
    expect(session.user.email).toBe(owner.email);
    const again = await client.auth.session.get.query();
    expect(again.organization.id).toBe(session.organization.id);
  });

  it("connects a demo source and scans it (mutations, one request each)", async () => {
    requests.length = 0;
    const connector = await client.connectors.create.mutate({
      type: "google_workspace",
      displayName: "Client package test",
      mode: "demo",
      demo: { files: 400 },
    });
    const scan = await client.connectors.sync.mutate({ id: connector.id });
    expect(scan.status).toBe("COMPLETE");
    expect(requests).toEqual(["POST /trpc/connectors.create", "POST /trpc/connectors.sync"]);
  });

  it("sends the reads of one tick in one batched request", async () => {
    requests.length = 0;
    const [view, page] = await Promise.all([dashboard(client), findingsPage(client, "HIGH")]);
    expect(requests).toEqual([
      "GET /trpc/auth.session.get,posture.breakdown.get,posture.history.list,findings.list",
    ]);
    expect(view.who).toContain(owner.email);
    expect(view.score).toBeGreaterThanOrEqual(0);
    expect(view.trend.length).toBeGreaterThanOrEqual(1);
    expect(page.rows.length).toBeGreaterThan(0);
    expect(page.rows.every((r) => r.severity === "HIGH")).toBe(true);
  });

  it("plans a remediation for the best quick win, and reads it back", async () => {
    const { bestQuickWin } = await dashboard(client);
    expect(bestQuickWin?.plan).toBeTruthy();
    if (!bestQuickWin) return;
    const plan = await planQuickWin(client, bestQuickWin);
    expect(plan?.status).toBe("PLANNED");
    expect(plan?.steps).toBeGreaterThan(0);
    const listed = await client.remediations.list.query({ status: "PLANNED" });
    expect(listed.remediations.map((r) => r.id)).toContain(plan?.id);
  });

  it("splits more than 10 reads into batches the gateway takes", async () => {
    requests.length = 0;
    const pages = await Promise.all(
      Array.from({ length: MAX_BATCH_ITEMS + 2 }, (_, i) =>
        client.findings.list.query({ limit: 1, offset: i }),
      ),
    );
    expect(pages.map((p) => p.offset)).toEqual(Array.from({ length: MAX_BATCH_ITEMS + 2 }, (_, i) => i));
    expect(requests.map((r) => r.split(",").length)).toEqual([MAX_BATCH_ITEMS, 2]);
  });

  it("forgets the session on sign-out", async () => {
    await client.auth.signOut.mutate();
    await expect(client.findings.list.query({})).rejects.toSatisfy(
      (e: unknown) => errorCodeOf(e) === "unauthenticated",
    );
  });
});

describe("a forwarded session cookie and the CSRF guard", () => {
  it("passes without Origin (a server) and from the service's origin; a foreign origin is refused", async () => {
    const actor = await gw.createActor({ plan: "business", role: "OWNER" });
    const as = (headers: Record<string, string>) =>
      createPostureClient({
        url: gw.url,
        cookie: actor.cookie,
        headers: { "x-forwarded-for": freshIp(), ...headers },
      });

    const fromServer = await as({}).keys.create.mutate({ name: "from a server" });
    expect(fromServer.name).toBe("from a server");
    const sameOrigin = await as({ origin: new URL(gw.url).origin }).keys.create.mutate({
      name: "same origin",
    });
    expect(sameOrigin.name).toBe("same origin");

    const refused = await as({ origin: "https://evil.example" })
      .keys.create.mutate({ name: "cross-site" })
      .catch((e: unknown) => e);
    expect(errorCodeOf(refused)).toBe("csrf_rejected");
    // Reads are not guarded: a GET changes nothing.
    const keys = await as({ origin: "https://evil.example" }).keys.list.query();
    expect(keys.keys.map((k) => k.name).sort()).toEqual(["from a server", "same origin", "test"]);
  });
});

describe("@posture/client's conditional queries (opt-in)", () => {
  it("revalidates a query and a batch it has read: 304s, not charged, resolved to the kept bodies", async () => {
    const org = await gw.createOrg({ plan: "business" });
    const user = await gw.createUser(org.id, "OWNER");
    const wire: string[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const res = await globalThis.fetch(input, init);
      const r = /;r=(\d+)/.exec(res.headers.get("ratelimit") ?? "")?.[1];
      const conditional = new Headers(init?.headers).has("if-none-match") ? "conditional" : "plain";
      wire.push(`${init?.method ?? "GET"} ${res.status} r=${r} ${conditional}`);
      return res;
    };
    const headers = { "x-forwarded-for": freshIp() };
    const client = createPostureClient({ url: gw.url, fetch, headers, conditional: { maxEntries: 10 } });
    await client.auth.signIn.mutate({ email: user.email, password: user.password });
    const usage = await client.usage.get.query();
    expect(await client.usage.get.query()).toEqual(usage);
    const [u, incidents] = await Promise.all([client.usage.get.query(), client.incidents.list.query({})]);
    expect(u).toEqual(usage);
    expect(incidents.incidents).toEqual([]);
    const again = await Promise.all([client.usage.get.query(), client.incidents.list.query({})]);
    expect(again).toEqual([usage, incidents]);
    // Sign-in counts in the anonymous budget (20), the reads in the authenticated one (60).
    expect(wire).toEqual([
      "POST 200 r=19 plain",
      "GET 200 r=59 plain",
      "GET 304 r=59 conditional",
      "GET 200 r=57 plain",
      "GET 304 r=57 conditional",
    ]);

    // Off by default: the same reads are plain.
    wire.length = 0;
    const plain = createPostureClient({ url: gw.url, fetch, headers: { "x-forwarded-for": freshIp() } });
    await plain.auth.signIn.mutate({ email: user.email, password: user.password });
    await plain.usage.get.query();
    await plain.usage.get.query();
    expect(wire).toEqual(["POST 200 r=19 plain", "GET 200 r=59 plain", "GET 200 r=58 plain"]);
  });
});
