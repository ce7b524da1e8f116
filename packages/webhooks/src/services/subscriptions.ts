import { and, count, desc, eq, sql } from "drizzle-orm";
import { webhookSubscriptions, type Db } from "@posture/db";
import {
  AppError,
  audit,
  encryptSecret,
  firstOr404,
  iso,
  TargetRefusedError,
  vetTarget,
  type TActor,
  type TResolver,
} from "@posture/platform";
import type { TEventType } from "../event-types";
import { generateSigningSecret } from "../signing";

/** Subscriptions per organization: each event fans out to every one, so they are bounded. */
export const MAX_SUBSCRIPTIONS_PER_ORG = 25;

export type TSubscriptionDeps = {
  encryptionKey: Buffer;
  allowPrivateTargets: boolean;
  resolve?: TResolver;
};

const publicColumns = {
  id: webhookSubscriptions.id,
  url: webhookSubscriptions.url,
  events: webhookSubscriptions.events,
  includeClients: webhookSubscriptions.includeClients,
  status: webhookSubscriptions.status,
  disabledReason: webhookSubscriptions.disabledReason,
  createdAt: webhookSubscriptions.createdAt,
};

type TSubscriptionRow = {
  [K in keyof typeof publicColumns]: (typeof webhookSubscriptions.$inferSelect)[K];
};

const toView = (r: TSubscriptionRow) => ({ ...r, createdAt: iso(r.createdAt) });

export async function listSubscriptions(db: Db, input: { orgId: string }) {
  const rows = await db
    .select(publicColumns)
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.orgId, input.orgId))
    .orderBy(desc(webhookSubscriptions.createdAt), desc(webhookSubscriptions.id));
  return rows.map(toView);
}

/** Creates a subscription and returns its signing secret: the only time it leaves the service. */
export async function createSubscription(
  db: Db,
  input: {
    orgId: string;
    actor: TActor;
    url: string;
    events: TEventType[];
    /** Also the managed clients' events (issue 17): a partner organization's subscriptions only. */
    includeClients?: boolean | undefined;
    isPartner?: boolean | undefined;
  },
  deps: TSubscriptionDeps,
) {
  const includeClients = input.includeClients ?? false;
  if (includeClients && !input.isPartner)
    throw new AppError("invalid_input", "includeClients is for a partner organization's subscriptions", {
      details: [
        { path: "includeClients", message: "only a partner organization receives its clients' events" },
      ],
    });
  try {
    await vetTarget(input.url, { allowPrivateTargets: deps.allowPrivateTargets, resolve: deps.resolve });
  } catch (err) {
    if (!(err instanceof TargetRefusedError)) throw err;
    throw new AppError("invalid_input", `Webhook URL refused: ${err.message}`, {
      details: [{ path: "url", message: err.message }],
    });
  }
  const secret = generateSigningSecret();
  const row = await db.transaction(async (tx) => {
    // Serialises concurrent creations of one organization, so the cap cannot be raced past.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`webhooks:${input.orgId}`}, 0))`);
    const [existing] = await tx
      .select({ n: count() })
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.orgId, input.orgId));
    if ((existing?.n ?? 0) >= MAX_SUBSCRIPTIONS_PER_ORG) {
      throw new AppError(
        "conflict",
        `An organization can have at most ${MAX_SUBSCRIPTIONS_PER_ORG} webhook subscriptions; delete one first`,
      );
    }
    const [inserted] = await tx
      .insert(webhookSubscriptions)
      .values({
        orgId: input.orgId,
        url: input.url,
        events: input.events,
        includeClients,
        secretEnc: encryptSecret(deps.encryptionKey, secret),
      })
      .returning(publicColumns);
    if (!inserted) throw new Error("webhook subscription insert returned no row");
    await audit(tx, input, {
      action: "WEBHOOK_CREATED",
      target: inserted.id,
      metadata: { url: inserted.url, events: inserted.events, includeClients },
    });
    return inserted;
  });
  return { ...toView(row), secret };
}

/** Removes a subscription; its deliveries go with it, so queued attempts find nothing to send. */
export async function deleteSubscription(db: Db, input: { orgId: string; actor: TActor; id: string }) {
  await db.transaction(async (tx) => {
    const row = firstOr404(
      await tx
        .delete(webhookSubscriptions)
        .where(and(eq(webhookSubscriptions.id, input.id), eq(webhookSubscriptions.orgId, input.orgId)))
        .returning({ id: webhookSubscriptions.id, url: webhookSubscriptions.url }),
      "Webhook",
    );
    await audit(tx, input, { action: "WEBHOOK_DELETED", target: row.id, metadata: { url: row.url } });
  });
  return { deleted: true as const };
}

export async function assertSubscriptionInOrg(db: Db, input: { orgId: string; id: string }): Promise<void> {
  firstOr404(
    await db
      .select({ id: webhookSubscriptions.id })
      .from(webhookSubscriptions)
      .where(and(eq(webhookSubscriptions.id, input.id), eq(webhookSubscriptions.orgId, input.orgId))),
    "Webhook",
  );
}
