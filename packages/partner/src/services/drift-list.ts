import { and, asc, count, eq, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import {
  organizations,
  partnerAccess,
  partnerDrift,
  partnerGroupMembers,
  partnerStandards,
  type Db,
  type TSeverity,
} from "@posture/db";
import { iso, managedBy, requireManagedClient } from "@posture/platform";
import { ruleKind } from "./drift-rules";
import { requireGroup } from "./groups";
import { requireStandard } from "./standards";

export type TDriftStatus = "open" | "resolved" | "all";
export type TDriftRow = {
  id: string;
  standardId: string;
  standardName: string;
  clientOrgId: string;
  clientName: string;
  rule: string;
  kind: ReturnType<typeof ruleKind>;
  severity: TSeverity;
  detail: Record<string, unknown>;
  since: string;
  checkedAt: string;
  resolvedAt: string | null;
};

export type TDriftQuery = {
  partnerOrgId: string;
  standardId?: string;
  clientOrgId?: string;
  groupId?: string;
  status?: TDriftStatus;
  limit: number;
  offset: number;
};

/**
 * Drift per client and per rule, by client name, standard name and rule; only of clients the
 * partner may see now (managed, consent not withdrawn). A standard, client or group that is not
 * the partner's is 404.
 */
export async function listDrift(db: Db, q: TDriftQuery): Promise<{ rows: TDriftRow[]; total: number }> {
  if (q.standardId) await requireStandard(db, q.partnerOrgId, q.standardId);
  if (q.clientOrgId) await requireManagedClient(db, q.partnerOrgId, q.clientOrgId);
  if (q.groupId) await requireGroup(db, q.partnerOrgId, q.groupId);
  const status = q.status ?? "open";
  const filters: Array<SQL | undefined> = [
    eq(partnerDrift.partnerOrgId, q.partnerOrgId),
    managedBy(q.partnerOrgId),
    status === "open" ? isNull(partnerDrift.resolvedAt) : undefined,
    status === "resolved" ? isNotNull(partnerDrift.resolvedAt) : undefined,
    q.standardId ? eq(partnerDrift.standardId, q.standardId) : undefined,
    q.clientOrgId ? eq(partnerDrift.clientOrgId, q.clientOrgId) : undefined,
    q.groupId
      ? sql`EXISTS (SELECT 1 FROM ${partnerGroupMembers} m WHERE m.group_id = ${q.groupId} AND m.client_org_id = ${partnerDrift.clientOrgId})`
      : undefined,
  ];
  const where = and(...filters);
  const base = () =>
    db
      .select({
        id: partnerDrift.id,
        standardId: partnerDrift.standardId,
        standardName: partnerStandards.name,
        clientOrgId: partnerDrift.clientOrgId,
        clientName: organizations.name,
        rule: partnerDrift.rule,
        severity: partnerDrift.severity,
        detail: partnerDrift.detail,
        since: partnerDrift.since,
        checkedAt: partnerDrift.checkedAt,
        resolvedAt: partnerDrift.resolvedAt,
      })
      .from(partnerDrift)
      .innerJoin(partnerStandards, eq(partnerStandards.id, partnerDrift.standardId))
      .innerJoin(organizations, eq(organizations.id, partnerDrift.clientOrgId))
      .innerJoin(partnerAccess, eq(partnerAccess.clientOrgId, organizations.id));
  const [rows, [totalRow]] = await Promise.all([
    base()
      .where(where)
      .orderBy(
        asc(organizations.name),
        asc(organizations.id),
        asc(partnerStandards.name),
        asc(partnerDrift.rule),
        asc(partnerDrift.since),
        asc(partnerDrift.id),
      )
      .limit(q.limit)
      .offset(q.offset),
    db
      .select({ n: count() })
      .from(partnerDrift)
      .innerJoin(organizations, eq(organizations.id, partnerDrift.clientOrgId))
      .innerJoin(partnerAccess, eq(partnerAccess.clientOrgId, organizations.id))
      .where(where),
  ]);
  return {
    rows: rows.map((r) => ({
      ...r,
      kind: ruleKind(r.rule),
      detail: r.detail as Record<string, unknown>,
      since: iso(r.since),
      checkedAt: iso(r.checkedAt),
      resolvedAt: iso(r.resolvedAt),
    })),
    total: Number(totalRow?.n ?? 0),
  };
}
