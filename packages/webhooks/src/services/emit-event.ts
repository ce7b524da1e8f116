import { sql } from "drizzle-orm";
import { events, newId, queryRows, webhookDeliveries, type Db } from "@posture/db";
import type { TJobQueue } from "@posture/platform";
import { EVENT_DATA_SCHEMAS, type TEventData, type TEventType } from "../event-types";

export const DELIVER_JOB = "webhook.deliver";

export type TEmitInput<T extends TEventType> = { orgId: string; type: T; data: TEventData<T> };

/**
 * Records an event and one pending delivery per active subscription that asked for its type, in
 * the caller's transaction: the deliveries are the outbox. The subscriptions are the
 * organization's own and, for a managed client whose consent is not withdrawn (partner_access),
 * its partner's subscriptions with `includeClients` (issue 17); such a delivery belongs to the
 * partner (its delivery log) and its body names the client. Nothing is queued here; after the
 * transaction commits, {@link dispatchDeliveries} queues them, and if that never happens (a
 * crash, Redis away) the webhook sweep finds them overdue and queues them.
 * The data is validated against the spec's field list and stored as the JSON text that will be
 * signed, so retries send identical bytes. Two statements: the event with the subscriptions it
 * reaches, then the deliveries (none when no subscription asked).
 */
export async function recordEvent<T extends TEventType>(
  tx: Db,
  input: TEmitInput<T>,
): Promise<{ eventId: string; deliveryIds: string[] }> {
  const data: unknown = EVENT_DATA_SCHEMAS[input.type].parse(input.data);
  const dataJson = JSON.stringify(data);
  const eventId = newId("evt");
  const subs = await queryRows<{ sub_id: string | null; sub_org: string | null }>(
    tx,
    sql`WITH e AS (
          INSERT INTO events (id, org_id, type, data) VALUES (${eventId}, ${input.orgId}, ${input.type}, ${dataJson})
          RETURNING id
        )
        SELECT s.id AS sub_id, s.org_id AS sub_org
        FROM e LEFT JOIN webhook_subscriptions s
          ON s.status = 'active'
         AND s.events @> ARRAY[${input.type}]::text[]
         AND (s.org_id = ${input.orgId}
              OR (s.include_clients AND s.org_id = (
                SELECT pa.partner_org_id FROM partner_access pa
                JOIN organizations o ON o.id = pa.client_org_id AND o.managed_by_org_id = pa.partner_org_id
                WHERE pa.client_org_id = ${input.orgId} AND pa.withdrawn_at IS NULL)))`,
  );
  const reached = subs.flatMap((s) => (s.sub_id && s.sub_org ? [{ id: s.sub_id, orgId: s.sub_org }] : []));
  if (reached.length === 0) return { eventId, deliveryIds: [] };
  const rows = await tx
    .insert(webhookDeliveries)
    .values(
      reached.map((s) => ({
        orgId: s.orgId,
        subscriptionId: s.id,
        eventId,
        event: input.type,
        // The event's own created_at: both are the transaction's now().
        nextAttemptAt: sql`now()`,
      })),
    )
    .returning({ id: webhookDeliveries.id });
  return { eventId, deliveryIds: rows.map((r) => r.id) };
}

/**
 * Records a `webhook.test` event and its one delivery, to the subscription asked for only (never
 * fanned out, whatever events the subscription lists), in the caller's transaction. Dispatch it
 * after commit like any other delivery: from there on it takes the normal path (signing, retries,
 * the delivery log).
 */
export async function recordTestEvent(
  tx: Db,
  input: { orgId: string; subscriptionId: string; data: TEventData<"webhook.test"> },
): Promise<{ eventId: string; deliveryId: string }> {
  const dataJson = JSON.stringify(EVENT_DATA_SCHEMAS["webhook.test"].parse(input.data));
  const [event] = await tx
    .insert(events)
    .values({ orgId: input.orgId, type: "webhook.test", data: dataJson })
    .returning({ id: events.id, createdAt: events.createdAt });
  if (!event) throw new Error("event insert returned no row");
  const [delivery] = await tx
    .insert(webhookDeliveries)
    .values({
      orgId: input.orgId,
      subscriptionId: input.subscriptionId,
      eventId: event.id,
      event: "webhook.test",
      nextAttemptAt: event.createdAt,
    })
    .returning({ id: webhookDeliveries.id });
  if (!delivery) throw new Error("delivery insert returned no row");
  return { eventId: event.id, deliveryId: delivery.id };
}

/**
 * Queues recorded deliveries; call it after their transaction committed (a job must never run
 * before its row is visible). The rows are durable, so a failed enqueue does not fail the
 * caller: the sweep re-queues what was not dispatched.
 */
export async function dispatchDeliveries(jobs: TJobQueue, deliveryIds: string[]): Promise<void> {
  await Promise.allSettled(
    deliveryIds.map((deliveryId) => jobs.enqueue(DELIVER_JOB, { deliveryId }, { jobId: deliveryId })),
  );
}

export type TEmit = <T extends TEventType>(
  input: TEmitInput<T>,
) => Promise<{ eventId: string; deliveryIds: string[] }>;

/**
 * The one way a change announces itself: runs `work` in one transaction and hands it `emit`,
 * which records each event (and its pending deliveries, the outbox) in that same transaction, so
 * the change and its events commit together or not at all. Once committed, the deliveries are
 * queued; what a crash leaves undispatched, the webhook sweep (the outbox relay) sends.
 */
export async function withEvents<R>(
  db: Db,
  jobs: TJobQueue,
  work: (tx: Db, emit: TEmit) => Promise<R>,
): Promise<R> {
  const deliveryIds: string[] = [];
  const result = await db.transaction((tx) =>
    work(tx, async (input) => {
      const recorded = await recordEvent(tx, input);
      deliveryIds.push(...recorded.deliveryIds);
      return recorded;
    }),
  );
  await dispatchDeliveries(jobs, deliveryIds);
  return result;
}
