import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll } from "vitest";
import { organizations, webhookDeliveries } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { createInProcessQueue } from "@posture/jobs";
import type { TActor, TEnqueueOptions, TJobQueue, TLogger, TRuntime } from "@posture/platform";
import type { TEventType } from "../event-types";
import { createSubscription } from "../services/subscriptions";
import type { TResolver } from "@posture/platform";
import { startReceiver, waitFor, type TReceiver } from "../testing";
import type { TBackoff } from "./backoff";
import { webhookJobDefinitions } from "./definitions";

// Shared set-up of the delivery integration tests: a database of the calling file's own,
// real receivers on 127.0.0.1, and queues running the real handlers.
export const silent: TLogger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };
export const actor: TActor = { kind: "session", userId: "usr_test", email: "admin@example.test" };
export const violation = { ruleId: "rule-1", severity: "HIGH" as const, count: 3 };

export function useDeliveryFixtures() {
  const state: { tdb?: TestDb } = {};
  const receivers: TReceiver[] = [];
  const queues: TJobQueue[] = [];
  const runtime: TRuntime = {
    encryptionKey: randomBytes(32),
    publicUrl: "http://localhost",
    webhookAllowPrivateTargets: true,
  };

  beforeAll(async () => {
    state.tdb = await createTestDb();
  });

  afterAll(async () => {
    await Promise.all(queues.map((q) => q.close()));
    await Promise.all(receivers.map((r) => r.close()));
    await state.tdb?.drop();
  });

  const db = () => {
    if (!state.tdb) throw new Error("database not ready");
    return state.tdb.db;
  };

  /** The connection URL of the file's database (for tests that reach it another way). */
  const dbUrl = () => {
    if (!state.tdb) throw new Error("database not ready");
    return state.tdb.url;
  };

  async function receiver(...args: Parameters<typeof startReceiver>) {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  }

  async function org() {
    const [o] = await db()
      .insert(organizations)
      .values({ name: `Org ${randomBytes(3).toString("hex")}`, plan: "business" })
      .returning();
    if (!o) throw new Error("org insert failed");
    return o.id;
  }

  /** A real in-process queue running the real webhook handlers, with test-sized waits. */
  function liveQueue(o: { backoff?: TBackoff; runtime?: TRuntime; resolve?: TResolver } = {}) {
    // The handlers enqueue their own retries, so the registry is read lazily, after the queue exists.
    const jobs: TJobQueue = createInProcessQueue(() =>
      webhookJobDefinitions({
        db: db(),
        runtime: o.runtime ?? runtime,
        jobs,
        log: silent,
        backoff: o.backoff ?? (() => 20),
        resolve: o.resolve,
      }),
    );
    queues.push(jobs);
    return jobs;
  }

  /** Records what the handler schedules without running it, to inspect one attempt at a time. */
  function recordingQueue() {
    const calls: Array<{ name: string; data: unknown; opts: TEnqueueOptions | undefined }> = [];
    const q: TJobQueue = {
      enqueue: async (name, data, opts) => void calls.push({ name, data, opts }),
      runAndWait: async () => {
        throw new Error("not used");
      },
      ping: async () => {},
      close: async () => {},
    };
    return { q, calls };
  }

  async function subscribe(
    orgId: string,
    url: string,
    events: TEventType[] = ["policy.violation"],
    o: { resolve?: TResolver; allowPrivateTargets?: boolean } = {},
  ) {
    return createSubscription(
      db(),
      { orgId, url, events, actor },
      {
        encryptionKey: runtime.encryptionKey,
        allowPrivateTargets: o.allowPrivateTargets ?? true,
        resolve: o.resolve,
      },
    );
  }

  async function delivery(id: string) {
    const [row] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    return row;
  }

  const waitForStatus = (id: string, status: string) =>
    waitFor(async () => ((await delivery(id))?.status === status ? delivery(id) : undefined));

  return { db, dbUrl, runtime, receiver, org, liveQueue, recordingQueue, subscribe, delivery, waitForStatus };
}
