import { and, count, eq } from "drizzle-orm";
import { createApiKeyFor, createOrganization } from "@posture/account";
import { memberships, organizations, partnerSettings, users, type Db, type TPlanId } from "@posture/db";
import { AppError, audit, type TActor } from "@posture/platform";

/** Sandboxes one user may be a member of (each made by POST /api/sandbox adds one). */
export const MAX_SANDBOXES_PER_USER = 10;

export type TCreateSandboxOrganization = {
  name: string;
  plan: TPlanId;
  isPartner?: boolean;
  managedByOrgId?: string | null;
};

/**
 * A sandbox organization (operators' `org:create --sandbox`): an ordinary organization, flagged,
 * whose sources are demo sources only. The account package's rules apply (name, managing partner).
 */
export async function createSandboxOrganization(db: Db, input: TCreateSandboxOrganization) {
  return db.transaction(async (tx) => {
    // Flagged at insert: the manager's kind is checked against it (a sandbox partner, or none).
    const org = await createOrganization(tx, { ...input, isSandbox: true });
    // A sandbox partner hears about its clients' health: the scenario `client_unhealthy` is its point.
    if (input.isPartner) await tx.insert(partnerSettings).values({ orgId: org.id, notifyUnhealthy: true });
    return { ...org, isSandbox: true as const };
  });
}

/** The caller's own organization (it exists: the credential resolved to it), sandbox flag and all. */
export async function sandboxOf(db: Db, { orgId }: { orgId: string }) {
  const [org] = await db
    .select({
      id: organizations.id,
      name: organizations.name,
      plan: organizations.plan,
      isSandbox: organizations.isSandbox,
      isPartner: organizations.isPartner,
      managedByOrgId: organizations.managedByOrgId,
    })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .limit(1);
  if (!org) throw new Error(`organization ${orgId} is gone`);
  return org;
}

/** 403 `sandbox_required` unless the organization is a sandbox: scenarios never touch a real tenant. */
export async function assertSandbox(db: Db, { orgId }: { orgId: string }) {
  const org = await sandboxOf(db, { orgId });
  if (!org.isSandbox)
    throw new AppError(
      "sandbox_required",
      "Scenarios run in sandbox organizations only; create one with POST /api/sandbox",
    );
  return org;
}

/**
 * POST /api/sandbox: a signed-in OWNER or ADMIN makes a sandbox beside their organization. The
 * sandbox is a new organization on the enterprise plan (its data is synthetic, so nothing of value
 * is unlocked, and every feature can be tried), flagged `is_sandbox`, a partner if asked; the
 * caller becomes its OWNER and gets an API key of it, returned once. It is not linked to the
 * caller's organization (no managed-by): nothing a scenario does reaches a real portfolio.
 * Audited in both organizations.
 */
export async function createSandbox(
  db: Db,
  input: { orgId: string; actor: TActor; name?: string | undefined; partner: boolean },
) {
  const userId = input.actor.userId;
  if (!userId) throw new AppError("invalid_input", "A sandbox is made for a user");
  const home = await sandboxOf(db, { orgId: input.orgId });
  const name = input.name ?? `${home.name} (sandbox)`;
  const org = await db.transaction(async (tx) => {
    // The cap is a count then an insert: the user's row, locked in the same transaction, makes a
    // user's concurrent requests take turns (16 at once make 10, then 409s), and no other user waits.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
    const [owned] = await tx
      .select({ n: count() })
      .from(memberships)
      .innerJoin(organizations, eq(organizations.id, memberships.orgId))
      .where(and(eq(memberships.userId, userId), eq(organizations.isSandbox, true)));
    if ((owned?.n ?? 0) >= MAX_SANDBOXES_PER_USER)
      throw new AppError("conflict", `A user may belong to at most ${MAX_SANDBOXES_PER_USER} sandboxes`);
    const created = await createSandboxOrganization(tx, {
      name,
      plan: "enterprise",
      isPartner: input.partner,
    });
    await tx.insert(memberships).values({ userId, orgId: created.id, role: "OWNER" });
    const metadata = { sandboxOrgId: created.id, name: created.name, partner: input.partner };
    await audit(tx, input, { action: "SANDBOX_CREATED", target: created.id, metadata });
    await audit(
      tx,
      { orgId: created.id, actor: input.actor },
      {
        action: "SANDBOX_CREATED",
        target: created.id,
        metadata: { ...metadata, createdFrom: input.orgId },
      },
    );
    return created;
  });
  const key = await createApiKeyFor(db, { orgId: org.id, userId, name: "sandbox" });
  return {
    id: org.id,
    name: org.name,
    plan: org.plan,
    isSandbox: true as const,
    isPartner: input.partner,
    apiKey: { key: key.key, id: key.id, keyPrefix: key.keyPrefix },
  };
}
