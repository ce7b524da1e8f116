import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows, type Db } from "./client";
import { analyzeAfterWrite } from "./partitions";
import { connectors, findings, organizations } from "./schema";
import { createTestDb, type TestDb } from "./testing";

// The service's role owns no table, and ANALYZE of a table it does not own is a warning that
// analyzes nothing: statistics after a large write go through posture_analyze, the owner's.

let t: TestDb;
let app: pg.Client;
let appDb: Db;

beforeAll(async () => {
  t = await createTestDb();
  app = new pg.Client({ connectionString: t.url });
  await app.connect();
  await app.query("SET ROLE posture_app");
  appDb = drizzle(app) as unknown as Db;
});
afterAll(async () => {
  await app?.end();
  await t?.drop();
});

const analyzedAt = async (table: string) =>
  (
    await queryRows<{ at: string | null }>(
      t.db,
      sql`SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = ${table}`,
    )
  )[0]?.at ?? null;

/** Waits for the statistics collector to report an analyze of the table. */
async function analyzed(table: string): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    await t.db.execute(sql`SELECT pg_stat_clear_snapshot()`);
    if (await analyzedAt(table)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** posture_analyze itself, as the service's role: its own threshold is the table's rows. */
const analyzeFn = async (table: string, connectorId: string | null, written: number) =>
  (
    await queryRows<{ analyzed: boolean }>(
      appDb,
      sql`SELECT posture_analyze(${table}, ${connectorId}, ${written}) AS analyzed`,
    )
  )[0]?.analyzed;

describe("analyzeAfterWrite", () => {
  it("analyzes a table for the restricted role, which plain ANALYZE skips", async () => {
    const [org] = await t.db.insert(organizations).values({ name: "Stats", plan: "business" }).returning();
    const [c] = await t.db
      .insert(connectors)
      .values({ orgId: org?.id ?? "", type: "google_workspace", displayName: "Drive", mode: "demo" })
      .returning();
    const rows = Array.from({ length: 1_500 }, (_, i) => ({
      orgId: org?.id ?? "",
      connectorId: c?.id ?? "",
      connectorType: "google_workspace",
      fingerprint: `fp-${i}`,
      ruleId: "public_link",
      category: "public_exposure",
      severity: "LOW" as const,
      severityRank: 1,
      title: `F ${i}`,
      resourceId: `r${i}`,
      resourceName: `r${i}`,
      resourceType: "file",
    }));
    await t.db.insert(findings).values(rows);

    await appDb.execute(sql`ANALYZE findings`);
    expect(await analyzedAt("findings")).toBeNull();

    // Below the floor (1,000 rows) or a tenth of the connector's rows: not even asked.
    expect(
      await analyzeAfterWrite(appDb, "findings", { connectorId: c?.id ?? null, written: 1_000, rows: 1_500 }),
    ).toBe(false);
    expect(await analyzedAt("findings")).toBeNull();
    expect(
      await analyzeAfterWrite(appDb, "findings", { connectorId: c?.id ?? null, written: 1_500, rows: 1_500 }),
    ).toBe(true);
    expect(await analyzed("findings")).toBe(true);
    // The table now has statistics: 100 rows written of 1,500 is not worth another pass.
    expect(await analyzeFn("findings", c?.id ?? null, 100)).toBe(false);
  });

  it("analyzes the DEFAULT partition for a connector without partitions of its own", async () => {
    // Never analyzed: however few the rows written.
    expect(await analyzeFn("workspace_files", "con_none", 10)).toBe(true);
    expect(await analyzed("workspace_files_default")).toBe(true);
  });

  it("refuses any other table", async () => {
    const err = await queryRows(appDb, sql`SELECT posture_analyze('audit_log', NULL, 1000000)`).catch(
      (e: unknown) => e,
    );
    expect(String((err as { cause?: Error }).cause?.message)).toMatch(/not a table the service analyzes/);
  });
});
