import { and, desc, eq, isNull, lt, notLike, or, sql } from "drizzle-orm";
import { auditLog, findings, scans, ticketingIntegrations, tickets, type Db } from "@posture/db";
import {
  audit,
  createGuardedFetch,
  decryptSecret,
  iso,
  SYSTEM_ACTOR,
  type TLogger,
  type TRuntime,
} from "@posture/platform";
import { closeTicket, type TCloseComment } from "@posture/ticketing";

export const TICKET_CLOSE_SWEEP_JOB = "tickets.close.sweep";
/** The ticket status once the product closed it in the tracker. */
export const CLOSED_BY_PRODUCT = "closed:resolved";
/** A claim older than this belongs to a sweep that died; the next sweep may take the ticket. */
export const CLOSE_CLAIM_STALE_MS = 10 * 60_000;

/** What proved the fix: the remediation and its audit entry, or the scan that stopped seeing it. */
export type TCloseProof = { remediationId: string; auditId: string } | { scanId: string } | { scanId: null };

/** The marker every close comment ends with: a comment holding it means a previous try commented. */
export const closeMarker = (ticketId: string) => `Posture reference: ${ticketId}`;

export function closeComment(o: {
  ticketId: string;
  findingId: string;
  title: string;
  resolvedAt: Date;
  proof: TCloseProof;
  publicUrl: string;
}): TCloseComment {
  const base = o.publicUrl.replace(/\/$/, "");
  const by =
    "remediationId" in o.proof
      ? `by remediation ${o.proof.remediationId} (${base}/api/remediations/${o.proof.remediationId}); audit entry ${o.proof.auditId} records it applied (${base}/api/audit?action=REMEDIATION_APPLIED)`
      : o.proof.scanId
        ? `by scan ${o.proof.scanId}, which no longer detects it`
        : "by a scan that no longer detects it";
  const marker = closeMarker(o.ticketId);
  return {
    text: [
      `Resolved in Posture at ${iso(o.resolvedAt)} ${by}.`,
      `Finding: ${o.title} — ${base}/api/findings/${o.findingId}`,
      marker,
    ].join("\n\n"),
    marker,
  };
}

/**
 * What resolved the finding. A remediation's step resolves its findings before the remediation
 * itself ends and writes REMEDIATION_APPLIED; until that audit entry exists there is nothing to
 * cite, so the close waits (null) for a later sweep. A scan resolves with resolved_at equal to
 * its completed_at on the same source.
 */
async function proofOf(
  db: Db,
  r: { orgId: string; connectorId: string; resolvedAt: Date; resolvedBy: string | null },
): Promise<TCloseProof | null> {
  if (r.resolvedBy) {
    const [entry] = await db
      .select({ id: auditLog.id })
      .from(auditLog)
      .where(
        and(
          eq(auditLog.orgId, r.orgId),
          eq(auditLog.action, "REMEDIATION_APPLIED"),
          eq(auditLog.target, r.resolvedBy),
        ),
      )
      .orderBy(desc(auditLog.seq))
      .limit(1);
    return entry ? { remediationId: r.resolvedBy, auditId: entry.id } : null;
  }
  const [scan] = await db
    .select({ id: scans.id })
    .from(scans)
    .where(
      and(
        eq(scans.orgId, r.orgId),
        eq(scans.connectorId, r.connectorId),
        eq(scans.status, "COMPLETE"),
        eq(scans.completedAt, r.resolvedAt),
      ),
    )
    .limit(1);
  return { scanId: scan?.id ?? null };
}

/**
 * Closes in the tracker, once, the tickets whose finding the product resolved (a scan no longer
 * sees it, or a remediation's step fixed it): a comment naming what proved it (the remediation
 * and its REMEDIATION_APPLIED audit entry, or the scan), then the tracker's close (GitHub closed
 * as completed, Jira's transition to a done status, Linear's completed state).
 *
 * Exactly once: the sweep claims the ticket row (close_claimed_at) so two sweeps never call the
 * tracker for one ticket; the close is recorded (closed_at, close_proof, status) in the same
 * transaction as its TICKET_CLOSED_IN_TRACKER audit row, and a closed ticket is never picked
 * again, even when its finding is reopened and resolved once more. A sweep that died after the
 * tracker answered leaves a stale claim; the next try finds the marked comment and the closed
 * issue in the tracker and writes neither again (closeTicket reads before it writes). A failed
 * call releases the claim and is retried by the next sweep.
 */
