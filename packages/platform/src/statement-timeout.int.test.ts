import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowLongStatements, createDb, queryRows, type DbHandle } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { toWireError } from "./wire-error";

// Every pooled session carries statement_timeout; a transaction that must run long raises it
// for itself only. A cancelled statement reaches the client as 503, not 500.
let t: TestDb;
let bounded: DbHandle;
beforeAll(async () => {
  t = await createTestDb();
  bounded = createDb({ databaseUrl: t.url, poolSize: 2, statementTimeoutMs: 150 });
});
afterAll(async () => {
  await bounded?.close();
  await t?.drop();
});

describe("statement_timeout", () => {
  it("applies to every pooled session", async () => {
    const [row] = await queryRows<{ statement_timeout: string }>(bounded.db, sql`show statement_timeout`);
    expect(row?.statement_timeout).toBe("150ms");
  });

  it("cancels a statement past it, and the wire sees 503 service_unavailable", async () => {
    const err = await bounded.db.execute(sql`select pg_sleep(1)`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).not.toBeNull();
    const wire = toWireError(err);
    expect(wire.status).toBe(503);
    expect(wire.body.error).toBe("service_unavailable");
  });

  it("allowLongStatements raises it for one transaction only", async () => {
    await bounded.db.transaction(async (tx) => {
      await tx.execute(allowLongStatements(5_000));
      await tx.execute(sql`select pg_sleep(0.4)`);
    });
    // The next statement on the same pool is bounded again.
    await expect(bounded.db.execute(sql`select pg_sleep(0.4)`)).rejects.toBeDefined();
  });

  it("the client-side bound is raised with it, and fails the query (503) when the server says nothing", async () => {
    // statement_timeout off: only the client's own bound can end a wait (a frozen server's case).
    const clientBound = createDb({
      databaseUrl: t.url,
      poolSize: 1,
      statementTimeoutMs: 0,
      queryTimeoutMs: 200,
    });
    try {
      const started = Date.now();
      const err = await clientBound.db.execute(sql`select pg_sleep(2)`).then(
        () => null,
        (e: unknown) => e,
      );
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(toWireError(err).body.error).toBe("service_unavailable");
      // The connection was dropped, not reused: the next query runs on a fresh one.
      const [row] = await queryRows<{ ok: number }>(clientBound.db, sql`select 1 as ok`);
      expect(row?.ok).toBe(1);
      // A job's long transaction raises the client bound with its statement bound.
      await clientBound.db.transaction(async (tx) => {
        await tx.execute(allowLongStatements(5_000));
        await tx.execute(sql`select pg_sleep(0.4)`);
      });
    } finally {
      await clientBound.close();
    }
  });

  it("defaults to 5 s for a pool created without one", async () => {
    const [row] = await queryRows<{ statement_timeout: string }>(t.db, sql`show statement_timeout`);
    expect(row?.statement_timeout).toBe("5s");
  });
});
