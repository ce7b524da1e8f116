import { apiKeys, memberships, type Db } from "@posture/db";
import {
  AppError,
  audit,
  firstOr404,
  generateApiKey,
  isApiKeyScope,
  iso,
  normalizeScopes,
  SYSTEM_ACTOR,
  type TActor,
  type TApiKeyScope,
} from "@posture/platform";
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

export type TCreateApiKey = {
  orgId: string;
  actor: TActor;
  name: string;
  expiresInDays?: number | undefined;
  /** The user the key acts for; the actor themself when absent (operators issue keys for others). */
  ownerUserId?: string;
  /** Limits within the owner's role (platform scopes.ts); absent: unscoped, the full role. */
  scopes?: readonly TApiKeyScope[] | undefined;
};

/** Stored and shown as given, normalised; null (unscoped) when none were asked for. */
function scopesOf(scopes: readonly TApiKeyScope[] | undefined): TApiKeyScope[] | null {
  return scopes === undefined ? null : normalizeScopes(scopes);
}

function shownScopes(stored: string[] | null): TApiKeyScope[] | null {
  return stored === null ? null : normalizeScopes(stored.filter(isApiKeyScope));
}

/**
 * Issues a key acting for its owner in `orgId`. The full key exists only in the return value:
 * the table keeps its SHA-256 and display prefix. The key and its audit entry commit together.
 */
export async function createApiKey(db: Db, input: TCreateApiKey, now = new Date()) {
  const name = input.name.trim();
  if (!name || name.length > 80) {
    throw new AppError("invalid_input", "Key name must be 1 to 80 characters", {
      details: [{ path: "name", message: "1 to 80 characters" }],
    });
  }
  const ownerUserId = input.ownerUserId ?? input.actor.userId;
  if (!ownerUserId) throw new AppError("invalid_input", "An API key must act for a user");
  firstOr404(
    await db
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.orgId, input.orgId), eq(memberships.userId, ownerUserId)))
      .limit(1),
    "Member",
  );
  const generated = generateApiKey();
  const expiresAt = input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * DAY_MS) : null;
  const scopes = scopesOf(input.scopes);
  if (scopes !== null && scopes.length === 0) {
    throw new AppError("invalid_input", "An API key's scopes name at least one scope", {
      details: [{ path: "scopes", message: "at least one of read, write" }],
    });
  }
  const row = await db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(apiKeys)
      .values({
        orgId: input.orgId,
        createdByUserId: ownerUserId,
        name,
        keyHash: generated.keyHash,
        keyPrefix: generated.keyPrefix,
        expiresAt,
        createdAt: now,
        scopes,
      })
      .returning();
    if (!inserted) throw new Error("api key insert returned no row");
    await audit(tx, input, {
      action: "API_KEY_CREATED",
      target: `${inserted.id} (${inserted.keyPrefix})`,
      metadata: {
        keyId: inserted.id,
        name,
        ...(scopes ? { scopes } : {}),
        ...(input.ownerUserId ? { ownerUserId } : {}),
      },
    });
    return inserted;
  });
  return {
    key: generated.key,
    id: row.id,
    name: row.name,
    keyPrefix: row.keyPrefix,
    expiresAt: iso(row.expiresAt),
    createdAt: iso(row.createdAt),
    scopes: shownScopes(row.scopes),
  };
}

/**
 * The operator's entry (CLI, demo seed, test and bench fixtures): a key for `userId`, issued by
 * the system rather than by a signed-in user.
 */
export function createApiKeyFor(
  db: Db,
  input: {
    orgId: string;
    userId: string;
    name: string;
    expiresInDays?: number | undefined;
    scopes?: readonly TApiKeyScope[] | undefined;
  },
  now = new Date(),
) {
  return createApiKey(
    db,
    {
      orgId: input.orgId,
      actor: SYSTEM_ACTOR,
      ownerUserId: input.userId,
      name: input.name,
      expiresInDays: input.expiresInDays,
      scopes: input.scopes,
    },
    now,
  );
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
      scopes: apiKeys.scopes,
    })
    .from(apiKeys)
    .where(eq(apiKeys.orgId, input.orgId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return rows.map((k) => ({
    id: k.id,
    name: k.name,
    keyPrefix: k.keyPrefix,
    createdAt: iso(k.createdAt),
    lastUsedAt: iso(k.lastUsedAt),
    expiresAt: iso(k.expiresAt),
    revokedAt: iso(k.revokedAt),
    status: keyStatus(k, now),
    scopes: shownScopes(k.scopes),
  }));
}

/**
 * Soft delete: revokedAt is set once and kept. Credential lookup reads the row on every request,
 * so the key stops working on the very next call. Another organization's key is "not found".
 */
export async function revokeKey(
  db: Db,
  input: { orgId: string; actor: TActor; keyId: string },
  now = new Date(),
) {
  const key = firstOr404(
    await db
      .select({ id: apiKeys.id, keyPrefix: apiKeys.keyPrefix })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, input.keyId), eq(apiKeys.orgId, input.orgId)))
      .limit(1),
    "API key",
  );
  await db.transaction(async (tx) => {
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.id, key.id), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    // Revoking twice is harmless and leaves the first revocation (and its audit entry) as it was.
    if (revoked.length === 0) return;
    await audit(tx, input, {
      action: "API_KEY_REVOKED",
      target: `${key.id} (${key.keyPrefix})`,
      metadata: { keyId: key.id },
    });
  });
  return { revoked: true as const };
}
