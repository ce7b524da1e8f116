import { auditLog, type Db } from "@posture/db";
import { pageMeta, type TAuditAction } from "@posture/platform";
import { and, count, desc, eq } from "drizzle-orm";

export type TListAudit = { orgId: string; page: number; limit: number; action?: TAuditAction | undefined };

/** Newest first by the chain's sequence, which (unlike timestamps) never ties. */
export async function listAudit(db: Db, input: TListAudit) {
  const where = and(
    eq(auditLog.orgId, input.orgId),
    input.action ? eq(auditLog.action, input.action) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    db
      .select({
        id: auditLog.id,
        action: auditLog.action,
        target: auditLog.target,
        userEmail: auditLog.userEmail,
        createdAt: auditLog.createdAt,
      })
      .from(auditLog)
      .where(where)
      .orderBy(desc(auditLog.seq))
      .limit(input.limit)
      .offset((input.page - 1) * input.limit),
    db.select({ n: count() }).from(auditLog).where(where),
  ]);
  return {
    entries: rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
    ...pageMeta(total?.n ?? 0, input.page, input.limit),
  };
}
