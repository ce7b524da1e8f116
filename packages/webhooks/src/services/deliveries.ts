import { and, count, desc, eq } from "drizzle-orm";
import { webhookDeliveries, type Db } from "@posture/db";
import { iso, offsetPage } from "@posture/platform";
import { assertSubscriptionInOrg } from "./subscriptions";

/** The delivery log of one subscription, newest first. */
export async function listDeliveries(
  db: Db,
  input: { orgId: string; subscriptionId: string; limit: number; offset: number },
) {
  await assertSubscriptionInOrg(db, { orgId: input.orgId, id: input.subscriptionId });
  const where = and(
    eq(webhookDeliveries.subscriptionId, input.subscriptionId),
    eq(webhookDeliveries.orgId, input.orgId),
  );
  const [rows, totals] = await Promise.all([
    db
      .select({
        id: webhookDeliveries.id,
        eventId: webhookDeliveries.eventId,
        event: webhookDeliveries.event,
        status: webhookDeliveries.status,
        attempts: webhookDeliveries.attempts,
        lastStatusCode: webhookDeliveries.lastStatusCode,
        lastError: webhookDeliveries.lastError,
        nextAttemptAt: webhookDeliveries.nextAttemptAt,
        deliveredAt: webhookDeliveries.deliveredAt,
        createdAt: webhookDeliveries.createdAt,
      })
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(input.limit)
      .offset(input.offset),
    db.select({ n: count() }).from(webhookDeliveries).where(where),
  ]);
  const views = rows.map((r) => ({
    ...r,
    nextAttemptAt: iso(r.nextAttemptAt),
    deliveredAt: iso(r.deliveredAt),
    createdAt: iso(r.createdAt),
  }));
  return offsetPage(views, { total: totals[0]?.n ?? 0, limit: input.limit, offset: input.offset });
}
