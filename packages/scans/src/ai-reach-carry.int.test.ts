import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectors, organizations, queryRows, refreshAiReach, scans } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { runScanJob } from "./index";
import { scanOnlyDeps } from "./testing/scan-deps";
import { applySampleChanges, createScriptedTenant, sampleSeed } from "./testing";

// Issues 30 and 35: a rescan that changed no file, with the directory as it was, carries the
// stored AI reach to its new store version instead of computing it again; any change computes it.

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db?.drop());

describe("the AI reach stage of a scan", () => {
  it("carries the stored reach over unchanged rescans, full or incremental, and computes it after a change", async () => {
    const [org] = await db.db.insert(organizations).values({ name: "Carry", plan: "business" }).returning();
    if (!org) throw new Error("no org");
    const [c] = await db.db
      .insert(connectors)
      .values({ orgId: org.id, type: "google_workspace", displayName: "carry", mode: "real" })
      .returning();
    if (!c) throw new Error("no connector");
    const tenant = createScriptedTenant(sampleSeed(40));
    const deps = scanOnlyDeps(db.db, { adapterFor: () => tenant.adapter });
    const scan = async (fullReason: "requested" | null) => {
      const [row] = await db.db
        .insert(scans)
        .values({ orgId: org.id, connectorId: c.id, connectorName: "carry", trigger: "manual", fullReason })
        .returning();
      if (!row) throw new Error("no scan");
      const result = await runScanJob(deps, row.id, 1);
      expect(result.status).toBe("COMPLETE");
      return { id: row.id, kind: result.kind };
    };
    const stored = async () =>
      (
        await queryRows<{
          scan: string | null;
          version: number;
          at: string;
          subjects: Array<{ subject: string; counts: { total: number } }>;
        }>(
          db.db,
          sql`SELECT a.scan_id AS scan, a.store_version::int AS version, a.computed_at::text AS at,
                (SELECT json_agg(json_build_object('subject', x.subject, 'counts', x.counts) ORDER BY x.subject)
                 FROM ai_reach_summaries x WHERE x.connector_id = a.connector_id) AS subjects
              FROM ai_reach_summaries a WHERE a.connector_id = ${c.id} AND a.subject = '*'`,
        )
      )[0];
    const snapshot = async () =>
      (
        await queryRows<{ scan: string | null; version: number }>(
          db.db,
          sql`SELECT scan_id AS scan, store_version::int AS version FROM workspace_snapshots WHERE connector_id = ${c.id}`,
        )
      )[0];

    const first = await scan(null);
    const computed = await stored();
    expect(computed).toMatchObject({ scan: first.id, version: (await snapshot())?.version });
    // The sample tenant's three AI agents and the any-assistant row (no user holds an assistant).
    expect(computed?.subjects.map((r) => r.counts.total).sort((a, b) => a - b)).toEqual([0, 19, 23, 23]);

    // A forced full rescan of the same tenant: the snapshot row is written again (a new version),
    // the reach rows follow it without being computed (computed_at is the first scan's).
    const full = await scan("requested");
    expect(full.kind).toBe("full");
    const carried = await stored();
    expect(carried).toEqual({ ...computed, scan: full.id, version: (await snapshot())?.version });
    expect(carried?.version).toBe((computed?.version ?? NaN) + 1);

    // An incremental rescan with nothing in the feed: the snapshot row stays, and so do the rows.
    const quiet = await scan(null);
    expect(quiet.kind).toBe("incremental");
    expect(await stored()).toEqual(carried);

    // What was carried is what computing it again gives.
    await refreshAiReach(db.db, { orgId: org.id, connectorId: c.id });
    const recomputed = await stored();
    expect(recomputed?.at).not.toBe(computed?.at);
    expect({ ...recomputed, at: null }).toEqual({ ...carried, at: null });

    // Files changed at the source: the next scan computes the reach again.
    applySampleChanges(tenant);
    const changed = await scan(null);
    const after = await stored();
    expect(after?.scan).toBe(changed.id);
    expect(after?.at).not.toBe(recomputed?.at);
    await deps.jobs.close();
  });
});
