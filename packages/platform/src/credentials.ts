import { apiKeys, memberships, organizations, prepared, sessions, users, type Db } from "@posture/db";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { createHash, randomBytes } from "node:crypto";
import { effectivePlan } from "./plans";
import type { TPrincipal } from "./principal";

export const API_KEY_PATTERN = /^svc_ak_[0-9a-f]{40}$/;
export const KEY_PREFIX_LENGTH = 12;
export const SESSION_COOKIE = "svc_session";
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
// lastUsedAt / lastSeenAt are written at most this often per credential: one write per
// request would turn every read into a write under load.
const TOUCH_INTERVAL_MS = 60_000;

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function generateApiKey(): { key: string; keyHash: string; keyPrefix: string } {
  const key = `svc_ak_${randomBytes(20).toString("hex")}`;
  return { key, keyHash: sha256Hex(key), keyPrefix: key.slice(0, KEY_PREFIX_LENGTH) };
}

export function generateSessionToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, tokenHash: sha256Hex(token) };
}

export type TCredentialResult =
  | { ok: true; principal: TPrincipal }
  | { ok: false; reason: "malformed" | "unknown" | "revoked" | "expired" | "no_membership" };

/** The columns a principal is built from (users ⋈ memberships ⋈ organizations). */
export const principalColumns = {
  userId: users.id,
  userEmail: users.email,
  role: memberships.role,
  orgId: organizations.id,
  orgName: organizations.name,
  plan: organizations.plan,
  gracePlan: organizations.gracePlan,
  graceEndsAt: organizations.graceEndsAt,
  isPartner: organizations.isPartner,
};

type TPrincipalRow = {
  [K in keyof typeof principalColumns]: (typeof principalColumns)[K]["_"]["data"] | null;
};

function toPrincipal(
  kind: TPrincipal["kind"],
  credentialId: string,
  row: TPrincipalRow,
  now: Date,
): TPrincipal | null {
  if (!row.userId || !row.userEmail || !row.role || !row.orgId || !row.orgName || !row.plan) return null;
  const { plan } = effectivePlan(
    { plan: row.plan, gracePlan: row.gracePlan, graceEndsAt: row.graceEndsAt },
    now,
  );
  return {
    kind,
    credentialId,
    userId: row.userId,
    userEmail: row.userEmail,
    role: row.role,
    org: { id: row.orgId, name: row.orgName, plan, isPartner: row.isPartner ?? false },
  };
}

/**
 * Looks the key up by its hash on every request: no cache, so a revocation is seen by every
 * gateway replica on the very next request. The role is the creator's role now, not at creation.
 */
export async function resolveApiKey(db: Db, key: string, now = new Date()): Promise<TCredentialResult> {
  if (!API_KEY_PATTERN.test(key)) return { ok: false, reason: "malformed" };
  const [row] = await prepared(db, "resolve_api_key", (d) =>
    d
      .select({
        keyId: apiKeys.id,
        revokedAt: apiKeys.revokedAt,
        expiresAt: apiKeys.expiresAt,
        lastUsedAt: apiKeys.lastUsedAt,
        ...principalColumns,
      })
      .from(apiKeys)
      .leftJoin(organizations, eq(organizations.id, apiKeys.orgId))
      .leftJoin(users, eq(users.id, apiKeys.createdByUserId))
      .leftJoin(
        memberships,
        and(eq(memberships.userId, apiKeys.createdByUserId), eq(memberships.orgId, apiKeys.orgId)),
      )
      .where(eq(apiKeys.keyHash, sql.placeholder("hash")))
      .limit(1)
      .prepare("resolve_api_key"),
  ).execute({ hash: sha256Hex(key) });
  if (!row) return { ok: false, reason: "unknown" };
  if (row.revokedAt) return { ok: false, reason: "revoked" };
  if (row.expiresAt && row.expiresAt <= now) return { ok: false, reason: "expired" };
  const principal = toPrincipal("api_key", row.keyId, row, now);
  if (!principal) return { ok: false, reason: "no_membership" };
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
    const stale = new Date(now.getTime() - TOUCH_INTERVAL_MS);
    await db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(and(eq(apiKeys.id, row.keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale))));
  }
  return { ok: true, principal };
}

/** A session is alive while not revoked, within its absolute lifetime and used within the idle window. */
export async function resolveSession(db: Db, token: string, now = new Date()): Promise<TCredentialResult> {
  if (token.length < 20 || token.length > 200) return { ok: false, reason: "malformed" };
  const [row] = await prepared(db, "resolve_session", (d) =>
    d
      .select({
        sessionId: sessions.id,
        revokedAt: sessions.revokedAt,
        expiresAt: sessions.expiresAt,
        lastSeenAt: sessions.lastSeenAt,
        ...principalColumns,
      })
      .from(sessions)
      .leftJoin(organizations, eq(organizations.id, sessions.orgId))
      .leftJoin(users, eq(users.id, sessions.userId))
      .leftJoin(
        memberships,
        and(eq(memberships.userId, sessions.userId), eq(memberships.orgId, sessions.orgId)),
      )
      .where(eq(sessions.tokenHash, sql.placeholder("hash")))
      .limit(1)
      .prepare("resolve_session"),
  ).execute({ hash: sha256Hex(token) });
  if (!row) return { ok: false, reason: "unknown" };
  if (row.revokedAt) return { ok: false, reason: "revoked" };
  if (row.expiresAt <= now || now.getTime() - row.lastSeenAt.getTime() > SESSION_IDLE_MS) {
    return { ok: false, reason: "expired" };
  }
  const principal = toPrincipal("session", row.sessionId, row, now);
  if (!principal) return { ok: false, reason: "no_membership" };
  if (now.getTime() - row.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, row.sessionId));
  }
  return { ok: true, principal };
}
