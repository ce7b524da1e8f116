import { randomBytes } from "node:crypto";
import { register } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@posture/webhooks/testing";
import { startTestGateway, type TTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// Issue 34's exactness: two gateway replicas over one PostgreSQL database and one Redis, each
// with a read cache of its own. For every write path, a read is cached on B, the write is made
// through A (or by A's jobs), and the very next read on B must show it.
let a: TTestGateway;
let b: TTestGateway;
beforeAll(async () => {
  const rateLimitPrefix = `rl-cache-${randomBytes(6).toString("hex")}`;
  a = await startTestGateway({ rateLimitPrefix });
  b = await startTestGateway({ rateLimitPrefix, db: a.db });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

type TWho = { key?: string; cookie?: string };
const call = async (gw: TTestGateway, method: string, path: string, who: TWho, body?: unknown) => {
  const res = await gw.request(method, path, {
    ...who,
    ip: freshIp(),
    ...(body === undefined ? {} : { body }),
  });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res;
};

async function cacheCounts() {
  const metric = (await register.getMetricsAsJSON()).find((m) => m.name === "read_cache_requests_total");
  const values = (metric as { values?: Array<{ labels: { outcome?: string }; value: number }> } | undefined)
    ?.values;
  const of = (outcome: string) => values?.find((v) => v.labels.outcome === outcome)?.value ?? 0;
  return { hit: of("hit"), miss: of("miss"), bypass: of("bypass") };
}

/** Reads twice on the replica, and checks the second answer came from its cache. */
async function cachedRead(gw: TTestGateway, path: string, who: TWho) {
  await call(gw, "GET", path, who);
  const before = await cacheCounts();
  const res = await call(gw, "GET", path, who);
  expect((await cacheCounts()).hit - before.hit).toBe(1);
  return res.body;
}

describe("the read cache on two replicas", () => {
  it("serves a repeated read from memory, with the same body, tag and a 304 for the tag", async () => {
    const actor = await a.createActor({ plan: "business" });
    const first = await call(b, "GET", "/api/findings?limit=50", { key: actor.key });
    const before = await cacheCounts();
    const second = await call(b, "GET", "/api/findings?limit=50", { key: actor.key });
    expect((await cacheCounts()).hit - before.hit).toBe(1);
    expect(second.text).toBe(first.text);
    const tag = first.headers.get("etag");
    expect(tag).toBeTruthy();
    expect(second.headers.get("etag")).toBe(tag);
    expect(second.headers.get("cache-control")).toBe("private, no-cache");
    expect(second.headers.get("content-type")).toMatch(/^application\/json/);
    const revalidated = await b.request("GET", "/api/findings?limit=50", {
      key: actor.key,
      ip: freshIp(),
      headers: { "If-None-Match": tag ?? "" },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe("");
  });

  it("never shares an answer between credentials, and never keeps a credential's own view", async () => {
    const one = await a.createActor({ plan: "business" });
    const other = await a.createActor({ plan: "business" });
    await cachedRead(b, "/api/audit", { key: one.key });
    const before = await cacheCounts();
    await call(b, "GET", "/api/audit", { key: other.key });
    await call(b, "GET", "/api/keys", { key: one.key });
    await call(b, "GET", "/api/keys", { key: one.key });
    const after = await cacheCounts();
    expect(after.hit - before.hit).toBe(0);
    expect(after.bypass - before.bypass).toBe(2);
  });

  it("trusted domains: one added through A is listed by B at once", async () => {
    const owner = await a.createActor({ plan: "business" });
    const list = async () =>
      (
        (await call(b, "GET", "/api/sharing/trusted-domains", { cookie: owner.cookie })).body as {
          rows: Array<{ domain: string }>;
        }
      ).rows.map((r) => r.domain);
    expect(await cachedRead(b, "/api/sharing/trusted-domains", { cookie: owner.cookie })).toEqual({
      rows: [],
    });
    await call(
      a,
      "POST",
      "/api/sharing/trusted-domains",
      { cookie: owner.cookie },
      { domain: "partner.example" },
    );
    expect(await list()).toEqual(["partner.example"]);
  });

  it("keys: a key created through A is in B's audit trail at once", async () => {
    const owner = await a.createActor({ plan: "business", role: "OWNER" });
    const actions = async () =>
      (
        (await call(b, "GET", "/api/audit", { key: owner.key })).body as {
          entries: Array<{ action: string }>;
        }
      ).entries.map((e) => e.action);
    await cachedRead(b, "/api/audit", { key: owner.key });
    expect(await actions()).not.toContain("API_KEY_CREATED");
    await call(a, "POST", "/api/keys", { cookie: owner.cookie }, { name: "ci" });
    expect(await actions()).toContain("API_KEY_CREATED");
  });

  it("incidents: one opened through A is listed by B at once", async () => {
    const owner = await a.createActor({ plan: "business" });
    const titles = async () =>
      (
        (await call(b, "GET", "/api/incidents", { key: owner.key })).body as {
          incidents: Array<{ title: string }>;
        }
      ).incidents.map((i) => i.title);
    await cachedRead(b, "/api/incidents", { key: owner.key });
    await call(a, "POST", "/api/incidents", { key: owner.key }, { title: "Payroll exposed", priority: "P1" });
    expect(await titles()).toContain("Payroll exposed");
  });

  it("scans and remediation: a scan's findings, then an apply's fixes, reach B's cached reads", async () => {
    const owner = await a.createActor({ plan: "business" });
    const findings = async () =>
      (await call(b, "GET", "/api/findings?limit=200", { key: owner.key })).body as {
        total: number;
        findings?: Array<{ id: string; status: string }>;
      };
    const empty = (await cachedRead(b, "/api/findings?limit=200", { key: owner.key })) as { total: number };
    expect(empty.total).toBe(0);
    const connector = (
      await call(
        a,
        "POST",
        "/api/connectors",
        { cookie: owner.cookie },
        { type: "google_workspace", displayName: "Sandbox", mode: "demo", demo: { files: 300 } },
      )
    ).body as { id: string };
    await call(a, "POST", `/api/connectors/${connector.id}/sync`, { cookie: owner.cookie });
    const scanned = await findings();
    expect(scanned.total).toBeGreaterThan(0);

    // Remediation: the apply runs as a job of A; B's reads of the plan and the findings follow it.
    const breakdown = (await call(a, "GET", "/api/posture/breakdown", { cookie: owner.cookie })).body as {
      quickWins: Array<{ action: string; plan?: unknown; findingIds: string[] }>;
    };
    const win = breakdown.quickWins.find((w) => w.action === "remove_public_link" && w.plan !== undefined);
    expect(win, JSON.stringify(breakdown.quickWins)).toBeDefined();
    if (!win) return;
    const firstId = win.findingIds[0] ?? "";
    const findingOnB = async () =>
      ((await call(b, "GET", `/api/findings/${firstId}`, { key: owner.key })).body as { status: string })
        .status;
    await findingOnB();
    expect(await findingOnB()).toBe("OPEN");
    const plan = (await call(a, "POST", "/api/remediations", { cookie: owner.cookie }, win.plan)).body as {
      id: string;
    };
    const second = await a.createUser(owner.orgId, "ADMIN");
    await call(a, "POST", `/api/remediations/${plan.id}/approve`, {
      cookie: await a.createSession(owner.orgId, second.id),
    });
    await call(a, "POST", `/api/remediations/${plan.id}/apply`, { cookie: owner.cookie });
    const applied = await waitFor(async () => {
      const r = (await call(b, "GET", `/api/remediations/${plan.id}`, { key: owner.key })).body as {
        status: string;
      };
      return r.status === "APPLIED" ? r : null;
    }, 60_000);
    expect(applied.status).toBe("APPLIED");
    expect(await findingOnB()).toBe("RESOLVED");
  });

  it("partner changes: a client withdrawing access leaves the partner's cached portfolio on B at once", async () => {
    const msp = await a.createActor({ plan: "enterprise", isPartner: true });
    const clientOrg = await a.createOrg({ plan: "business", name: "Acme Ltd", managedByOrgId: msp.orgId });
    const client = await a.createActor({ orgId: clientOrg.id });
    await call(a, "PUT", "/api/partner-access", { key: client.key });
    const listed = async () =>
      (
        (await call(b, "GET", "/api/partner/reports/portfolio", { key: msp.key })).body as {
          clients: Array<{ orgId: string }>;
        }
      ).clients.map((c) => c.orgId);
    await cachedRead(b, "/api/partner/reports/portfolio", { key: msp.key });
    expect(await listed()).toContain(clientOrg.id);
    // The client's write marks its partner too: the partner's reads include the client's data.
    await call(a, "DELETE", "/api/partner-access", { key: client.key });
    expect(await listed()).not.toContain(clientOrg.id);
    await call(a, "PUT", "/api/partner-access", { key: client.key });
    expect(await listed()).toContain(clientOrg.id);
  });

  it("caches nothing while a write of the organization is in progress, on either replica", async () => {
    const owner = await a.createActor({ plan: "business" });
    const writes = a.gateway.deps.dataWrites;
    expect(writes).toBeDefined();
    if (!writes) return;
    await cachedRead(b, "/api/incidents", { key: owner.key });
    const mark = await writes.begin([owner.orgId]);
    const before = await cacheCounts();
    await call(b, "GET", "/api/incidents", { key: owner.key });
    await call(b, "GET", "/api/incidents", { key: owner.key });
    const during = await cacheCounts();
    expect(during.hit - before.hit).toBe(0);
    expect(during.bypass - before.bypass).toBe(2);
    await mark.end();
    await cachedRead(b, "/api/incidents", { key: owner.key });
  });
});
