import { afterAll, beforeAll, expect } from "vitest";
import { createInProcessQueue, withDataWrites } from "@posture/jobs";
import type { TJobQueue, TLogger } from "@posture/platform";
import { webhookJobDefinitions } from "@posture/webhooks";
import { startReceiver, type TReceiver } from "@posture/webhooks/testing";
import { startTestGateway, type TTestGateway } from "../../testing";

const silent: TLogger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };

export type TWebhookBody = {
  id: string;
  url: string;
  events: string[];
  status: string;
  disabledReason: string | null;
  createdAt: string;
  secret?: string;
};
export type TAttemptBody = {
  attempt: number;
  manual: boolean;
  at: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
};
export type TDeliveryBody = {
  id: string;
  eventId: string;
  event: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
  history: TAttemptBody[];
};
export type TDeliveriesBody = {
  rows: TDeliveryBody[];
  total: number;
  limit: number;
  offset: number;
};

export const violation = { ruleId: "rule-7", severity: "CRITICAL" as const, count: 2 };

type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;

/**
 * A gateway that may send to private targets (as in local development), whose queue runs the
 * real webhook handlers with a test-sized back-off (three attempts, 20 ms apart). The registry
 * needs the gateway's own database and runtime, which exist only once it has started: the queue
 * reads it lazily.
 */
export function useWebhookGateway() {
  const state: { gw?: TTestGateway; jobs?: TJobQueue; admin?: TActor } = {};
  const receivers: TReceiver[] = [];
  const need = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error("webhook gateway not started");
    return v;
  };

  beforeAll(async () => {
    const jobs = createInProcessQueue(() => {
      const gw = need(state.gw);
      const registry = webhookJobDefinitions({
        db: gw.db.db,
        runtime: gw.gateway.deps.runtime,
        jobs,
        log: silent,
        backoff: (failed) => (failed < 3 ? 20 : null),
      });
      // As the service composes its jobs: each a write of its organization, for the read cache.
      const writes = gw.gateway.deps.dataWrites;
      return writes ? withDataWrites(registry, writes) : registry;
    });
    state.jobs = jobs;
    state.gw = await startTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }, jobs });
    state.admin = await state.gw.createActor({ role: "ADMIN" });
  });

  afterAll(async () => {
    await state.jobs?.close();
    await Promise.all(receivers.map((r) => r.close()));
    await state.gw?.close();
  });

  return {
    get gw() {
      return need(state.gw);
    },
    get jobs() {
      return need(state.jobs);
    },
    /** An ADMIN (not OWNER) of a business organization. */
    get admin() {
      return need(state.admin);
    },
    async receiver(...args: Parameters<typeof startReceiver>) {
      const r = await startReceiver(...args);
      receivers.push(r);
      return r;
    },
    async create(url: string, events = ["policy.violation"], cookie?: string) {
      const res = await need(state.gw).request("POST", "/api/webhooks", {
        cookie: cookie ?? need(state.admin).cookie,
        body: { url, events },
      });
      expect(res.status).toBe(201);
      return res.body as TWebhookBody & { secret: string };
    },
    async deliveries(id: string, query = "", cookie?: string) {
      const res = await need(state.gw).request("GET", `/api/webhooks/${id}/deliveries${query}`, {
        cookie: cookie ?? need(state.admin).cookie,
      });
      expect(res.status).toBe(200);
      return res.body as TDeliveriesBody;
    },
  };
}
