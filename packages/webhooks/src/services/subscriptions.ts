import { and, desc, eq } from "drizzle-orm";
import { webhookSubscriptions, type Db } from "@posture/db";
import { AppError, encryptSecret, notFound, recordAudit } from "@posture/platform";
import type { TEventType } from "../event-types";
import { generateSigningSecret } from "../signing";
import { TargetRefusedError, vetTarget, type TResolver } from "../ssrf";

export type TActor = { userId: string; userEmail: string };

export type TSubscriptionDeps = {
  encryptionKey: Buffer;
  allowPrivateTargets: boolean;
  resolve?: TResolver;
};

const publicColumns = {
  id: webhookSubscriptions.id,
  url: webhookSubscriptions.url,
  events: webhookSubscriptions.events,
  status: webhookSubscriptions.status,
  disabledReason: webhookSubscriptions.disabledReason,
  createdAt: webhookSubscriptions.createdAt,
};

export async function listSubscriptions(db: Db, input: { orgId: string }) {
  return db
    .select(publicColumns)
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.orgId, input.orgId))
    .orderBy(desc(webhookSubscriptions.createdAt), desc(webhookSubscriptions.id));
}

/** Creates a subscription and returns its signing secret: the only time it leaves the service. */
export async function createSubscription(
  db: Db,
  input: { orgId: string; url: string; events: TEventType[]; actor: TActor },
  deps: TSubscriptionDeps,
) {
  try {
    await vetTarget(input.url, { allowPrivateTargets: deps.allowPrivateTargets, resolve: deps.resolve });
  } catch (err) {
    if (!(err instanceof TargetRefusedError)) throw err;
    throw new AppError("invalid_input", `Webhook URL refused: ${err.message}`, {
      details: [{ path: "url", message: err.message }],
    });
  }
  const secret = generateSigningSecret();
  const [row] = await db
    .insert(webhookSubscriptions)
    .values({
      orgId: input.orgId,
      url: input.url,
      events: input.events,
      secretEnc: encryptSecret(deps.encryptionKey, secret),
    })
    .returning(publicColumns);
  if (!row) throw new Error("webhook subscription insert returned no row");
  await recordAudit(db, {
    orgId: input.orgId,
    action: "WEBHOOK_CREATED",
    target: row.id,
    userId: input.actor.userId,
    userEmail: input.actor.userEmail,
    metadata: { url: row.url, events: row.events },
  });
  return { ...row, secret };
}

/** Removes a subscription; its deliveries go with it, so queued attempts find nothing to send. */
export async function deleteSubscription(db: Db, input: { orgId: string; id: string; actor: TActor }) {
  const [row] = await db
    .delete(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, input.id), eq(webhookSubscriptions.orgId, input.orgId)))
    .returning({ id: webhookSubscriptions.id, url: webhookSubscriptions.url });
  if (!row) throw notFound("Webhook");
  await recordAudit(db, {
    orgId: input.orgId,
    action: "WEBHOOK_DELETED",
    target: row.id,
    userId: input.actor.userId,
    userEmail: input.actor.userEmail,
    metadata: { url: row.url },
  });
  return { deleted: true as const };
}

export async function assertSubscriptionInOrg(db: Db, input: { orgId: string; id: string }): Promise<void> {
  const [row] = await db
    .select({ id: webhookSubscriptions.id })
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, input.id), eq(webhookSubscriptions.orgId, input.orgId)));
  if (!row) throw notFound("Webhook");
}
