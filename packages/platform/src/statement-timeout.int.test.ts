import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowLongStatements, createDb, queryRows, requestBound, type DbHandle } from "@posture/db";
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

describe("a bounded view of the pool (interactive requests)", () => {
  const settingOf = async (db: DbHandle["db"]) => {
    const [row] = await queryRows<{ statement_timeout: string; pid: number }>(
      db,
      sql`select current_setting('statement_timeout') as statement_timeout, pg_backend_pid() as pid`,
    );
    return row;
  };

  it("derives its statement bound from the request bound: the server cancels a quarter earlier", () => {
    expect(requestBound(2_000)).toEqual({ statementTimeoutMs: 1_500, queryTimeoutMs: 2_000 });
    expect(requestBound(8_000)).toEqual({ statementTimeoutMs: 7_000, queryTimeoutMs: 8_000 });
    expect(requestBound(0)).toEqual({ statementTimeoutMs: 0, queryTimeoutMs: 0 });
  });

  it("runs on the pool's own connections, each statement under the view's bound, and hands them back at the pool's", async () => {
    const one = createDb({ databaseUrl: t.url, poolSize: 1, statementTimeoutMs: 5_000 });
    try {
      const view = one.withBound(requestBound(2_000));
      expect(one.withBound(requestBound(2_000))).toBe(view);
      const pooled = await settingOf(one.db);
      const viewed = await settingOf(view);
      const back = await settingOf(one.db);
      expect(pooled?.statement_timeout).toBe("5s");
      expect(viewed?.statement_timeout).toBe("1500ms");
      expect(back?.statement_timeout).toBe("5s");
      // One connection throughout: the bound is a SET on it, not a pool of its own.
      expect(new Set([pooled?.pid, viewed?.pid, back?.pid]).size).toBe(1);
      // A transaction of the view: its bound from `begin` on; allowLongStatements still raises it.
      await view.transaction(async (tx) => {
        expect((await settingOf(tx))?.statement_timeout).toBe("1500ms");
        await tx.execute(allowLongStatements(5_000));
        await tx.execute(sql`select pg_sleep(1.7)`);
      });
      expect((await settingOf(one.db))?.statement_timeout).toBe("5s");
    } finally {
      await one.close();
    }
  });

  it("a slow statement on a live server is cancelled by the server (503) and its connection kept", async () => {
    const one = createDb({ databaseUrl: t.url, poolSize: 1, statementTimeoutMs: 5_000 });
    try {
      const view = one.withBound(requestBound(800));
      const before = await settingOf(view);
      expect(before?.statement_timeout).toBe("600ms");
      const started = Date.now();
      const err = await view.execute(sql`select pg_sleep(3)`).then(
        () => null,
        (e: unknown) => e,
      );
      const elapsed = Date.now() - started;
      expect((err as { cause?: { code?: string } }).cause?.code).toBe("57014");
      expect(toWireError(err).status).toBe(503);
      expect(elapsed).toBeLessThan(2_500);
      // The pool's own bound would have let it run: the same statement, shorter, on the pool.
      await one.db.execute(sql`select pg_sleep(0.9)`);
      expect((await settingOf(view))?.pid).toBe(before?.pid);
    } finally {
      await one.close();
    }
  });

  it("the client gives up at the view's bound when the server says nothing, and the pool goes on", async () => {
    // statement_timeout off: only the client's bound can end the wait (a frozen server's case).
    const one = createDb({ databaseUrl: t.url, poolSize: 1, statementTimeoutMs: 0 });
    try {
      const view = one.withBound({ statementTimeoutMs: 0, queryTimeoutMs: 300 });
      const started = Date.now();
      const err = await view.execute(sql`select pg_sleep(3)`).then(
        () => null,
        (e: unknown) => e,
      );
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(toWireError(err).body.error).toBe("service_unavailable");
      // The dropped connection is replaced; the pool's own bound (none) lets a long one finish.
      await one.db.execute(sql`select pg_sleep(0.5)`);
      const [row] = await queryRows<{ ok: number }>(view, sql`select 1 as ok`);
      expect(row?.ok).toBe(1);
    } finally {
      await one.close();
    }
  });
});