export async function closeResolvedTickets(
  db: Db,
  deps: { runtime: TRuntime; log: TLogger; fetch?: typeof fetch },
  o: { orgId?: string; limit?: number; now?: Date } = {},
): Promise<{ closed: number; failed: number; skipped: number }> {
  const now = o.now ?? new Date();
  const stale = new Date(now.getTime() - CLOSE_CLAIM_STALE_MS);
  const unclaimed = or(isNull(tickets.closeClaimedAt), lt(tickets.closeClaimedAt, stale));
  const rows = await db
    .select({
      ticketId: tickets.id,
      orgId: tickets.orgId,
      externalId: tickets.externalId,
      findingId: findings.id,
      connectorId: findings.connectorId,
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
        isNull(tickets.closedAt),
        unclaimed,
        // Closed in the tracker already (the tracker's own webhook said so): nothing to close.
        notLike(tickets.status, "closed:%"),
        sql`${tickets.status} <> 'CREATING'`,
        eq(tickets.provider, ticketingIntegrations.provider),
        ...(o.orgId ? [eq(tickets.orgId, o.orgId)] : []),
      ),
    )
    .orderBy(tickets.id)
    .limit(o.limit ?? 100);
  const guardedFetch = createGuardedFetch({
    allowPrivateTargets: deps.runtime.webhookAllowPrivateTargets,
    resolve: deps.runtime.outboundResolver,
  });
  const out = { closed: 0, failed: 0, skipped: 0 };
  for (const r of rows) {
    if (!r.resolvedAt) continue;
    const proof = await proofOf(db, { ...r, resolvedAt: r.resolvedAt });
    if (!proof) {
      out.skipped++;
      continue;
    }
    // The claim: one statement, so of two sweeps only one gets the row.
    const [claim] = await db
      .update(tickets)
      .set({ closeClaimedAt: now })
      .where(and(eq(tickets.id, r.ticketId), isNull(tickets.closedAt), unclaimed))
      .returning({ id: tickets.id });
    if (!claim) {
      out.skipped++;
      continue;
    }
    let result: Awaited<ReturnType<typeof closeTicket>>;
    try {
      result = await closeTicket(
        {
          provider: r.provider,
          baseUrl: r.baseUrl,
          project: r.project,
          token: decryptSecret(deps.runtime.encryptionKey, r.tokenEnc),
        },
        r.externalId,
        closeComment({
          ticketId: r.ticketId,
          findingId: r.findingId,
          title: r.title,
          resolvedAt: r.resolvedAt,
          proof,
          publicUrl: deps.runtime.publicUrl,
        }),
        { fetch: deps.fetch ?? guardedFetch },
      );
    } catch (err) {
      out.failed++;
      await db
        .update(tickets)
        .set({ closeClaimedAt: null })
        .where(and(eq(tickets.id, r.ticketId), eq(tickets.closeClaimedAt, now)));
      deps.log.warn(
        { err: (err as Error).message, ticketId: r.ticketId },
        "ticket close failed; retried next sweep",
      );
      continue;
    }
    const recorded = await db.transaction(async (tx) => {
      const [row] = await tx
        .update(tickets)
        .set({ status: CLOSED_BY_PRODUCT, closedAt: new Date(), closeProof: proofRecord(proof) })
        .where(and(eq(tickets.id, r.ticketId), isNull(tickets.closedAt)))
        .returning({ id: tickets.id });
      if (!row) return false;
      await audit(
        tx,
        { orgId: r.orgId, actor: SYSTEM_ACTOR },
        {
          action: "TICKET_CLOSED_IN_TRACKER",
          target: r.findingId,
          metadata: {
            provider: r.provider,
            externalId: r.externalId,
            ticketId: r.ticketId,
            resolvedBy: r.resolvedBy,
            ...proof,
            commented: result.commented,
            transitioned: result.transitioned,
          },
        },
      );
      return true;
    });
    if (recorded) out.closed++;
    else out.skipped++;
  }
  return out;
}

function proofRecord(proof: TCloseProof): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(proof)) if (typeof v === "string") out[k] = v;
  return out;
}
