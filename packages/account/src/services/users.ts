import { memberships, users, type Db, type TRole } from "@posture/db";
import { AppError } from "@posture/platform";
import { eq } from "drizzle-orm";
import { getOrganization } from "./organizations";
import { hashPassword } from "./passwords";

export const MIN_PASSWORD_LENGTH = 8;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export type TCreateUser = { orgId: string; email: string; password: string; role: TRole };

/** A new account with one membership. An address already in use is a conflict, never a second account. */
export async function createUser(db: Db, input: TCreateUser) {
  const email = normalizeEmail(input.email);
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError("invalid_input", `Password must be at least ${MIN_PASSWORD_LENGTH} characters`, {
      details: [{ path: "password", message: `at least ${MIN_PASSWORD_LENGTH} characters` }],
    });
  }
  await getOrganization(db, input);
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  if (existing) throw new AppError("conflict", "A user with this email already exists");
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const [user] = await tx
      .insert(users)
      .values({ email, passwordHash })
      .onConflictDoNothing()
      .returning({ id: users.id, email: users.email });
    // Lost a race with a concurrent insert of the same address.
    if (!user) throw new AppError("conflict", "A user with this email already exists");
    await tx.insert(memberships).values({ userId: user.id, orgId: input.orgId, role: input.role });
    return { id: user.id, email: user.email, role: input.role };
  });
}
