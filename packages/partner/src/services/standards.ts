import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import {
  organizations,
  partnerAccess,
  partnerGroups,
  partnerStandardAssignments,
  partnerStandards,
  type Db,
} from "@posture/db";
import { AppError, audit, iso, managedClients, type TScope } from "@posture/platform";
import {
  canonicalMatch,
  policyRuleId,
  preventionRuleId,
  type TMatch,
  type TStandardPolicy,
  type TStandardPrevention,
} from "./drift-rules";

export type TPolicyInput = { name: string; match: TMatch };
export type TPreventionInput = { name: string; match: TMatch; action?: string; dryRun?: boolean };
export type TStandardInput = {
  name: string;
  description?: string | null;
  policies?: TPolicyInput[];
  preventionRules?: TPreventionInput[];
  trustedDomains?: string[];
  minScore?: number | null;
};
export type TStandard = {
  id: string;
  name: string;
  description: string | null;
  policies: TStandardPolicy[];
  preventionRules: TStandardPrevention[];
  trustedDomains: string[];
  minScore: number | null;
  assignments: { clientOrgIds: string[]; groupIds: string[] };
  createdAt: string;
  updatedAt: string;
};

function notFound() {
  return new AppError("not_found", "Standard not found");
}

// Postgres' unique violation: a second standard of the same name.
function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; cause?: { code?: string } } | null;
  return err?.code === "23505" || err?.cause?.code === "23505";
}

function nameTaken() {
  return new AppError("conflict", "A standard of that name exists");
}

function duplicate(path: string) {
  return new AppError("invalid_input", "A standard holds each rule once", {
    details: [
      { path, message: "the same rule as an earlier one (rules are compared by what they match and do)" },
    ],
  });
}

/** The rules as stored: each with its id derived from what it matches; a repeat is a 400. */
function normalisePolicies(input: TPolicyInput[]): TStandardPolicy[] {
  const seen = new Set<string>();
  return input.map((p, i) => {
    const id = policyRuleId(p.match);
    if (seen.has(id)) throw duplicate(`policies.${i}`);
    seen.add(id);
    return { id, name: p.name, match: canonicalMatch(p.match) };
  });
}

function normalisePrevention(input: TPreventionInput[]): TStandardPrevention[] {
  const seen = new Set<string>();
  return input.map((p, i) => {
    const rule = {
      match: canonicalMatch(p.match),
      action: p.action ?? "ALERT_ONLY",
      dryRun: p.dryRun ?? false,
    };
    const id = preventionRuleId(rule);
    if (seen.has(id)) throw duplicate(`preventionRules.${i}`);
    seen.add(id);
    return { id, name: p.name, ...rule };
  });
}

function normaliseDomains(input: string[]): string[] {
  const out = [...new Set(input.map((d) => d.toLowerCase()))].sort();
  if (out.length !== input.length)
    throw new AppError("invalid_input", "A domain is listed twice", {
      details: [{ path: "trustedDomains", message: "must not repeat a domain" }],
    });
  return out;
}

type TRow = typeof partnerStandards.$inferSelect;

async function assignmentsOf(db: Db, partnerOrgId: string, standardIds: string[]) {
  const out = new Map<string, { clientOrgIds: string[]; groupIds: string[] }>();
  for (const id of standardIds) out.set(id, { clientOrgIds: [], groupIds: [] });
  if (standardIds.length === 0) return out;
  // Clients only while the partner may see them (managed, consent not withdrawn).
  const rows = await db
    .select({
      standardId: partnerStandardAssignments.standardId,
      clientOrgId: partnerStandardAssignments.clientOrgId,
      groupId: partnerStandardAssignments.groupId,
      visible: sql<boolean>`${partnerStandardAssignments.groupId} IS NOT NULL OR EXISTS (
        SELECT 1 FROM ${organizations} o JOIN ${partnerAccess} pa ON pa.client_org_id = o.id
        WHERE o.id = ${partnerStandardAssignments.clientOrgId} AND o.managed_by_org_id = ${partnerOrgId}
          AND pa.partner_org_id = ${partnerOrgId} AND pa.withdrawn_at IS NULL)`,
    })
    .from(partnerStandardAssignments)
    .where(inArray(partnerStandardAssignments.standardId, standardIds))
    .orderBy(asc(partnerStandardAssignments.clientOrgId), asc(partnerStandardAssignments.groupId));
  for (const r of rows) {
    const a = out.get(r.standardId);
    if (!a || !r.visible) continue;
    if (r.clientOrgId) a.clientOrgIds.push(r.clientOrgId);
    if (r.groupId) a.groupIds.push(r.groupId);
  }
  return out;
}

