import { and, arrayContains, eq } from "drizzle-orm";
import { events, webhookDeliveries, webhookSubscriptions, type Db } from "@posture/db";
import type { TJobQueue } from "@posture/platform";
import { EVENT_DATA_SCHEMAS, type TEventData, type TEventType } from "../event-types";

export const DELIVER_JOB = "webhook.deliver";

export type TEmitInput<T extends TEventType> = { orgId: string; type: T; data: TEventData<T> };

/**
 * Records an event and one pending delivery per active subscription of the organization that
 * asked for its type, in the caller's transaction: the deliveries are the outbox. Nothing is
 * queued here; after the transaction commits, {@link dispatchDeliveries} queues them, and if that
 * never happens (a crash, Redis away) the webhook sweep finds them overdue and queues them.
 * The data is validated against the spec's field list and stored as the JSON text that will be
 * signed, so retries send identical bytes.
 */
export async function recordEvent<T extends TEventType>(
  tx: Db,
  input: TEmitInput<T>,
): Promise<{ eventId: string; deliveryIds: string[] }> {
  const data: unknown = EVENT_DATA_SCHEMAS[input.type].parse(input.data);
  const dataJson = JSON.stringify(data);
  const [event] = await tx
    .insert(events)
    .values({ orgId: input.orgId, type: input.type, data: dataJson })
    .returning({ id: events.id, createdAt: events.createdAt });
  if (!event) throw new Error("event insert returned no row");
  const subs = await tx
    .select({ id: webhookSubscriptions.id })
    .from(webhookSubscriptions)
    .where(
      and(
        eq(webhookSubscriptions.orgId, input.orgId),
        eq(webhookSubscriptions.status, "active"),
        arrayContains(webhookSubscriptions.events, [input.type]),
      ),
    );
  if (subs.length === 0) return { eventId: event.id, deliveryIds: [] };
  const rows = await tx
    .insert(webhookDeliveries)
    .values(
      subs.map((s) => ({
        orgId: input.orgId,
        subscriptionId: s.id,
        eventId: event.id,
        event: input.type,
        nextAttemptAt: event.createdAt,
      })),
    )
    .returning({ id: webhookDeliveries.id });
  return { eventId: event.id, deliveryIds: rows.map((r) => r.id) };
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
