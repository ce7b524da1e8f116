import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { createDb, webhookDeliveryAttempts, type DbHandle } from "@posture/db";
import { TcpRelay } from "@posture/platform/testing";
import { emitEvent } from "../testing";
import { deliverWebhook, RECORD_JOB, type TDeliverDeps } from "./deliver";
import { webhookJobDefinitions } from "./definitions";
import { silent, useDeliveryFixtures, violation } from "./delivery-fixtures";

// A delivery attempt made while the database goes away is still logged: the receiver had the
// request, so the log must say so once the database is back.

const { db, dbUrl, runtime, receiver, org, recordingQueue, subscribe, delivery } = useDeliveryFixtures();

const handles: DbHandle[] = [];
afterAll(async () => {
  // drizzle does not release a pooled client whose BEGIN fails (the connection died in the cut),
  // so a pool here may never finish ending: it is left to end with the process, relays open.
  for (const h of handles) void h.close().catch(() => {});
});

/** The test database, reached through a relay the test can cut. */
async function dbThroughRelay() {
  const relay = new TcpRelay(dbUrl(), 5432);
  await relay.start();
  const handle = createDb({ databaseUrl: relay.through(dbUrl()), poolSize: 2 });
  handles.push(handle);
  return { relay, db: handle.db };
}

const attemptsOf = (deliveryId: string) =>
  db().select().from(webhookDeliveryAttempts).where(eq(webhookDeliveryAttempts.deliveryId, deliveryId));

describe("a delivery attempt during a database outage", () => {
  it("is logged once the database is back, and the delivery marked delivered", async () => {
    const { relay, db: outageDb } = await dbThroughRelay();
    // The database goes away while the receiver holds the request; it answers 200 after 100 ms.
    const rx = await receiver((_req, _i, res) => {
      void relay.cut("refuse");
      setTimeout(() => res.writeHead(200).end("ok"), 100);
      return "hang";
    });
    const orgId = await org();
    await subscribe(orgId, rx.url);
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    // Back after 1.5 s: within the handler's own retries of the recording.
    setTimeout(() => void relay.restore(), 1_500);

    const deps: TDeliverDeps = { db: outageDb, runtime, jobs: q, log: silent, recordBudgetMs: 10_000 };
    await expect(deliverWebhook(deps, id)).resolves.toBe("delivered");
    expect(rx.received).toHaveLength(1);
    expect(await attemptsOf(id)).toMatchObject([{ attempt: 1, statusCode: 200, error: null }]);
    expect(await delivery(id)).toMatchObject({ status: "delivered", attempts: 1, lastStatusCode: 200 });
  });

  it("is handed to a job of its own when the outage outlasts the handler, and logged by it", async () => {
    const { relay, db: outageDb } = await dbThroughRelay();
    // (The answer waits until the pool has seen its connections die: drizzle leaks a client whose
    // BEGIN fails on a connection that died unnoticed, a race of its own, not this test's.)
    const rx = await receiver((_req, _i, res) => {
      void relay.cut("refuse");
      setTimeout(() => res.writeHead(503).end("down"), 200);
      return "hang";
    });
    const orgId = await org();
    await subscribe(orgId, rx.url);
    const { q, calls } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";

    const deps: TDeliverDeps = {
      db: outageDb,
      runtime,
      jobs: q,
      log: silent,
      recordBudgetMs: 500,
      backoff: () => 60_000,
    };
    await expect(deliverWebhook(deps, id)).resolves.toBe("record-deferred");
    expect(await attemptsOf(id)).toEqual([]);
    const record = calls.find((c) => c.name === RECORD_JOB);
    expect(record?.opts?.jobId).toBe(`${id}-record-1`);

    // The database is back; the recording job runs (through the queue's own retries meanwhile).
    await relay.restore();
    const handler = webhookJobDefinitions(deps)[RECORD_JOB]?.handler;
    await expect(handler?.(record?.data, { jobId: `${id}-record-1`, attempt: 1 })).resolves.toBe(
      "retry-scheduled",
    );
    expect(await attemptsOf(id)).toMatchObject([
      { attempt: 1, statusCode: 503, error: "receiver answered HTTP 503" },
    ]);
    expect(await delivery(id)).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 503 });
    // Recording twice (a retried job) logs the attempt once.
    await handler?.(record?.data, { jobId: `${id}-record-1`, attempt: 2 });
    expect(await attemptsOf(id)).toHaveLength(1);
  });
});
