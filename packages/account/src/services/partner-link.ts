import { eq } from "drizzle-orm";
import { organizations, partnerAccess, type Db } from "@posture/db";
import { AppError, audit, SYSTEM_ACTOR, type TActor } from "@posture/platform";

type TOrgRef = { id: string; name: string };
type TAccess = "granted" | "withdrawn";

const refused = (message: string) =>
  new AppError("invalid_input", message, { details: [{ path: "managedByOrgId", message }] });

/**
 * The partner that is to manage an organization, checked: it exists (404), is a partner, is not
 * the organization itself, and is of the same kind — a sandbox partner manages sandboxes only, a
 * real partner real organizations only (a sandbox's maker would otherwise read a real client's
 * data, or a real portfolio count synthetic tenants). The database's trigger (0026) refuses the
 * crossing too, for writers that skip this.
 */
export async function managerFor(tx: Db, managerId: string, client: { id?: string; isSandbox: boolean }) {
  const [manager] = await tx
    .select({
      id: organizations.id,
      name: organizations.name,
      isPartner: organizations.isPartner,
      isSandbox: organizations.isSandbox,
    })
    .from(organizations)
    .where(eq(organizations.id, managerId))
    .limit(1)
    // A partner turned sandbox (or no longer a partner) mid-link would slip past the check.
    .for("share");
  if (!manager) throw new AppError("not_found", "Managing organization not found");
  if (!manager.isPartner) throw refused("not a partner organization");
  if (manager.id === client.id) throw refused("an organization cannot manage itself");
  if (manager.isSandbox && !client.isSandbox)
    throw refused("a sandbox partner manages sandbox organizations only");
  if (!manager.isSandbox && client.isSandbox) throw refused("a sandbox is managed by a sandbox partner only");
  return { id: manager.id, name: manager.name };
}

/**
 * `PARTNER_LINK_CHANGED` in every trail the change concerns — the client's, the partner it left
 * and the partner it joined — with the consent the new partner has (the trigger decides it: a
 * withdrawal outlives the re-link). In the caller's transaction, after the link was written.
 */
export async function auditPartnerLink(
  tx: Db,
  change: { client: TOrgRef; from: TOrgRef | null; to: TOrgRef | null; actor?: TActor | undefined },
): Promise<TAccess | null> {
  const actor = change.actor ?? SYSTEM_ACTOR;
  const access = await accessOf(tx, change.client.id, change.to);
  const metadata = {
    clientOrgId: change.client.id,
    clientName: change.client.name,
    fromPartnerOrgId: change.from?.id ?? null,
    fromPartnerName: change.from?.name ?? null,
    toPartnerOrgId: change.to?.id ?? null,
    toPartnerName: change.to?.name ?? null,
    access,
  };
  const action = "PARTNER_LINK_CHANGED" as const;
  await audit(
    tx,
    { orgId: change.client.id, actor },
    { action, target: change.to?.id ?? change.from?.id ?? change.client.id, metadata },
  );
  // Each row takes its trail's chain lock: the partners' in id order, so two moves between the same
  // partners in opposite directions never wait on each other's.
  const partners = [change.from, change.to].filter((p): p is TOrgRef => p !== null);
  for (const partner of partners.sort((a, b) => a.id.localeCompare(b.id)))
    await audit(tx, { orgId: partner.id, actor }, { action, target: change.client.id, metadata });
  return access;
}

/**
 * The operator moves a client to another partner, or out of management (`managedByOrgId: null`):
 * `pnpm cli org:set-manager`. The consent row follows in the database (the trigger): a client that
 * withdrew its partner's access stays withdrawn, whoever it is moved to; one that had not gives
 * the new partner an operator's grant, as when it was made. Audited in the client and in both
 * partners; setting the manager it already has changes and records nothing.
 */
export async function setOrganizationManager(
  db: Db,
  input: { orgId: string; managedByOrgId: string | null; actor?: TActor },
) {
  return db.transaction(async (tx) => {
    const [org] = await tx
      .select({
        id: organizations.id,
        name: organizations.name,
        isSandbox: organizations.isSandbox,
        managedByOrgId: organizations.managedByOrgId,
      })
      .from(organizations)
      .where(eq(organizations.id, input.orgId))
      .limit(1)
      .for("update");
    if (!org) throw new AppError("not_found", "Organization not found");
    const to = input.managedByOrgId === null ? null : await managerFor(tx, input.managedByOrgId, org);
    const client = { id: org.id, name: org.name };
    if ((to?.id ?? null) === org.managedByOrgId) {
      return {
        id: org.id,
        managedByOrgId: org.managedByOrgId,
        access: await accessOf(tx, org.id, to),
        changed: false,
      };
    }
    const [fromRow] = org.managedByOrgId
      ? await tx
          .select({ id: organizations.id, name: organizations.name })
          .from(organizations)
          .where(eq(organizations.id, org.managedByOrgId))
      : [];
    await tx
      .update(organizations)
      .set({ managedByOrgId: to?.id ?? null })
      .where(eq(organizations.id, org.id));
    const access = await auditPartnerLink(tx, { client, from: fromRow ?? null, to, actor: input.actor });
    return { id: org.id, managedByOrgId: to?.id ?? null, access, changed: true };
  });
}

async function accessOf(tx: Db, clientOrgId: string, to: TOrgRef | null): Promise<TAccess | null> {
  if (!to) return null;
  const [row] = await tx
    .select({ partnerOrgId: partnerAccess.partnerOrgId, withdrawnAt: partnerAccess.withdrawnAt })
    .from(partnerAccess)
    .where(eq(partnerAccess.clientOrgId, clientOrgId))
    .limit(1);
  return row?.partnerOrgId === to.id && row.withdrawnAt === null ? "granted" : "withdrawn";
}
