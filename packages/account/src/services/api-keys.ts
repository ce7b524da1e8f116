import { apiKeys, memberships, users, type Db } from "@posture/db";
import { AppError, generateApiKey, recordAudit } from "@posture/platform";
import { and, desc, eq, isNull } from "drizzle-orm";

const DAY_MS = 86_400_000;

export type TKeyStatus = "active" | "revoked" | "expired";

export function keyStatus(
  k: { revokedAt: Date | null; expiresAt: Date | null },
  now = new Date(),
): TKeyStatus {
  if (k.revokedAt) return "revoked";
  if (k.expiresAt && k.expiresAt <= now) return "expired";
  return "active";
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export type TCreateApiKey = { orgId: string; userId: string; name: string; expiresInDays?: number };

/**
 * Issues a key acting for `userId` in `orgId`. The full key exists only in the return value:
 * the table keeps its SHA-256 and display prefix.
 */
export async function createApiKeyFor(db: Db, input: TCreateApiKey, now = new Date()) {
  const name = input.name.trim();
  if (!name || name.length > 80) {
    throw new AppError("invalid_input", "Key name must be 1 to 80 characters", {
      details: [{ path: "name", message: "1 to 80 characters" }],
    });
  }
  const [member] = await db
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.orgId, input.orgId), eq(memberships.userId, input.userId)))
    .limit(1);
  if (!member) throw new AppError("not_found", "User is not a member of the organization");
  const generated = generateApiKey();
  const expiresAt = input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * DAY_MS) : null;
  // The key and its audit entry land together or not at all.
  const row = await db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(apiKeys)
      .values({
        orgId: input.orgId,
        createdByUserId: input.userId,
        name,
        keyHash: generated.keyHash,
        keyPrefix: generated.keyPrefix,
        expiresAt,
        createdAt: now,
      })
      .returning();
    if (!inserted) throw new Error("api key insert returned no row");
    await recordAudit(tx, {
      orgId: input.orgId,
      action: "API_KEY_CREATED",
      target: `${inserted.id} (${inserted.keyPrefix})`,
      userId: input.userId,
      userEmail: member.email,
      metadata: { keyId: inserted.id, name },
    });
    return inserted;
  });
  return {
    key: generated.key,
    id: row.id,
    name: row.name,
    keyPrefix: row.keyPrefix,
    expiresAt: iso(row.expiresAt),
    createdAt: row.createdAt.toISOString(),
  };
}

export async function listKeys(db: Db, input: { orgId: string }, now = new Date()) {
  const rows = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      keyPrefix: apiKeys.keyPrefix,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.orgId, input.orgId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return rows.map((k) => ({
    id: k.id,
    name: k.name,
    keyPrefix: k.keyPrefix,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: iso(k.lastUsedAt),
    expiresAt: iso(k.expiresAt),
    revokedAt: iso(k.revokedAt),
    status: keyStatus(k, now),
  }));
}

export type TActor = { userId: string; userEmail: string };

/**
 * Soft delete: revokedAt is set once and kept. Credential lookup reads the row on every request,
 * so the key stops working on the very next call. Another organization's key is "not found".
 */
export async function revokeKey(
  db: Db,
  input: { orgId: string; keyId: string; actor: TActor },
  now = new Date(),
) {
  const [key] = await db
    .select({ id: apiKeys.id, keyPrefix: apiKeys.keyPrefix })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, input.keyId), eq(apiKeys.orgId, input.orgId)))
    .limit(1);
  if (!key) throw new AppError("not_found", "API key not found");
  await db.transaction(async (tx) => {
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.id, key.id), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    // Revoking twice is harmless and leaves the first revocation (and its audit entry) as it was.
    if (revoked.length === 0) return;
    await recordAudit(tx, {
      orgId: input.orgId,
      action: "API_KEY_REVOKED",
      target: `${key.id} (${key.keyPrefix})`,
      userId: input.actor.userId,
      userEmail: input.actor.userEmail,
      metadata: { keyId: key.id },
    });
  });
  return { revoked: true as const };
}
