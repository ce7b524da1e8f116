import { and, eq } from "drizzle-orm";
import { webhookSubscriptions, type Db } from "@posture/db";
import { AppError, audit, firstOr404, type TActor, type TJobQueue } from "@posture/platform";
import { deliveryView } from "./deliveries";
import { dispatchDeliveries, recordTestEvent } from "./emit-event";

/**
 * Sends a signed `webhook.test` event to one subscription (GitHub's ping, Stripe's "send test
 * webhook"): an event and one delivery, recorded with the audit row in one transaction, then the
 * normal delivery path — the same signing (both secrets during a rotation's overlap), retries and
 * delivery log as every event. Only this subscription gets it, whatever events it lists. A disabled
 * subscription is a 409: nothing is sent to it any more.
 */
export async function sendTestDelivery(
  db: Db,
  jobs: TJobQueue,
  input: { orgId: string; actor: TActor; id: string },
) {
  const deliveryId = await db.transaction(async (tx) => {
    const sub = firstOr404(
      await tx
        .select({ id: webhookSubscriptions.id, status: webhookSubscriptions.status })
        .from(webhookSubscriptions)
        .where(and(eq(webhookSubscriptions.id, input.id), eq(webhookSubscriptions.orgId, input.orgId)))
        .limit(1),
      "Webhook",
    );
    if (sub.status !== "active")
      throw new AppError(
        "conflict",
        "The subscription is disabled; create a new subscription to receive events",
      );
    const recorded = await recordTestEvent(tx, {
      orgId: input.orgId,
      subscriptionId: sub.id,
      data: {
        subscriptionId: sub.id,
        requestedBy: input.actor.email,
        message: "A test delivery: if you can read this, the subscription works and its signatures verify.",
      },
    });
    await audit(tx, input, {
      action: "WEBHOOK_TESTED",
      target: sub.id,
      metadata: { eventId: recorded.eventId, deliveryId: recorded.deliveryId },
    });
    return recorded.deliveryId;
  });
  // After commit, like every delivery; if the queue is away, the webhook sweep sends it.
  await dispatchDeliveries(jobs, [deliveryId]);
  return deliveryView(db, deliveryId);
}
