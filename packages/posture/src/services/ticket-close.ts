import { and, eq, isNotNull, notLike, sql } from "drizzle-orm";
import { findings, ticketingIntegrations, tickets, type Db } from "@posture/db";
import {
  audit,
  createGuardedFetch,
  decryptSecret,
  iso,
  SYSTEM_ACTOR,
  type TLogger,
  type TRuntime,
} from "@posture/platform";
import { closeTicket } from "@posture/ticketing";

export const TICKET_CLOSE_SWEEP_JOB = "tickets.close.sweep";
/** The ticket status once the product closed it in the tracker. */
export const CLOSED_BY_PRODUCT = "closed:resolved";

/**
 * Closes in the tracker the tickets whose finding the product resolved (a scan no longer sees it,
 * or a remediation's step fixed it): a comment naming what resolved it (the remediation id, or
 * the scan) and the audit entry, then the close. The database is the outbox: a ticket stays
 * pending until its tracker call succeeds, so a failed call is retried by the next sweep.
 */
export async function closeResolvedTickets(
  db: Db,
  deps: { runtime: TRuntime; log: TLogger; fetch?: typeof fetch },
  o: { orgId?: string; limit?: number } = {},
): Promise<{ closed: number; failed: number; skipped: number }> {
  const rows = await db
    .select({
      ticketId: tickets.id,
      orgId: tickets.orgId,
      externalId: tickets.externalId,
      findingId: findings.id,
      title: findings.title,
      resolvedAt: findings.resolvedAt,
      resolvedBy: findings.resolvedBy,
      provider: ticketingIntegrations.provider,
      baseUrl: ticketingIntegrations.baseUrl,
      project: ticketingIntegrations.project,
      tokenEnc: ticketingIntegrations.tokenEnc,
    })
    .from(tickets)
    .innerJoin(findings, eq(findings.id, tickets.findingId))
    .innerJoin(ticketingIntegrations, eq(ticketingIntegrations.orgId, tickets.orgId))
    .where(
      and(
        eq(findings.status, "RESOLVED"),
        isNotNull(findings.resolvedAt),
        notLike(tickets.status, "closed:%"),
        sql`${tickets.status} <> 'CREATING'`,
        eq(tickets.provider, ticketingIntegrations.provider),
        ...(o.orgId ? [eq(tickets.orgId, o.orgId)] : []),
      ),
    )
    .limit(o.limit ?? 100);
  const guardedFetch = createGuardedFetch({
    allowPrivateTargets: deps.runtime.webhookAllowPrivateTargets,
    resolve: deps.runtime.outboundResolver,
  });
  const out = { closed: 0, failed: 0, skipped: 0 };
  for (const r of rows) {
    const link = `${deps.runtime.publicUrl.replace(/\/$/, "")}/api/findings/${r.findingId}`;
    const by = r.resolvedBy
      ? `remediation ${r.resolvedBy} (GET /api/remediations/${r.resolvedBy})`
      : "a scan that no longer detects it";
    const comment = [
      `Resolved in Posture at ${iso(r.resolvedAt)} by ${by}.`,
      `Finding: ${r.title} — ${link}`,
      `Audit: the organization's audit trail records TICKET_CLOSED_IN_TRACKER for ${r.findingId} (GET /api/audit?action=TICKET_CLOSED_IN_TRACKER).`,
    ].join("\n\n");
    try {
      const done = await closeTicket(
        {
          provider: r.provider,
          baseUrl: r.baseUrl,
          project: r.project,
          token: decryptSecret(deps.runtime.encryptionKey, r.tokenEnc),
        },
        r.externalId,
        comment,
        { fetch: deps.fetch ?? guardedFetch },
      );
      if (!done) {
        out.skipped++;
        continue;
      }
    } catch (err) {
      out.failed++;
      deps.log.warn(
        { err: (err as Error).message, ticketId: r.ticketId },
        "ticket close failed; retried next sweep",
      );
      continue;
    }
    await db.transaction(async (tx) => {
      await tx.update(tickets).set({ status: CLOSED_BY_PRODUCT }).where(eq(tickets.id, r.ticketId));
      await audit(
        tx,
        { orgId: r.orgId, actor: SYSTEM_ACTOR },
        {
          action: "TICKET_CLOSED_IN_TRACKER",
          target: r.findingId,
          metadata: { provider: r.provider, externalId: r.externalId, resolvedBy: r.resolvedBy },
        },
      );
    });
    out.closed++;
  }
  return out;
}