const toStandard = (r: TRow, assignments: TStandard["assignments"]): TStandard => ({
  id: r.id,
  name: r.name,
  description: r.description,
  policies: r.policies as TStandardPolicy[],
  preventionRules: r.preventionRules as TStandardPrevention[],
  trustedDomains: r.trustedDomains,
  minScore: r.minScore,
  assignments,
  createdAt: iso(r.createdAt),
  updatedAt: iso(r.updatedAt),
});

/** One of the partner's standards, or 404 (another partner's and an unknown id alike). */
export async function requireStandard(db: Db, partnerOrgId: string, id: string): Promise<TRow> {
  const [row] = await db
    .select()
    .from(partnerStandards)
    .where(and(eq(partnerStandards.id, id), eq(partnerStandards.partnerOrgId, partnerOrgId)));
  if (!row) throw notFound();
  return row;
}

export async function getStandard(db: Db, o: { partnerOrgId: string; id: string }): Promise<TStandard> {
  const row = await requireStandard(db, o.partnerOrgId, o.id);
  const a = await assignmentsOf(db, o.partnerOrgId, [row.id]);
  return toStandard(row, a.get(row.id) ?? { clientOrgIds: [], groupIds: [] });
}

export async function listStandards(
  db: Db,
  o: { partnerOrgId: string; limit: number; offset: number },
): Promise<{ rows: TStandard[]; total: number }> {
  const where = eq(partnerStandards.partnerOrgId, o.partnerOrgId);
  const [rows, [totalRow]] = await Promise.all([
    db
      .select()
      .from(partnerStandards)
      .where(where)
      .orderBy(asc(partnerStandards.name), asc(partnerStandards.id))
      .limit(o.limit)
      .offset(o.offset),
    db.select({ n: count() }).from(partnerStandards).where(where),
  ]);
  const a = await assignmentsOf(
    db,
    o.partnerOrgId,
    rows.map((r) => r.id),
  );
  return {
    rows: rows.map((r) => toStandard(r, a.get(r.id) ?? { clientOrgIds: [], groupIds: [] })),
    total: Number(totalRow?.n ?? 0),
  };
}

export async function createStandard(db: Db, o: TScope & TStandardInput): Promise<TStandard> {
  const values = {
    partnerOrgId: o.orgId,
    name: o.name,
    description: o.description ?? null,
    policies: normalisePolicies(o.policies ?? []),
    preventionRules: normalisePrevention(o.preventionRules ?? []),
    trustedDomains: normaliseDomains(o.trustedDomains ?? []),
    minScore: o.minScore ?? null,
  };
  const row = await db
    .transaction(async (tx) => {
      const [inserted] = await tx.insert(partnerStandards).values(values).returning();
      if (!inserted) throw new Error("standard insert returned nothing");
      await audit(tx, o, {
        action: "PARTNER_STANDARD_CHANGED",
        target: inserted.id,
        metadata: { change: "created", name: o.name },
      });
      return inserted;
    })
    .catch((e: unknown) => {
      throw isUniqueViolation(e) ? nameTaken() : e;
    });
  // A new standard is assigned to nobody yet.
  return toStandard(row, { clientOrgIds: [], groupIds: [] });
}

