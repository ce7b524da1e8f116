import { and, arrayContains, eq } from "drizzle-orm";
import { events, webhookDeliveries, webhookSubscriptions, type Db } from "@posture/db";
import type { TJobQueue } from "@posture/platform";
import { EVENT_DATA_SCHEMAS, type TEventData, type TEventType } from "../event-types";

export const DELIVER_JOB = "webhook.deliver";

export type TEmitInput<T extends TEventType> = { orgId: string; type: T; data: TEventData<T> };

/**
 * Records an event and queues one delivery per active subscription of the organization that
 * asked for its type. The data is validated against the spec's field list and stored as the
 * JSON text that will be signed, so retries send identical bytes.
 */
export async function emitEvent<T extends TEventType>(
  db: Db,
  jobs: TJobQueue,
  input: TEmitInput<T>,
): Promise<{ eventId: string; deliveryIds: string[] }> {
  const data: unknown = EVENT_DATA_SCHEMAS[input.type].parse(input.data);
  const dataJson = JSON.stringify(data);
  const { eventId, deliveryIds } = await db.transaction(async (tx) => {
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
  });
  // After commit: a job must never run before its row is visible. The rows are durable, so a
  // failed enqueue must not fail the emitter (a scan, say): the sweep job re-queues it.
  await Promise.allSettled(
    deliveryIds.map((deliveryId) => jobs.enqueue(DELIVER_JOB, { deliveryId }, { jobId: deliveryId })),
  );
  return { eventId, deliveryIds };
}
