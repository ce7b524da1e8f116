import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import { organizations, partnerAccess, partnerGroupMembers, partnerGroups, type Db } from "@posture/db";
import { AppError, audit, iso, managedBy, managedClients, type TScope } from "@posture/platform";

export type TGroupClient = { orgId: string; name: string };
export type TGroup = {
  id: string;
  name: string;
  description: string | null;
  clientCount: number;
  createdAt: string;
};
export type TGroupDetail = TGroup & { clients: TGroupClient[] };

function notFound() {
  return new AppError("not_found", "Group not found");
}

// Postgres' unique violation: a second group of the same name.
function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; cause?: { code?: string } } | null;
  return err?.code === "23505" || err?.cause?.code === "23505";
}

function nameTaken() {
  return new AppError("conflict", "A group of that name exists");
}

/** One of the partner's groups, or 404 (another partner's group and an unknown id alike). */
export async function requireGroup(db: Db, partnerOrgId: string, groupId: string) {
  const [group] = await db
    .select()
    .from(partnerGroups)
    .where(and(eq(partnerGroups.id, groupId), eq(partnerGroups.partnerOrgId, partnerOrgId)));
  if (!group) throw notFound();
  return group;
}

// Members count only while they are the partner's to see (managed, consent not withdrawn).
function memberCount(partnerOrgId: string) {
  return sql<number>`(SELECT count(*)::int FROM ${partnerGroupMembers} m
    JOIN ${organizations} o ON o.id = m.client_org_id
    JOIN ${partnerAccess} pa ON pa.client_org_id = o.id
    WHERE m.group_id = ${partnerGroups.id} AND o.managed_by_org_id = ${partnerOrgId}
      AND pa.partner_org_id = ${partnerOrgId} AND pa.withdrawn_at IS NULL)`;
}

const toGroup = (r: {
  id: string;
  name: string;
  description: string | null;
  clientCount: number;
  createdAt: Date;
}): TGroup => ({
  id: r.id,
  name: r.name,
  description: r.description,
  clientCount: Number(r.clientCount),
  createdAt: iso(r.createdAt),
});

export async function listGroups(
  db: Db,
  o: { partnerOrgId: string; limit: number; offset: number },
): Promise<{ rows: TGroup[]; total: number }> {
  const where = eq(partnerGroups.partnerOrgId, o.partnerOrgId);
  const [rows, [totalRow]] = await Promise.all([
    db
      .select({
        id: partnerGroups.id,
        name: partnerGroups.name,
        description: partnerGroups.description,
        clientCount: memberCount(o.partnerOrgId),
        createdAt: partnerGroups.createdAt,
      })
      .from(partnerGroups)
      .where(where)
      .orderBy(asc(partnerGroups.name), asc(partnerGroups.id))
      .limit(o.limit)
      .offset(o.offset),
    db.select({ n: count() }).from(partnerGroups).where(where),
  ]);
  return { rows: rows.map(toGroup), total: Number(totalRow?.n ?? 0) };
}

/** The group's clients the partner may see, by name. */
export async function groupClients(db: Db, partnerOrgId: string, groupId: string): Promise<TGroupClient[]> {
  const rows = await db
    .select({ orgId: organizations.id, name: organizations.name })
    .from(partnerGroupMembers)
    .innerJoin(organizations, eq(organizations.id, partnerGroupMembers.clientOrgId))
    .innerJoin(partnerAccess, eq(partnerAccess.clientOrgId, organizations.id))
    .where(and(eq(partnerGroupMembers.groupId, groupId), managedBy(partnerOrgId)))
    .orderBy(asc(organizations.name), asc(organizations.id));
  return rows;
}

export async function getGroup(db: Db, o: { partnerOrgId: string; id: string }): Promise<TGroupDetail> {
  const group = await requireGroup(db, o.partnerOrgId, o.id);
  const clients = await groupClients(db, o.partnerOrgId, group.id);
  return { ...toGroup({ ...group, clientCount: clients.length }), clients };
}

/**
 * The clients named exist, are the partner's and have not withdrawn consent; otherwise 404, the
 * same answer for all three (a partner learns nothing about other organizations).
 */
async function requireClients(db: Db, partnerOrgId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await managedClients(db, partnerOrgId, ids);
  if (found.length !== new Set(ids).size) throw new AppError("not_found", "Organization not found");
}

