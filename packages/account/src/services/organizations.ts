import { organizations, type Db, type TPlanId } from "@posture/db";
import { AppError, effectivePlan, firstOr404, iso, planChange, type TActor } from "@posture/platform";
import { eq } from "drizzle-orm";
import { auditPartnerLink, managerFor } from "./partner-link";

export type TCreateOrganization = {
  name: string;
  plan: TPlanId;
  isPartner?: boolean;
  /** A sandbox (docs/sandbox.md): demo sources only; a manager must be a sandbox partner. */
  isSandbox?: boolean;
  managedByOrgId?: string | null;
  /** Who made it, for the link's audit rows; the operator (the system) unless said. */
  actor?: TActor;
};

/**
 * A new organization. With a manager, the link is made here: the partner must be one, of the
 * same kind (sandbox or real), and the link is audited in both organizations' trails.
 */
export async function createOrganization(db: Db, input: TCreateOrganization) {
  const name = input.name.trim();
  if (!name)
    throw new AppError("invalid_input", "Organization name is required", {
      details: [{ path: "name", message: "required" }],
    });
  const isSandbox = input.isSandbox ?? false;
  return db.transaction(async (tx) => {
    const manager = input.managedByOrgId ? await managerFor(tx, input.managedByOrgId, { isSandbox }) : null;
    const [org] = await tx
      .insert(organizations)
      .values({
        name,
        plan: input.plan,
        isPartner: input.isPartner ?? false,
        isSandbox,
        managedByOrgId: manager?.id ?? null,
      })
      .returning({ id: organizations.id, name: organizations.name, plan: organizations.plan });
    if (!org) throw new Error("organization insert returned no row");
    if (manager) await auditPartnerLink(tx, { client: org, from: null, to: manager, actor: input.actor });
    return org;
  });
}

/** The organization, or 404. */
export async function getOrganization(db: Db, input: { orgId: string }) {
  return firstOr404(
    await db.select().from(organizations).where(eq(organizations.id, input.orgId)).limit(1),
    "Organization",
  );
}

/**
 * Moves an organization to another plan. A move below the plan it enjoys now keeps that plan's
 * entitlements for the grace period; a downgrade during grace does not restart the clock.
 */
export async function setOrganizationPlan(db: Db, input: { orgId: string; plan: TPlanId }, now = new Date()) {
  const org = await getOrganization(db, input);
  const current = effectivePlan(org, now);
  const next = planChange(current.plan, input.plan, now);
  if (current.inGrace && next.gracePlan === current.plan) next.graceEndsAt = current.graceEndsAt;
  await db.update(organizations).set(next).where(eq(organizations.id, org.id));
  const after = effectivePlan(next, now);
  return {
    id: org.id,
    plan: next.plan,
    inGrace: after.inGrace,
    graceEndsAt: iso(after.graceEndsAt),
  };
}
