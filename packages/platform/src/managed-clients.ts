import { and, eq, inArray, isNull, type SQL } from "drizzle-orm";
import { organizations, partnerAccess, type Db, type TPlanId } from "@posture/db";
import { AppError } from "./errors";

export type TManagedClient = { id: string; name: string; plan: TPlanId };

/**
 * The one rule of a partner's reach (issue 17): a client is the partner's to read or act on while
 * it is managed by the partner and its consent (partner_access) is not withdrawn. Every partner
 * read and action goes through here, so a withdrawal takes effect on the next request.
 */
export function managedBy(partnerOrgId: string): SQL {
  return and(
    eq(organizations.managedByOrgId, partnerOrgId),
    eq(partnerAccess.partnerOrgId, partnerOrgId),
    isNull(partnerAccess.withdrawnAt),
  ) as SQL;
}

/** The partner's clients with access granted, by name (optionally only those among `ids`). */
export async function managedClients(
  db: Db,
  partnerOrgId: string,
  ids?: readonly string[],
): Promise<TManagedClient[]> {
  if (ids && ids.length === 0) return [];
  return db
    .select({ id: organizations.id, name: organizations.name, plan: organizations.plan })
    .from(organizations)
    .innerJoin(partnerAccess, eq(partnerAccess.clientOrgId, organizations.id))
    .where(and(managedBy(partnerOrgId), ids ? inArray(organizations.id, [...ids]) : undefined))
    .orderBy(organizations.name, organizations.id);
}

/** One client of the partner, or 404 — the same answer for another partner's client, a client that withdrew access, and an unknown id. */
export async function requireManagedClient(
  db: Db,
  partnerOrgId: string,
  clientOrgId: string,
): Promise<TManagedClient> {
  const [client] = await managedClients(db, partnerOrgId, [clientOrgId]);
  if (!client) throw new AppError("not_found", "Organization not found");
  return client;
}
