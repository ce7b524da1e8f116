import { and, desc, eq, gt, isNull, lte, sql } from "drizzle-orm";
import { lockOrg, sharingApprovals, workspaceShares, type Db } from "@posture/db";
import { AppError, audit, firstOr404, iso, type TScope } from "@posture/platform";

const DAY_MS = 86_400_000;

const toView = (a: typeof sharingApprovals.$inferSelect) => ({
  id: a.id,
  itemId: a.itemId,
  resourceName: a.resourceName,
  sharingType: a.sharingType,
  target: a.target,
  reason: a.reason,
  approvedBy: a.approvedBy,
  createdAt: iso(a.createdAt),
  expiresAt: iso(a.expiresAt),
});

/**
 * Approves one external share for a while: it leaves the sharing ranking, and the finding it
 * raised turns ACCEPTED (for an outside share: once every outside share of the file is approved).
 */
export async function approveShare(
  db: Db,
  scope: TScope & { itemId: string; reason: string; expiresInDays: number },
) {
  return db.transaction(async (tx) => {
    const item = firstOr404(
      await tx
        .select()
        .from(workspaceShares)
        .where(and(eq(workspaceShares.orgId, scope.orgId), eq(workspaceShares.id, scope.itemId)))
        .for("update"),
      "Sharing item",
    );
    if (item.approvedUntil && item.approvedUntil > new Date())
      throw new AppError("conflict", "This share is already approved; withdraw the approval first");
    const expiresAt = new Date(Date.now() + scope.expiresInDays * DAY_MS);
    const [row] = await tx
      .insert(sharingApprovals)
      .values({
        orgId: scope.orgId,
        itemId: item.id,
        resourceName: item.resourceName,
        sharingType: item.sharingType,
        target: item.target,
        reason: scope.reason,
        approvedBy: scope.actor.email,
        expiresAt,
      })
      .returning();
    if (!row) throw new Error("approval not stored");
    await tx.update(workspaceShares).set({ approvedUntil: expiresAt }).where(eq(workspaceShares.id, item.id));
    await syncFindings(tx as unknown as Db, scope.orgId, item.fileId);
    await audit(tx as unknown as Db, scope, {
      action: "SHARE_APPROVED",
      target: item.id,
      metadata: {
        approvalId: row.id,
        resourceName: item.resourceName,
        reason: scope.reason,
        expiresAt: iso(expiresAt),
      },
    });
    return toView(row);
  });
}

export async function withdrawApproval(db: Db, scope: TScope & { id: string }) {
  return db.transaction(async (tx) => {
    const row = firstOr404(
      await tx
        .update(sharingApprovals)
        .set({ withdrawnAt: new Date() })
        .where(
          and(
            eq(sharingApprovals.orgId, scope.orgId),
            eq(sharingApprovals.id, scope.id),
            isNull(sharingApprovals.withdrawnAt),
            isNull(sharingApprovals.lapsedAt),
          ),
        )
        .returning(),
      "Approval",
    );
    await releaseItem(tx as unknown as Db, scope.orgId, row.itemId);
    await audit(tx as unknown as Db, scope, {
      action: "SHARE_APPROVAL_WITHDRAWN",
      target: row.itemId,
      metadata: { approvalId: row.id, resourceName: row.resourceName },
    });
    return { withdrawn: true as const };
  });
}

export async function listActiveApprovals(db: Db, { orgId }: { orgId: string }) {
  const rows = await db
    .select()
    .from(sharingApprovals)
    .where(
      and(
        eq(sharingApprovals.orgId, orgId),
        isNull(sharingApprovals.withdrawnAt),
        gt(sharingApprovals.expiresAt, sql`now()`),
      ),
    )
    .orderBy(desc(sharingApprovals.createdAt), desc(sharingApprovals.id))
    .limit(100);
  return rows.map(toView);
}

/**
 * Lapses approvals whose time is up: their items rank again and their findings reopen. Idempotent
 * (a lapsed approval is not picked twice); run periodically by the scheduler.
 */