export async function updateStandard(
  db: Db,
  o: TScope & { id: string } & Partial<TStandardInput>,
): Promise<TStandard> {
  await requireStandard(db, o.orgId, o.id);
  const set = {
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.description !== undefined ? { description: o.description } : {}),
    ...(o.policies !== undefined ? { policies: normalisePolicies(o.policies) } : {}),
    ...(o.preventionRules !== undefined ? { preventionRules: normalisePrevention(o.preventionRules) } : {}),
    ...(o.trustedDomains !== undefined ? { trustedDomains: normaliseDomains(o.trustedDomains) } : {}),
    ...(o.minScore !== undefined ? { minScore: o.minScore } : {}),
  };
  await db
    .transaction(async (tx) => {
      await tx
        .update(partnerStandards)
        .set({ ...set, updatedAt: new Date() })
        .where(eq(partnerStandards.id, o.id));
      await audit(tx, o, {
        action: "PARTNER_STANDARD_CHANGED",
        target: o.id,
        metadata: { change: "updated", fields: Object.keys(set).sort() },
      });
    })
    .catch((e: unknown) => {
      throw isUniqueViolation(e) ? nameTaken() : e;
    });
  return getStandard(db, { partnerOrgId: o.orgId, id: o.id });
}

/** Deletes the standard with its assignments and its drift (the rows go with it). */
export async function deleteStandard(db: Db, o: TScope & { id: string }): Promise<{ deleted: true }> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .delete(partnerStandards)
      .where(and(eq(partnerStandards.id, o.id), eq(partnerStandards.partnerOrgId, o.orgId)))
      .returning({ name: partnerStandards.name });
    if (!row) throw notFound();
    await audit(tx, o, {
      action: "PARTNER_STANDARD_CHANGED",
      target: o.id,
      metadata: { change: "deleted", name: row.name },
    });
  });
  return { deleted: true };
}

/**
 * Replaces the standard's assignments. Every client must be the partner's (managed, consent not
 * withdrawn) and every group its own; otherwise 404 and nothing changes.
 */
export async function setAssignments(
  db: Db,
  o: TScope & { id: string; clientOrgIds: string[]; groupIds: string[] },
): Promise<TStandard> {
  await requireStandard(db, o.orgId, o.id);
  if (o.clientOrgIds.length > 0) {
    const found = await managedClients(db, o.orgId, o.clientOrgIds);
    if (found.length !== new Set(o.clientOrgIds).size)
      throw new AppError("not_found", "Organization not found");
  }
  if (o.groupIds.length > 0) {
    const groups = await db
      .select({ id: partnerGroups.id })
      .from(partnerGroups)
      .where(and(eq(partnerGroups.partnerOrgId, o.orgId), inArray(partnerGroups.id, o.groupIds)));
    if (groups.length !== new Set(o.groupIds).size) throw new AppError("not_found", "Group not found");
  }
  await db.transaction(async (tx) => {
    await tx
      .select({ id: partnerStandards.id })
      .from(partnerStandards)
      .where(eq(partnerStandards.id, o.id))
      .for("update");
    await tx.delete(partnerStandardAssignments).where(eq(partnerStandardAssignments.standardId, o.id));
    const rows = [
      ...o.clientOrgIds.map((clientOrgId) => ({ standardId: o.id, partnerOrgId: o.orgId, clientOrgId })),
      ...o.groupIds.map((groupId) => ({ standardId: o.id, partnerOrgId: o.orgId, groupId })),
    ];
    if (rows.length > 0) await tx.insert(partnerStandardAssignments).values(rows);
    await audit(tx, o, {
      action: "PARTNER_STANDARD_CHANGED",
      target: o.id,
      metadata: {
        change: "assignments",
        clientOrgIds: [...o.clientOrgIds].sort(),
        groupIds: [...o.groupIds].sort(),
      },
    });
  });
  return getStandard(db, { partnerOrgId: o.orgId, id: o.id });
}
