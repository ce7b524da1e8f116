import { auditLog, prepared, type Db } from "@posture/db";
import { iso, pageMeta, type TAuditAction } from "@posture/platform";
import { and, count, desc, eq, sql } from "drizzle-orm";

export type TListAudit = { orgId: string; page: number; limit: number; action?: TAuditAction | undefined };

const orgId = sql.placeholder("orgId");
const action = sql.placeholder("action");

// Two shapes (with and without the action filter), each prepared once: this runs on every call.
function queries(db: Db, filtered: boolean) {
  const name = filtered ? "audit_by_action" : "audit_all";
  return prepared(db, name, (d) => {
    const where = filtered
      ? and(eq(auditLog.orgId, orgId), eq(auditLog.action, action))
      : eq(auditLog.orgId, orgId);
    return {
      page: d
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
        .limit(sql.placeholder("limit"))
        .offset(sql.placeholder("offset"))
        .prepare(`${name}_page`),
      total: d.select({ n: count() }).from(auditLog).where(where).prepare(`${name}_total`),
    };
  });
}

/** Newest first by the chain's sequence, which (unlike timestamps) never ties. */
export async function listAudit(db: Db, input: TListAudit) {
  const q = queries(db, input.action !== undefined);
  const params = {
    orgId: input.orgId,
    action: input.action,
    limit: input.limit,
    offset: (input.page - 1) * input.limit,
  };
  const [rows, [total]] = await Promise.all([q.page.execute(params), q.total.execute(params)]);
  return {
    entries: rows.map((r) => ({ ...r, createdAt: iso(r.createdAt) })),
    ...pageMeta(total?.n ?? 0, input.page, input.limit),
  };
}
