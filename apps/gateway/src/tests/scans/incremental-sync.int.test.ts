import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDemoAdapter } from "@posture/connectors";
import { connectors, findings } from "@posture/db";
import { useTestGateway } from "../../testing";

// From outside, over HTTP: a sized demo connector, its first (full) scan, an incremental rescan
// after the sandbox moved a revision forward, then a full rescan that finds nothing the
// incremental one missed.

type TScan = {
  scanId: string;
  status: string;
  kind: "full" | "incremental";
  fullReason: string | null;
  resources: number;
  findingsNew: number;
  findingsResolved: number;
  postureScore: number;
};

const gw = useTestGateway();

/**
 * The demo tenant's seed. A demo connector's tenant is seeded by its id unless its config names a
 * seed (as the demo history's sources do; the API takes none): this one is set in the row, so the
 * tenant, its findings and what a revision changes are the same on every run and counted exactly.
 */
const SEED = "incremental-sync";

/**
 * What a demo tenant holds at a revision, counted from the generator the scan reads: the users,
 * files, shared drives and grants.
 */
async function resourcesOf(seed: string, createdAt: string, revision: number): Promise<number> {
  const adapter = createDemoAdapter({
    seed,
    type: "google_workspace",
    fileCount: 3000,
    revision,
    epoch: new Date(createdAt),
  });
  let n = 0;
  for (const items of [adapter.users(), adapter.files(), adapter.sharedDrives(), adapter.appGrants()])
    for await (const _ of items) n++;
  return n;
}

describe("incremental scans over HTTP", () => {
  it("scans a sized sandbox in full, then its changes, and a full rescan agrees", async () => {
    const a = await gw.createActor({ plan: "business" });
    const created = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: { type: "google_workspace", displayName: "Sandbox", mode: "demo", demo: { files: 3000 } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, createdAt } = created.body as { id: string; createdAt: string };
    await gw.db.db
      .update(connectors)
      .set({ config: sql`${connectors.config} || ${JSON.stringify({ seed: SEED })}::jsonb` })
      .where(eq(connectors.id, id));
    const sync = async (body?: Record<string, unknown>) => {
      const res = await gw.request("POST", `/api/connectors/${id}/sync`, {
        cookie: a.cookie,
        ...(body ? { body } : {}),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as TScan;
    };
    const openRows = () =>
      gw.db.db
        .select({ fingerprint: findings.fingerprint, severity: findings.severity, title: findings.title })
        .from(findings)
        .where(and(eq(findings.connectorId, id), eq(findings.status, "OPEN")));
    const open = async () =>
      (await openRows()).map((f) => `${f.fingerprint} ${f.severity} ${f.title}`).sort();
    const fingerprints = async () => new Set((await openRows()).map((f) => f.fingerprint));
    const minus = (a: Set<string>, b: Set<string>) => [...a].filter((f) => !b.has(f)).length;

    const first = await sync();
    expect(first).toMatchObject({
      status: "COMPLETE",
      kind: "full",
      fullReason: "first",
      findingsResolved: 0,
    });
    // Every finding of the first scan is new and open; it read every resource of revision 0.
    const openAfterFirst = await fingerprints();
    expect(first.findingsNew).toBe(openAfterFirst.size);
    expect(openAfterFirst.size, "the seed's 3,000-file tenant's findings").toBe(957);
    expect(first.resources).toBe(await resourcesOf(SEED, createdAt, 0));
    expect(first.resources).toBe(3202);

    const incremental = await sync({ demo: { advance: 1 } });
    expect(incremental).toMatchObject({ status: "COMPLETE", kind: "incremental", fullReason: null });
    // Exactly the findings that opened and closed between the two scans, out of revision 1's resources.
    const openAfterIncremental = await fingerprints();
    const opened = minus(openAfterIncremental, openAfterFirst);
    const closed = minus(openAfterFirst, openAfterIncremental);
    expect({ findingsNew: incremental.findingsNew, findingsResolved: incremental.findingsResolved }).toEqual({
      findingsNew: opened,
      findingsResolved: closed,
    });
    expect({ opened, closed }, "what revision 1 opens and resolves").toEqual({ opened: 2, closed: 5 });
    expect(incremental.resources).toBe(await resourcesOf(SEED, createdAt, 1));
    const afterIncremental = await open();

    const full = await sync({ full: true });
    expect(full).toMatchObject({
      status: "COMPLETE",
      kind: "full",
      fullReason: "requested",
      findingsNew: 0,
      findingsResolved: 0,
      postureScore: incremental.postureScore,
      resources: incremental.resources,
    });
    expect(await open()).toEqual(afterIncremental);

    const read = await gw.request("GET", `/api/connectors/${id}/scans/${incremental.scanId}`, { key: a.key });
    expect(read.body).toMatchObject({ scanId: incremental.scanId, kind: "incremental", fullReason: null });
  });
});
