import { and, asc, count, desc, eq, inArray, sql } from "drizzle-orm";
import { webhookDeliveries, webhookDeliveryAttempts, webhookSubscriptions, type Db } from "@posture/db";
import { AppError, audit, firstOr404, iso, offsetPage, type TActor, type TJobQueue } from "@posture/platform";
import { dispatchDeliveries } from "./emit-event";
import { assertSubscriptionInOrg } from "./subscriptions";

/** Attempts shown per delivery: the most recent ones (`attempts` still counts them all). */
export const ATTEMPTS_SHOWN = 25;

const deliveryColumns = {
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
  // A managed client's event delivered to its partner (issue 17): the client; null for the org's own.
  // Qualified by hand: drizzle leaves a one-table query's columns unqualified, and inside the
  // subquery an unqualified org_id would be the event's own.
  clientOrgId: sql<string | null>`(select e.org_id from events e
    where e.id = webhook_deliveries.event_id and e.org_id <> webhook_deliveries.org_id)`,
};

type TDeliveryRow = {
  [K in Exclude<keyof typeof deliveryColumns, "clientOrgId">]: (typeof webhookDeliveries.$inferSelect)[K];
} & { clientOrgId: string | null };

export type TAttemptView = {
  attempt: number;
  manual: boolean;
  at: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
};

/** The latest ATTEMPTS_SHOWN attempts of each delivery, oldest first, in one statement. */
async function attemptsOf(db: Db, deliveryIds: string[]): Promise<Map<string, TAttemptView[]>> {
  const byDelivery = new Map<string, TAttemptView[]>(deliveryIds.map((id) => [id, []]));
  if (deliveryIds.length === 0) return byDelivery;
  const a = webhookDeliveryAttempts;
  const ranked = db
    .select({
      deliveryId: a.deliveryId,
      attempt: a.attempt,
      manual: a.manual,
      startedAt: a.startedAt,
      durationMs: a.durationMs,
      statusCode: a.statusCode,
      error: a.error,
      rank: sql<number>`row_number() over (partition by ${a.deliveryId} order by ${a.attempt} desc)`.as(
        "rank",
      ),
    })
    .from(a)
    .where(inArray(a.deliveryId, deliveryIds))
    .as("ranked");
  const rows = await db
    .select()
    .from(ranked)
    .where(sql`${ranked.rank} <= ${ATTEMPTS_SHOWN}`)
    .orderBy(asc(ranked.deliveryId), asc(ranked.attempt));
  for (const r of rows) {
    byDelivery.get(r.deliveryId)?.push({
      attempt: r.attempt,
      manual: r.manual,
      at: iso(r.startedAt),
      durationMs: r.durationMs,
      statusCode: r.statusCode,
      error: r.error,
    });
  }
  return byDelivery;
}

const toView = (r: TDeliveryRow, history: TAttemptView[]) => ({
  ...r,
  nextAttemptAt: iso(r.nextAttemptAt),
  deliveredAt: iso(r.deliveredAt),
  createdAt: iso(r.createdAt),
  history,
});

/** One delivery as the delivery log shows it (its latest attempts included). */
export async function deliveryView(db: Db, deliveryId: string) {
  const [row] = await db
    .select(deliveryColumns)
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, deliveryId));
  if (!row) throw new Error("delivery vanished");
  const history = await attemptsOf(db, [row.id]);
  return toView(row, history.get(row.id) ?? []);
}

/** The delivery log of one subscription, newest first, each delivery with its attempts. */
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
      .select(deliveryColumns)
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(input.limit)
      .offset(input.offset),
    db.select({ n: count() }).from(webhookDeliveries).where(where),
  ]);
  const history = await attemptsOf(
    db,
    rows.map((r) => r.id),
  );
  const views = rows.map((r) => toView(r, history.get(r.id) ?? []));
  return offsetPage(views, { total: totals[0]?.n ?? 0, limit: input.limit, offset: input.offset });
}

// Claimed (the counter moved past the logged attempts) and its lease not yet run out.
const attemptInFlight = sql<boolean>`(
  ${webhookDeliveries.status} in ('pending', 'failed')
  and ${webhookDeliveries.nextAttemptAt} > now()
  and ${webhookDeliveries.attempts} > coalesce(
    (select max(${webhookDeliveryAttempts.attempt}) from ${webhookDeliveryAttempts}
      where ${webhookDeliveryAttempts.deliveryId} = ${webhookDeliveries.id}), 0))`;

/**
 * Sends a delivery again: the same event id and body, a new attempt, recorded as manual. Whatever
 * its state (delivered, failing, abandoned), the delivery is reopened and due now; if that attempt
 * fails, the usual back-off continues from the delivery's attempt count. Asking again while a
 * redelivery is queued changes nothing; while an attempt is being sent, or for a disabled
 * subscription, it is a 409.
 */
export async function redeliver(
  db: Db,
  jobs: TJobQueue,
  input: { orgId: string; actor: TActor; subscriptionId: string; deliveryId: string },
) {
  await assertSubscriptionInOrg(db, { orgId: input.orgId, id: input.subscriptionId });
  const { row, queued } = await db.transaction(async (tx) => {
    const current = firstOr404(
      await tx
        .select({
          id: webhookDeliveries.id,
          eventId: webhookDeliveries.eventId,
          event: webhookDeliveries.event,
          attempts: webhookDeliveries.attempts,
          redeliveryRequested: webhookDeliveries.redeliveryRequested,
          inFlight: attemptInFlight,
          subscriptionStatus: webhookSubscriptions.status,
        })
        .from(webhookDeliveries)
        .innerJoin(webhookSubscriptions, eq(webhookSubscriptions.id, webhookDeliveries.subscriptionId))
        .where(
          and(
            eq(webhookDeliveries.id, input.deliveryId),
            eq(webhookDeliveries.subscriptionId, input.subscriptionId),
            eq(webhookDeliveries.orgId, input.orgId),
          ),
        )
        .for("update", { of: webhookDeliveries }),
      "Delivery",
    );
    if (current.subscriptionStatus !== "active") {
      throw new AppError(
        "conflict",
        "The subscription is disabled; create a new subscription to receive events",
      );
    }
    if (current.inFlight) {
      throw new AppError(
        "conflict",
        "An attempt of this delivery is being sent; ask again once it is logged",
      );
    }
    const byId = eq(webhookDeliveries.id, current.id);
    if (current.redeliveryRequested) {
      const [unchanged] = await tx.select(deliveryColumns).from(webhookDeliveries).where(byId);
      return { row: unchanged, queued: false };
    }
    const [reopened] = await tx
      .update(webhookDeliveries)
      .set({ status: "pending", nextAttemptAt: sql`now()`, redeliveryRequested: true })
      .where(byId)
      .returning(deliveryColumns);
    await audit(tx, input, {
      action: "WEBHOOK_REDELIVERED",
      target: current.id,
      metadata: { subscriptionId: input.subscriptionId, eventId: current.eventId, event: current.event },
    });
    return { row: reopened, queued: true };
  });
  if (!row) throw new Error("delivery vanished inside its transaction");
  // After commit, like every delivery; if the queue is away, the webhook sweep sends it.
  if (queued) await dispatchDeliveries(jobs, [row.id]);
  const history = await attemptsOf(db, [row.id]);
  return toView(row, history.get(row.id) ?? []);
}