export async function lapseExpiredApprovals(db: Db, now = new Date()): Promise<number> {
  const due = await db
    .select({ id: sharingApprovals.id, orgId: sharingApprovals.orgId, itemId: sharingApprovals.itemId })
    .from(sharingApprovals)
    .where(
      and(
        isNull(sharingApprovals.withdrawnAt),
        isNull(sharingApprovals.lapsedAt),
        lte(sharingApprovals.expiresAt, now),
      ),
    )
    .limit(1_000);
  for (const a of due) {
    await db.transaction(async (tx) => {
      await tx.update(sharingApprovals).set({ lapsedAt: now }).where(eq(sharingApprovals.id, a.id));
      await releaseItem(tx as unknown as Db, a.orgId, a.itemId);
    });
  }
  return due.length;
}

/** The item's approval is gone: it keeps the latest other active approval, if any, else ranks again. */
async function releaseItem(tx: Db, orgId: string, itemId: string): Promise<void> {
  const [other] = await tx
    .select({ expiresAt: sharingApprovals.expiresAt })
    .from(sharingApprovals)
    .where(
      and(
        eq(sharingApprovals.orgId, orgId),
        eq(sharingApprovals.itemId, itemId),
        isNull(sharingApprovals.withdrawnAt),
        isNull(sharingApprovals.lapsedAt),
        gt(sharingApprovals.expiresAt, sql`now()`),
      ),
    )
    .orderBy(desc(sharingApprovals.expiresAt))
    .limit(1);
  const [item] = await tx
    .update(workspaceShares)
    .set({ approvedUntil: other?.expiresAt ?? null })
    .where(and(eq(workspaceShares.orgId, orgId), eq(workspaceShares.id, itemId)))
    .returning({ fileId: workspaceShares.fileId });
  if (item) await syncFindings(tx, orgId, item.fileId);
}

/**
 * Sets the file's public-link and outside-share findings to ACCEPTED while every share they cover
 * is approved, and back to OPEN otherwise.
 */
async function syncFindings(tx: Db, orgId: string, fileId: string): Promise<void> {
  // The scan pipeline's lock, taken before any finding row: the summary trigger then locks the
  // organization's summary row after them, in the same order as a scan does (no deadlock).
  await tx.execute(lockOrg(orgId, "findings"));
  await tx.execute(sql`
    WITH s AS (
      SELECT connector_id, file_external_id,
        bool_or(sharing_type = 'public') AS has_public,
        bool_and(sharing_type <> 'public' OR coalesce(approved_until > now(), false)) AS public_ok,
        bool_or(sharing_type <> 'public') AS has_external,
        bool_and(sharing_type = 'public' OR coalesce(approved_until > now(), false)) AS external_ok
      FROM workspace_shares WHERE org_id = ${orgId} AND file_id = ${fileId}
      GROUP BY connector_id, file_external_id)
    UPDATE findings f
    SET status = CASE
      WHEN f.rule_id = 'public_link' AND s.has_public AND s.public_ok THEN 'ACCEPTED'
      WHEN f.rule_id = 'external_share' AND s.has_external AND s.external_ok THEN 'ACCEPTED'
      ELSE 'OPEN' END,
    -- Accepted, a finding carries its own last sight (lastSeenAt in docs/export.md): open until now,
    -- it was seen by its connector's latest scan.
    last_seen_scan_id = CASE WHEN f.status = 'OPEN' THEN coalesce(
      (SELECT sc.id FROM scans sc WHERE sc.org_id = f.org_id AND sc.connector_id = f.connector_id AND sc.status = 'COMPLETE'
        ORDER BY sc.completed_at DESC, sc.id DESC LIMIT 1), f.last_seen_scan_id) ELSE f.last_seen_scan_id END
    FROM s
    WHERE f.org_id = ${orgId} AND f.connector_id = s.connector_id AND f.resource_id = s.file_external_id
      AND f.rule_id IN ('public_link', 'external_share') AND f.status IN ('OPEN', 'ACCEPTED')`);
}
