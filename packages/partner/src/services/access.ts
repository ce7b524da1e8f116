import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { organizations, partnerAccess, type Db } from "@posture/db";
import { AppError, audit, iso, type TActor, type TJobQueue } from "@posture/platform";
import { withEvents } from "@posture/webhooks";
import { queueClientRefresh } from "./client-refresh";

export type TAccessState = "granted" | "withdrawn";

export type TPartnerAccessView = {
  partner: { orgId: string; name: string } | null;
  access: TAccessState | null;
  grantedAt: string | null;
  withdrawnAt: string | null;
};

const partnerOrg = alias(organizations, "partner_org");

/** The organization's managing partner and its consent, read fresh (no cache anywhere). */
async function readAccess(db: Db, orgId: string) {
  const [row] = await db
    .select({
      clientName: organizations.name,
      partnerOrgId: partnerOrg.id,
      partnerName: partnerOrg.name,
      accessPartnerOrgId: partnerAccess.partnerOrgId,
      grantedAt: partnerAccess.grantedAt,
      withdrawnAt: partnerAccess.withdrawnAt,
    })
    .from(organizations)
    .leftJoin(partnerOrg, eq(partnerOrg.id, organizations.managedByOrgId))
    .leftJoin(partnerAccess, eq(partnerAccess.clientOrgId, organizations.id))
    .where(eq(organizations.id, orgId))
    .limit(1);
  if (!row) throw new AppError("not_found", "Organization not found");
  return row;
}

function toView(row: Awaited<ReturnType<typeof readAccess>>): TPartnerAccessView {
  if (row.partnerOrgId === null || row.partnerName === null) {
    return { partner: null, access: null, grantedAt: null, withdrawnAt: null };
  }
  // The consent row follows the manager (a trigger); one of another partner is no consent.
  const current = row.accessPartnerOrgId === row.partnerOrgId;
  return {
    partner: { orgId: row.partnerOrgId, name: row.partnerName },
    access: current && row.withdrawnAt === null ? "granted" : "withdrawn",
    grantedAt: current ? iso(row.grantedAt) : null,
    withdrawnAt: current ? iso(row.withdrawnAt) : null,
  };
}

/** GET /partner-access: who manages the organization and whether it may read it. */
export async function getPartnerAccess(db: Db, q: { orgId: string }): Promise<TPartnerAccessView> {
  return toView(await readAccess(db, q.orgId));
}

/**
 * DELETE / PUT /partner-access: withdraws or grants again the managing partner's access. A change
 * is audited in both organizations and announced to the partner (`partner.access.changed`), all in
 * one transaction; asking for the state it already has changes, records and sends nothing. The
 * partner's next request reads the new state (managedBy of @posture/platform).
 */
export async function setPartnerAccess(
  db: Db,
  jobs: TJobQueue,
  q: { orgId: string; actor: TActor; access: TAccessState },
): Promise<TPartnerAccessView> {
  let changedFor = false;
  const view = await withEvents(db, jobs, async (tx, emit) => {
    const before = await readAccess(tx, q.orgId);
    const partnerOrgId = before.partnerOrgId;
    if (partnerOrgId === null) throw new AppError("not_found", "This organization has no managing partner");
    const changed =
      q.access === "withdrawn"
        ? await tx
            .update(partnerAccess)
            .set({ withdrawnAt: sql`now()`, withdrawnByUserId: q.actor.userId })
            .where(
              and(
                eq(partnerAccess.clientOrgId, q.orgId),
                eq(partnerAccess.partnerOrgId, partnerOrgId),
                isNull(partnerAccess.withdrawnAt),
              ),
            )
            .returning({ id: partnerAccess.clientOrgId })
        : await grant(tx, q.orgId, partnerOrgId, q.actor);
    if (changed.length > 0) {
      changedFor = true;
      const action = q.access === "withdrawn" ? "PARTNER_ACCESS_WITHDRAWN" : "PARTNER_ACCESS_GRANTED";
      const clientName = before.clientName;
      const partnerName = before.partnerName ?? "";
      await audit(
        tx,
        { orgId: q.orgId, actor: q.actor },
        {
          action,
          target: partnerOrgId,
          metadata: { partnerOrgId, partnerName },
        },
      );
      await audit(
        tx,
        { orgId: partnerOrgId, actor: q.actor },
        {
          action,
          target: q.orgId,
          metadata: { clientOrgId: q.orgId, clientName },
        },
      );
      await emit({
        orgId: partnerOrgId,
        type: "partner.access.changed",
        data: { clientOrgId: q.orgId, clientName, access: q.access, changedBy: q.actor.email },
      });
    }
    return toView(await readAccess(tx, q.orgId));
  });
  // The stored campaigns and drift follow at once (reads already do): the client's refresh, as
  // after its scans.
  if (changedFor) await queueClientRefresh(jobs, q.orgId);
  return view;
}

/** Grants again: the withdrawn row, or a row where none is (the trigger keeps one; never lost). */
async function grant(tx: Db, clientOrgId: string, partnerOrgId: string, actor: TActor) {
  const values = {
    grantedAt: sql`now()`,
    grantedByUserId: actor.userId,
    withdrawnAt: null,
    withdrawnByUserId: null,
  };
  const updated = await tx
    .update(partnerAccess)
    .set(values)
    .where(
      and(
        eq(partnerAccess.clientOrgId, clientOrgId),
        eq(partnerAccess.partnerOrgId, partnerOrgId),
        isNotNull(partnerAccess.withdrawnAt),
      ),
    )
    .returning({ id: partnerAccess.clientOrgId });
  if (updated.length > 0) return updated;
  return tx
    .insert(partnerAccess)
    .values({ clientOrgId, partnerOrgId, ...values })
    .onConflictDoNothing()
    .returning({ id: partnerAccess.clientOrgId });
}
