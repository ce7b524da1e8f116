import { describe, expect, it } from "vitest";
import { eq, and } from "drizzle-orm";
import { anomalies, behaviorBaselines, events } from "@posture/db";
import { refreshBehaviour } from "@posture/ueba";
import { useTestGateway } from "../../testing";
import { errorCode } from "../helpers";
import { burst, demoConnector, insertEvents, seedWorkspace, steadyPopulation } from "./seed";

type TAnomaly = {
  id: string;
  principal: string;
  type: string;
  severity: string;
  confidence: number;
  at: string;
  window: string;
  periodsLearned: number;
};

const gw = useTestGateway();

const announce = () => ({ jobs: gw.gateway.deps.jobs, publicUrl: gw.gateway.deps.runtime.publicUrl });

async function anomaliesOf(key: string, qs = ""): Promise<TAnomaly[]> {
  const res = await gw.request("GET", `/api/behavior/anomalies${qs}`, { key });
  expect(res.status).toBe(200);
  return (res.body as { anomalies: TAnomaly[] }).anomalies;
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("behaviour analytics on a demo source", { timeout: 180_000 }, () => {
  it("finds the five planted stories after one scan, and nothing else", async () => {
    const a = await gw.createActor({ plan: "business" });
    const created = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: { type: "google_workspace", displayName: "Demo", mode: "demo", config: { fileCount: 400 } },
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect((await gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie })).status).toBe(200);

    const found = await until(
      () => anomaliesOf(a.key),
      (l) => l.length >= 5,
    );
    expect(new Set(found.map((x) => x.type))).toEqual(
      new Set(["sharing_spike", "bulk_access", "dormant_reactivation", "oauth_burst", "mass_deletion"]),
    );
    // Exactly one per story, each a different person: no false positive among the other users.
    expect(found).toHaveLength(5);
    expect(new Set(found.map((x) => x.principal)).size).toBe(5);
    for (const x of found) {
      expect(x.confidence).toBeGreaterThan(0.5);
      expect(x.confidence).toBeLessThanOrEqual(1);
      expect(x.window).toMatch(/^\d{4}-W\d{2}$/);
    }
    const times = found.map((x) => x.at);
    expect([...times].sort().reverse()).toEqual(times);

    // Filters
    const spikes = await anomaliesOf(a.key, "?type=sharing_spike");
    expect(spikes.map((x) => x.type)).toEqual(["sharing_spike"]);
    const first = found[0];
    if (!first) throw new Error("no anomaly");
    expect(
      (await anomaliesOf(a.key, `?severity=${first.severity}`)).every((x) => x.severity === first.severity),
    ).toBe(true);
    expect(
      await anomaliesOf(a.key, `?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`),
    ).toEqual([]);
    expect(await anomaliesOf(a.key, "?limit=2")).toHaveLength(2);

    // Announced once each, and not again when a rescan recomputes them.
    const announced = () =>
      gw.db.db
        .select()
        .from(events)
        .where(and(eq(events.orgId, a.orgId), eq(events.type, "anomaly.detected")));
    expect(await announced()).toHaveLength(5);
    expect((await gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_500));
    await refreshBehaviour(gw.db.db, { orgId: a.orgId }, announce());
    expect(await anomaliesOf(a.key)).toHaveLength(5);
    expect(await announced()).toHaveLength(5);

    // The timeline shows them as their own kind.
    const timeline = await gw.request("GET", "/api/timeline?limit=100&significant=true", { key: a.key });
    const items = (timeline.body as { items: Array<{ kind: string; id: string; severity: string }> }).items;
    const significant = found.filter((x) => x.severity === "CRITICAL" || x.severity === "HIGH");
    expect(significant.length).toBeGreaterThan(0);
    for (const x of significant) expect(items.some((i) => i.kind === "anomaly" && i.id === x.id)).toBe(true);

    // Heatmap: riskiest first, one row per user, one column per ISO week.
    const hm = await gw.request("GET", "/api/behavior/heatmap?weeks=8&limit=10", { key: a.key });
    expect(hm.status).toBe(200);
    const map = hm.body as { users: string[]; periods: string[]; cells: number[][] };
    expect(map.periods).toHaveLength(8);
    expect(map.users.length).toBeLessThanOrEqual(10);
    expect(map.cells).toHaveLength(map.users.length);
    for (const row of map.cells) expect(row).toHaveLength(8);
    const totals = map.cells.map((r) => r.reduce((s, v) => s + v, 0));
    expect(new Set(map.users.slice(0, 5))).toEqual(new Set(found.map((x) => x.principal)));
    expect(totals[0]).toBeGreaterThanOrEqual(totals[totals.length - 1] ?? 0);
    // However hot a user's sub-threshold weeks add up to, a detected anomaly ranks above them.
    const quiet = map.users[5];
    if (!quiet) throw new Error("fewer than six users on the heatmap");
    await gw.db.db
      .update(behaviorBaselines)
      .set({ riskTotal: 100_000 })
      .where(and(eq(behaviorBaselines.orgId, a.orgId), eq(behaviorBaselines.principal, quiet)));
    const hot = (await gw.request("GET", "/api/behavior/heatmap?weeks=8&limit=6", { key: a.key })).body as {
      users: string[];
    };
    expect(new Set(hot.users.slice(0, 5))).toEqual(new Set(found.map((x) => x.principal)));
    expect(hot.users[5]).toBe(quiet);

    // Baselines: thirteen weeks of demo history give a baseline of the user's own.
    const spiker = spikes[0]?.principal ?? "";
    const base = await gw.request("GET", `/api/behavior/baseline/${encodeURIComponent(spiker)}`, {
      key: a.key,
    });
    expect(base.status).toBe(200);
    const b = base.body as {
      userId: string;
      periodsLearned: number;
      source: string;
      baseline: Record<string, number>;
    };
    expect(b.userId).toBe(spiker);
    expect(b.periodsLearned).toBe(12);
    expect(b.source).toBe("self");
    expect(b.baseline.externalShareCount).toBeLessThan(5);
    // Deletions are baselined too: a demo user bins a file now and then.
    expect(b.baseline.deletionCount).toBeLessThan(3);
    expect(b.baseline.resourceAccessCount).toBeGreaterThan(0);

    // Isolation: another organization sees none of it, and gets 404 for this principal.
    const other = await gw.createActor({ plan: "enterprise" });
    expect(await anomaliesOf(other.key)).toEqual([]);
    const foreign = await gw.request("GET", `/api/behavior/baseline/${encodeURIComponent(spiker)}`, {
      key: other.key,
    });
    expect(foreign.status).toBe(404);
    expect(errorCode(foreign)).toBe("not_found");
    const emptyMap = await gw.request("GET", "/api/behavior/heatmap", { key: other.key });
    expect((emptyMap.body as { users: string[]; periods: string[] }).users).toEqual([]);
    expect((emptyMap.body as { periods: string[] }).periods).toHaveLength(12);
  });
});

