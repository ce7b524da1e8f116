import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedDb, type DbHandle, queryRows } from "./client";
import { DatabaseBusyError } from "./embedded-gate";

// The embedded database's gate (issue 33): a request gives up behind a job's transaction instead
// of waiting for all of it, never runs after it gave up, and goes ahead of queued background work.

let handle: DbHandle;
const bound = { statementTimeoutMs: 200, queryTimeoutMs: 300 };

beforeAll(async () => {
  handle = await createEmbeddedDb();
  await handle.db.execute(sql`CREATE TABLE gate_probe (n int NOT NULL, who text NOT NULL)`);
}, 60_000);
afterAll(() => handle.close());

/** A background transaction holding the database while `during` runs; what `during` answered. */
async function whileJobHolds<T>(during: () => Promise<T>): Promise<T> {
  let release = () => {};
  let started = () => {};
  const isStarted = new Promise<void>((r) => (started = r));
  const held = new Promise<void>((r) => (release = r));
  const job = handle.db.transaction(async (tx) => {
    await tx.execute(sql`INSERT INTO gate_probe VALUES (1, 'job')`);
    started();
    await held;
  });
  await isStarted;
  try {
    return await during();
  } finally {
    release();
    await job;
  }
}

const settle = <T>(p: Promise<T>): Promise<T | Error> => p.catch((err: Error) => err);
const probeRows = () =>
  queryRows<{ n: number; who: string }>(handle.db, sql`SELECT n, who FROM gate_probe ORDER BY n`);

describe("the embedded database's gate", () => {
  it("answers a request behind a running job with DatabaseBusyError, and never runs it later", async () => {
    const { err, gate, waited } = await whileJobHolds(async () => {
      const t0 = Date.now();
      const err = await settle(
        handle.withBound(bound).execute(sql`INSERT INTO gate_probe VALUES (2, 'request')`),
      );
      return { err, waited: Date.now() - t0, gate: handle.gateStats?.() };
    });
    // Drizzle wraps the driver's error ("Failed query: …") with it as the cause.
    const cause = err instanceof Error ? err.cause : null;
    expect(cause).toBeInstanceOf(DatabaseBusyError);
    expect((cause as Error).message).toMatch(
      /^Database busy: the embedded database is running background work \(a scan or a job\) for 0 s; this request waited \d+ ms/,
    );
    expect(waited).toBeLessThan(5_000);
    expect(gate).toEqual({ running: true, interactive: 0, background: 0 });
    expect(await probeRows()).toEqual([{ n: 1, who: "job" }]);
    await handle.db.execute(sql`DELETE FROM gate_probe`);
  });

  it("lets a request go ahead of background work that has not started", async () => {
    const order: string[] = [];
    let background: Promise<unknown> = Promise.resolve();
    let request: Promise<unknown> = Promise.resolve();
    const gate = await whileJobHolds(async () => {
      background = handle.db
        .execute(sql`INSERT INTO gate_probe VALUES (3, 'queued job')`)
        .then(() => order.push("background"));
      request = handle
        .withBound({ statementTimeoutMs: 5_000, queryTimeoutMs: 10_000 })
        .execute(sql`INSERT INTO gate_probe VALUES (4, 'request')`)
        .then(() => order.push("request"));
      return handle.gateStats?.();
    });
    await Promise.all([background, request]);
    expect(gate).toEqual({ running: true, interactive: 1, background: 1 });
    expect(order).toEqual(["request", "background"]);
    expect((await probeRows()).map((r) => r.n)).toEqual([1, 3, 4]);
  });

  it("answers readiness while a job holds the database", async () => {
    const ping = await whileJobHolds(() => settle(handle.ping().then(() => "ok")));
    expect(ping).toBe("ok");
  });
});
