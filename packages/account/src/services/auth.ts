import { memberships, organizations, sessions, users, type Db, type TRole } from "@posture/db";
import {
  AppError,
  audit,
  effectivePlan,
  generateSessionToken,
  principalColumns,
  SESSION_ABSOLUTE_MS,
  type TActor,
  type TPrincipal,
} from "@posture/platform";
import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import { checkPassword, dummyPasswordHash, hashPassword } from "./passwords";
import { appendPendingFailuresOf, recordSignInFailure } from "./sign-in-failures";
import { normalizeEmail } from "./users";

export type TSessionBody = {
  user: { id: string; email: string; role: TRole };
  organization: { id: string; name: string; plan: TPrincipal["org"]["plan"] };
  /** Every organization the user belongs to: sign in again with `organizationId` to switch. */
  memberships: TMembership[];
};

export type TMembership = { organizationId: string; name: string; role: TRole; isSandbox: boolean };

/** The user's memberships, oldest first (the one a sign-in without `organizationId` lands in). */
export async function membershipsOf(db: Db, userId: string): Promise<TMembership[]> {
  return db
    .select({
      organizationId: memberships.orgId,
      name: organizations.name,
      role: memberships.role,
      isSandbox: organizations.isSandbox,
    })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(organizations.createdAt));
}

export type TSignInResult = { token: string; maxAgeSeconds: number; body: TSessionBody };

const invalidCredentials = () => new AppError("invalid_credentials", "Invalid email or password");

/** The user and the membership they sign into: the one asked for when they hold it, else their oldest. */
async function findAccount(db: Db, email: string, organizationId: string | null) {
  const [row] = await db
    .select({ ...principalColumns, passwordHash: users.passwordHash })
    .from(users)
    .leftJoin(memberships, eq(memberships.userId, users.id))
    .leftJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(eq(users.email, email))
    .orderBy(
      ...(organizationId === null ? [] : [desc(sql`${memberships.orgId} = ${organizationId}`)]),
      asc(memberships.createdAt),
      asc(organizations.createdAt),
    )
    .limit(1);
  return row ?? null;
}

export type TSignIn = {
  email: string;
  password: string;
  /** The session the request already carried: replaced, so a fixated token dies at sign-in. */
  previousSessionId?: string | null;
  /** The organization to sign into (one of the user's memberships); absent: their oldest. */
  organizationId?: string | undefined;
};

/**
 * Unknown address and wrong password are one answer and the same work — one account lookup, one
 * argon2id verification, one INSERT of the failure — so neither the body nor the timing tells
 * whether an account exists. A known account's SIGN_IN_FAILED audit row is appended from that
 * record after the response (sign-in-failures.ts).
 */
export async function signIn(db: Db, input: TSignIn, now = new Date()): Promise<TSignInResult> {
  const email = normalizeEmail(input.email);
  const account = await findAccount(db, email, input.organizationId ?? null);
  const { valid, needsRehash } = await checkPassword(
    input.password,
    account?.passwordHash ?? (await dummyPasswordHash()),
  );
  const { role, orgId, orgName, plan } = account ?? {};
  if (!account || !valid || !role || !orgId || !orgName || !plan) {
    await recordSignInFailure(db, {
      email: account?.userEmail ?? email,
      userId: account?.userId ?? null,
      orgId: orgId ?? null,
      attemptedAt: now,
    });
    throw invalidCredentials();
  }
  // Asked for an organization the user does not belong to: told so only once the password is right.
  if (input.organizationId !== undefined && input.organizationId !== orgId) {
    throw new AppError("forbidden", "You are not a member of that organization");
  }
  // Who signs in, as the audit trail records it: the user, by their password.
  const actor: TActor = { kind: "session", userId: account.userId, email: account.userEmail };

  // A hash made with older parameters (or scrypt) is replaced now, while the password is at hand.
  const upgradedHash = needsRehash ? await hashPassword(input.password) : null;
  const { token, tokenHash } = generateSessionToken();
  await db.transaction(async (tx) => {
    if (upgradedHash) {
      await tx
        .update(users)
        .set({ passwordHash: upgradedHash })
        .where(and(eq(users.id, account.userId), eq(users.passwordHash, account.passwordHash)));
    }
    if (input.previousSessionId) {
      await tx
        .update(sessions)
        .set({ revokedAt: now })
        .where(and(eq(sessions.id, input.previousSessionId), isNull(sessions.revokedAt)));
    }
    const [session] = await tx
      .insert(sessions)
      .values({
        tokenHash,
        userId: account.userId,
        orgId,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
      })
      .returning({ id: sessions.id });
    // Failures not yet in the chain come first, as they happened.
    await appendPendingFailuresOf(tx, account.userId);
    await audit(
      tx,
      { orgId, actor },
      { action: "SIGN_IN", target: account.userEmail, metadata: { sessionId: session?.id } },
    );
  });

  const effective = effectivePlan(
    { plan, gracePlan: account.gracePlan, graceEndsAt: account.graceEndsAt },
    now,
  );
  return {
    token,
    maxAgeSeconds: Math.floor(SESSION_ABSOLUTE_MS / 1000),
    body: {
      user: { id: account.userId, email: account.userEmail, role },
      organization: { id: orgId, name: orgName, plan: effective.plan },
      memberships: await membershipsOf(db, account.userId),
    },
  };
}

/** Revokes the session in the database: every replica refuses the token from the next request on. */
export async function signOut(
  db: Db,
  input: { orgId: string; actor: TActor; sessionId: string },
  now = new Date(),
) {
  await db.transaction(async (tx) => {
    await tx
      .update(sessions)
      .set({ revokedAt: now })
      .where(and(eq(sessions.id, input.sessionId), isNull(sessions.revokedAt)));
    await audit(tx, input, { action: "SIGN_OUT", target: input.actor.email });
  });
  return { signedOut: true as const };
}

export async function sessionBody(db: Db, principal: TPrincipal): Promise<TSessionBody> {
  return {
    user: { id: principal.userId, email: principal.userEmail, role: principal.role },
    organization: { id: principal.org.id, name: principal.org.name, plan: principal.org.plan },
    memberships: await membershipsOf(db, principal.userId),
  };
}