describe("baselines and anomalies on a synthetic population", { timeout: 180_000 }, () => {
  const now = new Date("2026-11-20T12:00:00Z"); // a Friday

  it("flags nothing on a steady population, then finds planted bursts with the right kinds", async () => {
    const a = await gw.createActor({ plan: "business" });
    const c = await demoConnector(gw.db.db, a.orgId);
    const principals = 300;
    await insertEvents(
      gw.db.db,
      steadyPopulation({ orgId: a.orgId, connectorId: c.id, principals, days: 98, now, seed: 7 }),
    );
    const steady = await refreshBehaviour(gw.db.db, { orgId: a.orgId, now }, announce());
    expect(steady.principals).toBe(principals);
    // 300 people × 4 rate metrics × 2 evaluated weeks + 300 dormancy checks: 2,700 chances, 0 flagged.
    expect(steady.anomalies).toBe(0);

    // A heavy user's normal is not a spike: baselines are per person.
    const rows = await gw.db.db.select().from(anomalies).where(eq(anomalies.orgId, a.orgId));
    expect(rows).toEqual([]);

    const ins = (
      principal: string,
      kind: string,
      n: number,
      tag: string,
      at = new Date(now.getTime() - 86_400_000),
    ) => insertEvents(gw.db.db, burst({ orgId: a.orgId, connectorId: c.id, principal, kind, n, at, tag }));
    await ins("person1@steady.test", "share_external", 45, "spike");
    await ins("person2@steady.test", "file_access", 900, "bulk");
    await ins("person3@steady.test", "oauth_grant", 8, "oauth");
    await ins("person4@steady.test", "file_delete", 120, "wipe");
    // Silent since 70 days ago, now back: its earlier history is in the store.
    await ins("sleeper@steady.test", "login", 3, "old", new Date(now.getTime() - 75 * 86_400_000));
    await ins("sleeper@steady.test", "login", 1, "back", new Date(now.getTime() - 2 * 86_400_000));
    // A new hire with no history at all: compared with the organization, never "dormant".
    await ins("newhire@steady.test", "file_access", 20, "newhire", new Date(now.getTime() - 2 * 86_400_000));

    const planted = await refreshBehaviour(gw.db.db, { orgId: a.orgId, now }, announce());
    const got = await anomaliesOf(a.key);
    expect(got.map((x) => `${x.principal}:${x.type}`).sort()).toEqual([
      "person1@steady.test:sharing_spike",
      "person2@steady.test:bulk_access",
      "person3@steady.test:oauth_burst",
      "person4@steady.test:mass_deletion",
      "sleeper@steady.test:dormant_reactivation",
    ]);
    expect(planted.newAnomalies).toHaveLength(5);
    const spike = got.find((x) => x.type === "sharing_spike");
    // The moment the running count crossed the threshold, inside the burst.
    expect(Date.parse(spike?.at ?? "")).toBeGreaterThanOrEqual(now.getTime() - 86_400_000);

    const newhire = await gw.request("GET", "/api/behavior/baseline/newhire%40steady.test", { key: a.key });
    expect(newhire.status, newhire.text).toBe(200);
    expect((newhire.body as { source: string; periodsLearned: number }).source).toBe("organization");
    expect((newhire.body as { periodsLearned: number }).periodsLearned).toBe(0);

    // Recomputing changes nothing and announces nothing new.
    const again = await refreshBehaviour(gw.db.db, { orgId: a.orgId, now }, announce());
    expect(again.newAnomalies).toEqual([]);
    expect(await anomaliesOf(a.key)).toHaveLength(5);
  });

  it("grows confidence with history: a spike after two weeks is less certain than after twelve", async () => {
    const a = await gw.createActor({ plan: "business" });
    const c = await demoConnector(gw.db.db, a.orgId);
    await insertEvents(
      gw.db.db,
      steadyPopulation({ orgId: a.orgId, connectorId: c.id, principals: 40, days: 98, now, seed: 11 }),
    );
    const day = new Date(now.getTime() - 86_400_000);
    await insertEvents(gw.db.db, [
      ...burst({
        orgId: a.orgId,
        connectorId: c.id,
        principal: "person5@steady.test",
        kind: "share_external",
        n: 40,
        at: day,
        tag: "veteran",
      }),
      ...burst({
        orgId: a.orgId,
        connectorId: c.id,
        principal: "fresh@steady.test",
        kind: "file_access",
        n: 3,
        at: new Date(now.getTime() - 12 * 86_400_000),
        tag: "fresh-old",
      }),
      ...burst({
        orgId: a.orgId,
        connectorId: c.id,
        principal: "fresh@steady.test",
        kind: "share_external",
        n: 40,
        at: day,
        tag: "fresh",
      }),
    ]);
    await seedWorkspace(gw.db.db, {
      orgId: a.orgId,
      connectorId: c.id,
      users: [{ email: "fresh@steady.test" }],
    });
    await refreshBehaviour(gw.db.db, { orgId: a.orgId, now }, announce());
    const got = await anomaliesOf(a.key, "?type=sharing_spike");
    const veteran = got.find((x) => x.principal === "person5@steady.test");
    const fresh = got.find((x) => x.principal === "fresh@steady.test");
    expect(veteran?.periodsLearned).toBe(12);
    expect(fresh?.periodsLearned).toBeLessThan(4);
    expect(veteran?.confidence ?? 0).toBeGreaterThan(fresh?.confidence ?? 1);
  });
});

describe("errors", () => {
  it("answers 400 for bad filters and 404 for an unknown principal", async () => {
    const a = await gw.createActor({ plan: "business" });
    for (const qs of ["?type=nope", "?severity=URGENT", "?since=yesterday", "?limit=0", "?limit=501"]) {
      const res = await gw.request("GET", `/api/behavior/anomalies${qs}`, { key: a.key });
      expect(res.status, qs).toBe(400);
      expect(errorCode(res)).toBe("invalid_input");
    }
    for (const qs of ["?weeks=0", "?weeks=99", "?limit=x"]) {
      const res = await gw.request("GET", `/api/behavior/heatmap${qs}`, { key: a.key });
      expect(res.status, qs).toBe(400);
    }
    const missing = await gw.request("GET", "/api/behavior/baseline/nobody%40nowhere.test", { key: a.key });
    expect(missing.status).toBe(404);
    expect(errorCode(missing)).toBe("not_found");
    const team = await gw.createActor({ plan: "team" });
    const gated = await gw.request("GET", "/api/behavior/anomalies", { cookie: team.cookie });
    expect(gated.status).toBe(402);
  });
});
