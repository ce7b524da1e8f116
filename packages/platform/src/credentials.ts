import { apiKeys, memberships, organizations, prepared, sessions, users, type Db } from "@posture/db";
import { and, eq, sql } from "drizzle-orm";
import { createHash, randomBytes } from "node:crypto";
import { effectivePlan } from "./plans";
import type { TPrincipal } from "./principal";

export const API_KEY_PATTERN = /^svc_ak_[0-9a-f]{40}$/;
export const KEY_PREFIX_LENGTH = 12;
export const SESSION_COOKIE = "svc_session";
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;

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

/** A successful lookup with what a cache needs to know about it. */
export type TCredentialLookup =
  | {
      ok: true;
      principal: TPrincipal;
      /** The organization's credential epoch read in the same statement. */
      epoch: number;
      /** When this principal stops being valid as it is (expiry, idle timeout, end of grace); ms. */
      validUntil: number;
      /** When the credential was last recorded as used (lastUsedAt / lastSeenAt). */
      lastUsedAt: Date | null;
    }
  | Extract<TCredentialResult, { ok: false }>;

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

/**
 * A live credential's principal, valid until the credential expires or the plan's grace ends,
 * whichever is first; the membership may be gone (a removed user keeps no access).
 */
function liveCredential(
  kind: TPrincipal["kind"],
  credentialId: string,
  row: TPrincipalRow & { epoch: number | null; expiresAt: Date | null },
  now: Date,
  lastUsedAt: Date | null,
  scopes: readonly string[] | null = null,
): TCredentialLookup {
  if (!row.userId || !row.userEmail || !row.role || !row.orgId || !row.orgName || !row.plan) {
    return { ok: false, reason: "no_membership" };
  }
  const { plan, graceEndsAt } = effectivePlan(
    { plan: row.plan, gracePlan: row.gracePlan, graceEndsAt: row.graceEndsAt },
    now,
  );
  const principal: TPrincipal = {
    kind,
    credentialId,
    userId: row.userId,
    userEmail: row.userEmail,
    role: row.role,
    org: { id: row.orgId, name: row.orgName, plan, isPartner: row.isPartner ?? false },
    ...(kind === "api_key" ? { scopes } : {}),
  };
  return {
    ok: true,
    principal,
    epoch: row.epoch ?? 0,
    validUntil: earliest(row.expiresAt, graceEndsAt),
    lastUsedAt,
  };
}

const earliest = (...times: Array<Date | null | undefined>): number =>
  Math.min(...times.map((t) => t?.getTime() ?? Number.POSITIVE_INFINITY));

const publicResult = (r: TCredentialLookup): TCredentialResult =>
  r.ok ? { ok: true, principal: r.principal } : r;

/**
 * Reads the key by its hash. The role is the creator's role now, not at creation; the key's scopes
 * (fixed at creation) travel in the principal and so in the gateway's cache. The gateway
 * caches the result (see access-gate.ts); this is the lookup behind that cache.
 */
export async function lookupApiKey(db: Db, key: string, now = new Date()): Promise<TCredentialLookup> {
  if (!API_KEY_PATTERN.test(key)) return { ok: false, reason: "malformed" };
  const [row] = await prepared(db, "resolve_api_key", (d) =>
    d
      .select({
        keyId: apiKeys.id,
        revokedAt: apiKeys.revokedAt,
        expiresAt: apiKeys.expiresAt,
        lastUsedAt: apiKeys.lastUsedAt,
        scopes: apiKeys.scopes,
        epoch: organizations.credentialEpoch,
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
  return liveCredential("api_key", row.keyId, row, now, row.lastUsedAt, row.scopes);
}

/** Looks an API key up in the database (no cache): for the CLI and tests. */
export async function resolveApiKey(db: Db, key: string, now = new Date()): Promise<TCredentialResult> {
  return publicResult(await lookupApiKey(db, key, now));
}

/** A session is alive while not revoked, within its absolute lifetime and used within the idle window. */
export async function lookupSession(db: Db, token: string, now = new Date()): Promise<TCredentialLookup> {
  if (token.length < 20 || token.length > 200) return { ok: false, reason: "malformed" };
  const [row] = await prepared(db, "resolve_session", (d) =>
    d
      .select({
        sessionId: sessions.id,
        revokedAt: sessions.revokedAt,
        expiresAt: sessions.expiresAt,
        lastSeenAt: sessions.lastSeenAt,
        epoch: organizations.credentialEpoch,
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
  // The idle deadline moves with use; the cache keeps its own last-use time (see the gate).
  return liveCredential("session", row.sessionId, row, now, row.lastSeenAt);
}

/** Looks a session up in the database (no cache): for tests and tools. */
export async function resolveSession(db: Db, token: string, now = new Date()): Promise<TCredentialResult> {
  return publicResult(await lookupSession(db, token, now));
}

/** The organization's current credential epoch (published after a change commits). */
export async function readCredentialEpoch(db: Db, orgId: string): Promise<number> {
  const [row] = await db
    .select({ epoch: organizations.credentialEpoch })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .limit(1);
  return row?.epoch ?? 0;
}
