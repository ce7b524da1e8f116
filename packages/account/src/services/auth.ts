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
import { and, asc, eq, isNull } from "drizzle-orm";
import { checkPassword, dummyPasswordHash, hashPassword } from "./passwords";
import { appendPendingFailuresOf, recordSignInFailure } from "./sign-in-failures";
import { normalizeEmail } from "./users";

export type TSessionBody = {
  user: { id: string; email: string; role: TRole };
  organization: { id: string; name: string; plan: TPrincipal["org"]["plan"] };
};

export type TSignInResult = { token: string; maxAgeSeconds: number; body: TSessionBody };

const invalidCredentials = () => new AppError("invalid_credentials", "Invalid email or password");

/** The user and the membership they sign into: their oldest one. */
async function findAccount(db: Db, email: string) {
  const [row] = await db
    .select({ ...principalColumns, passwordHash: users.passwordHash })
    .from(users)
    .leftJoin(memberships, eq(memberships.userId, users.id))
    .leftJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(eq(users.email, email))
    .orderBy(asc(memberships.createdAt), asc(organizations.createdAt))
    .limit(1);
  return row ?? null;
}

export type TSignIn = {
  email: string;
  password: string;
  /** The session the request already carried: replaced, so a fixated token dies at sign-in. */
  previousSessionId?: string | null;
};

/**
 * Unknown address and wrong password are one answer and the same work — one account lookup, one
 * argon2id verification, one INSERT of the failure — so neither the body nor the timing tells
 * whether an account exists. A known account's SIGN_IN_FAILED audit row is appended from that
 * record after the response (sign-in-failures.ts).
 */
export async function signIn(db: Db, input: TSignIn, now = new Date()): Promise<TSignInResult> {
  const email = normalizeEmail(input.email);
  const account = await findAccount(db, email);
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

export function sessionBody(principal: TPrincipal): TSessionBody {
  return {
    user: { id: principal.userId, email: principal.userEmail, role: principal.role },
    organization: { id: principal.org.id, name: principal.org.name, plan: principal.org.plan },
  };
}
