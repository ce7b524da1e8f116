import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditLog,
  connectors,
  createDb,
  organizations,
  partitionName,
  queryRows,
  type Db,
} from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import type { TActor } from "@posture/platform";
import { deleteConnector } from "./connectors";

// A connector whose first snapshot was large has store partitions of its own (migration 0020):
// deleting it empties them at once and drops them, instead of the cascade deleting their rows.

let t: TestDb;
let db: Db;
const actor: TActor = { kind: "session", userId: "usr_admin", email: "admin@example.test" };

beforeAll(async () => {
  t = await createTestDb();
  db = t.db;
});
afterAll(async () => {
  await t?.drop();
});

async function partitioned(name: string): Promise<{ orgId: string; connectorId: string }> {
  const [org] = await db.insert(organizations).values({ name, plan: "business" }).returning();
  const orgId = org?.id ?? "";
  const [c] = await db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: name, mode: "demo", config: {} })
    .returning();
  const connectorId = c?.id ?? "";
  // What a large first snapshot leaves: the connector's tables, indexed and attached.
  await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT workspace_partition_create(${connectorId})`);
    await tx.execute(sql`SELECT workspace_partition_index(${connectorId})`);
    await tx.execute(sql`SELECT workspace_partition_attach(${connectorId})`);
  });
  await db.execute(sql`
    INSERT INTO workspace_files (id, org_id, connector_id, external_id, name, mime_type, owner_email,
      sensitivity, exposure, modified_at)
    SELECT 'wsf_' || i, ${orgId}, ${connectorId}, 'f' || i, 'file', 'text/plain', 'a@x.example', 'low',
      'private', now() FROM generate_series(1, 100) i`);
  return { orgId, connectorId };
}

const partitionsOf = async (connectorId: string) => {
  const names = (["workspace_files", "workspace_permissions", "workspace_shares"] as const).map((tb) =>
    partitionName(tb, connectorId),
  );
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM pg_class WHERE relname IN (${sql.join(
      names.map((n) => sql`${n}`),
      sql`, `,
    )})`,
  );
  return row?.n;
};

describe("deleting a connector with partitions of its own", () => {
  it("leaves no partition and no rows, and writes its audit row", async () => {
    const a = await partitioned("Large");
    expect(await partitionsOf(a.connectorId)).toBe(3);
    await deleteConnector(db, { orgId: a.orgId, actor, id: a.connectorId });
    expect(await partitionsOf(a.connectorId)).toBe(0);
    const [rows] = await queryRows<{ n: number }>(
      db,
      sql`SELECT count(*)::int AS n FROM workspace_files WHERE connector_id = ${a.connectorId}`,
    );
    expect(rows?.n).toBe(0);
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, a.orgId), eq(auditLog.action, "CONNECTOR_DISCONNECTED")));
    expect(audit).toHaveLength(1);
  });

  it("touches nothing of another organization's connector", async () => {
    const a = await partitioned("Theirs");
    const b = await partitioned("Mine");
    await expect(deleteConnector(db, { orgId: b.orgId, actor, id: a.connectorId })).rejects.toThrow(
      "Connector not found",
    );
    expect(await partitionsOf(a.connectorId)).toBe(3);
    const [rows] = await queryRows<{ n: number }>(
      db,
      sql`SELECT count(*)::int AS n FROM workspace_files WHERE connector_id = ${a.connectorId}`,
    );
    expect(rows?.n).toBe(100);
  });

  it("answers 409, deleting nothing, while a scan holds the connector's partitions", async () => {
    const a = await partitioned("Busy");
    const other = createDb({ databaseUrl: t.url, poolSize: 1 });
    try {
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked = () => {};
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const busy = other.db.transaction(async (tx) => {
        await tx.execute(
          sql`UPDATE workspace_files SET size_bytes = 1 WHERE connector_id = ${a.connectorId} AND id = 'wsf_1'`,
        );
        locked();
        await held;
      });
      await isLocked;
      const started = Date.now();
      await expect(deleteConnector(db, { orgId: a.orgId, actor, id: a.connectorId })).rejects.toMatchObject({
        code: "conflict",
      });
      expect(Date.now() - started).toBeGreaterThan(1_000);
      release();
      await busy;
      expect(await partitionsOf(a.connectorId)).toBe(3);
      const [c] = await db.select().from(connectors).where(eq(connectors.id, a.connectorId));
      expect(c?.id).toBe(a.connectorId);
    } finally {
      await other.close();
    }
  }, 30_000);
});