export async function createGroup(
  db: Db,
  o: TScope & { name: string; description?: string | null; clientOrgIds?: string[] },
): Promise<TGroupDetail> {
  await requireClients(db, o.orgId, o.clientOrgIds ?? []);
  const id = await db
    .transaction(async (tx) => {
      const [row] = await tx
        .insert(partnerGroups)
        .values({ partnerOrgId: o.orgId, name: o.name, description: o.description ?? null })
        .returning({ id: partnerGroups.id });
      if (!row) throw new Error("group insert returned nothing");
      if (o.clientOrgIds?.length) {
        await tx
          .insert(partnerGroupMembers)
          .values(o.clientOrgIds.map((clientOrgId) => ({ groupId: row.id, clientOrgId })));
      }
      await audit(tx, o, {
        action: "PARTNER_GROUP_CHANGED",
        target: row.id,
        metadata: { change: "created", name: o.name, clients: o.clientOrgIds?.length ?? 0 },
      });
      return row.id;
    })
    .catch((e: unknown) => {
      throw isUniqueViolation(e) ? nameTaken() : e;
    });
  return getGroup(db, { partnerOrgId: o.orgId, id });
}

export async function updateGroup(
  db: Db,
  o: TScope & { id: string; name?: string; description?: string | null },
): Promise<TGroupDetail> {
  await requireGroup(db, o.orgId, o.id);
  const set = {
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.description !== undefined ? { description: o.description } : {}),
  };
  await db
    .transaction(async (tx) => {
      if (Object.keys(set).length > 0)
        await tx.update(partnerGroups).set(set).where(eq(partnerGroups.id, o.id));
      await audit(tx, o, {
        action: "PARTNER_GROUP_CHANGED",
        target: o.id,
        metadata: { change: "updated", fields: Object.keys(set).sort() },
      });
    })
    .catch((e: unknown) => {
      throw isUniqueViolation(e) ? nameTaken() : e;
    });
  return getGroup(db, { partnerOrgId: o.orgId, id: o.id });
}

/** Deletes the group; the standards assigned to it stop applying to its clients (the caller refreshes drift). */
export async function deleteGroup(db: Db, o: TScope & { id: string }): Promise<{ deleted: true }> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .delete(partnerGroups)
      .where(and(eq(partnerGroups.id, o.id), eq(partnerGroups.partnerOrgId, o.orgId)))
      .returning({ id: partnerGroups.id, name: partnerGroups.name });
    if (!row) throw notFound();
    await audit(tx, o, {
      action: "PARTNER_GROUP_CHANGED",
      target: o.id,
      metadata: { change: "deleted", name: row.name },
    });
  });
  return { deleted: true };
}

/**
 * Replaces the group's members with `clientOrgIds`. Members the partner can no longer see (a client
 * that withdrew consent, or moved to another partner) are kept out of sight but not dropped here:
 * they are not in the list the partner sends, so they go like any other left-out member.
 */
export async function setGroupClients(
  db: Db,
  o: TScope & { id: string; clientOrgIds: string[] },
): Promise<TGroupDetail> {
  await requireGroup(db, o.orgId, o.id);
  await requireClients(db, o.orgId, o.clientOrgIds);
  await db.transaction(async (tx) => {
    // Serialises concurrent replacements of one group's members.
    await tx
      .select({ id: partnerGroups.id })
      .from(partnerGroups)
      .where(eq(partnerGroups.id, o.id))
      .for("update");
    const before = await tx
      .select({ id: partnerGroupMembers.clientOrgId })
      .from(partnerGroupMembers)
      .where(eq(partnerGroupMembers.groupId, o.id));
    const had = new Set(before.map((r) => r.id));
    const want = new Set(o.clientOrgIds);
    const removed = [...had].filter((id) => !want.has(id));
    const added = [...want].filter((id) => !had.has(id));
    if (removed.length > 0) {
      await tx
        .delete(partnerGroupMembers)
        .where(and(eq(partnerGroupMembers.groupId, o.id), inArray(partnerGroupMembers.clientOrgId, removed)));
    }
    if (added.length > 0) {
      await tx
        .insert(partnerGroupMembers)
        .values(added.map((clientOrgId) => ({ groupId: o.id, clientOrgId })));
    }
    await audit(tx, o, {
      action: "PARTNER_GROUP_CHANGED",
      target: o.id,
      metadata: { change: "clients", added: added.sort(), removed: removed.sort() },
    });
  });
  return getGroup(db, { partnerOrgId: o.orgId, id: o.id });
}
