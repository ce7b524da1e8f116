import { and, eq, sql } from "drizzle-orm";
import { webhookSubscriptions, type Db } from "@posture/db";
import { audit, encryptSecret, firstOr404, iso, type TActor } from "@posture/platform";
import { generateSigningSecret } from "../signing";

/** How long the previous secret keeps signing after a rotation, unless asked otherwise. */
export const DEFAULT_OVERLAP_SECONDS = 24 * 3600;
export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;

/**
 * Replaces a subscription's signing secret and returns the new one, the only time it leaves the
 * service. For `overlapSeconds` (0: none) the previous secret still signs beside it, so every
 * delivery carries both signatures while receivers switch; a rotation during an overlap drops the
 * oldest secret (two sign at most). Works on a disabled subscription too (a leaked secret is
 * replaced whatever the state). Audited without any secret.
 */
export async function rotateSecret(
  db: Db,
  input: { orgId: string; actor: TActor; id: string; overlapSeconds: number },
  deps: { encryptionKey: Buffer },
) {
  const secret = generateSigningSecret();
  const row = await db.transaction(async (tx) => {
    const overlap = input.overlapSeconds;
    const [updated] = await tx
      .update(webhookSubscriptions)
      .set({
        secretEnc: encryptSecret(deps.encryptionKey, secret),
        previousSecretEnc: overlap > 0 ? sql`${webhookSubscriptions.secretEnc}` : null,
        previousSecretExpiresAt:
          overlap > 0 ? sql`now() + ${overlap}::double precision * interval '1 second'` : null,
      })
      .where(and(eq(webhookSubscriptions.id, input.id), eq(webhookSubscriptions.orgId, input.orgId)))
      .returning({
        id: webhookSubscriptions.id,
        url: webhookSubscriptions.url,
        events: webhookSubscriptions.events,
        includeClients: webhookSubscriptions.includeClients,
        status: webhookSubscriptions.status,
        disabledReason: webhookSubscriptions.disabledReason,
        createdAt: webhookSubscriptions.createdAt,
        previousSecretExpiresAt: webhookSubscriptions.previousSecretExpiresAt,
      });
    const found = firstOr404(updated ? [updated] : [], "Webhook");
    await audit(tx, input, {
      action: "WEBHOOK_SECRET_ROTATED",
      target: found.id,
      metadata: { overlapSeconds: overlap, previousSecretExpiresAt: iso(found.previousSecretExpiresAt) },
    });
    return found;
  });
  return {
    ...row,
    createdAt: iso(row.createdAt),
    previousSecretExpiresAt: iso(row.previousSecretExpiresAt),
    secret,
  };
}
