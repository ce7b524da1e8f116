import { sql } from "drizzle-orm";
import { connectors, organizations, scans } from "@posture/db";
import { createTestDb } from "@posture/db/testing";
import { runScanJob } from "./index";
import { scanOnlyDeps } from "./testing/scan-deps";

// A measurement, not a test: one demo connector of MEASURE_FILES files (default 100,000) scanned
// in full, then incrementally after one revision, then incrementally with nothing changed, then
// in full again (asked for) with nothing changed. Prints one JSON line per scan. Run with
// `npx tsx packages/scans/src/measure-scans.ts` against the local PostgreSQL (its own database).

const files = Number(process.env.MEASURE_FILES ?? "100000");
const db = await createTestDb();
// The scans alone: the activity ingestion and behaviour refresh they queue are not run.
const deps = scanOnlyDeps(db.db, { logLevel: process.env.MEASURE_LOG_LEVEL });
try {
  const [org] = await db.db.insert(organizations).values({ name: "Measure", plan: "enterprise" }).returning();
  const [connector] = await db.db
    .insert(connectors)
    .values({
      orgId: org?.id ?? "",
      type: "google_workspace",
      displayName: "Measure",
      mode: "demo",
      config: { fileCount: files, revision: 0 },
    })
    .returning();
  if (!org || !connector) throw new Error("setup failed");
  const scan = async (label: string, full = false) => {
    const [row] = await db.db
      .insert(scans)
      .values({
        orgId: org.id,
        connectorId: connector.id,
        connectorName: "Measure",
        trigger: "manual",
        ...(full ? { kind: "full" as const, fullReason: "requested" as const } : {}),
      })
      .returning();
    if (!row) throw new Error("no scan");
    const started = performance.now();
    const result = await runScanJob(deps, row.id, 1);
    const ms = Math.round(performance.now() - started);
    const { kind, fullReason, resources, findingsNew, findingsResolved } = result;
    process.stdout.write(
      `${JSON.stringify({ label, files, ms, kind, fullReason, resources, findingsNew, findingsResolved })}\n`,
    );
  };
  await scan("first");
  await db.db.execute(
    sql`UPDATE connectors SET config = jsonb_set(config, '{revision}', '1') WHERE id = ${connector.id}`,
  );
  await scan("one revision");
  await scan("unchanged");
  await scan("unchanged, full", true);
} finally {
  await db.drop();
}
