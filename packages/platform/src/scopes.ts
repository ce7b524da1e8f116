import type { TPrincipal } from "./principal";

/**
 * What an API key may be limited to within its owner's role. `read`: every GET (tRPC query) the
 * role allows and nothing else. `write`: everything the role allows, reads included (a key that
 * may change things may read them). A key created without scopes has no limit: its owner's full
 * role, as every key had before scopes existed.
 */
export const API_KEY_SCOPES = ["read", "write"] as const;
export type TApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const isApiKeyScope = (s: string): s is TApiKeyScope =>
  (API_KEY_SCOPES as readonly string[]).includes(s);

/** What a call needs: a query reads, anything else (a tRPC mutation, any non-GET) writes. */
export type TCallKind = "query" | "mutation" | "subscription";

/** The scope a call of this kind needs (named in each operation's OpenAPI security requirement). */
export const scopeFor = (kind: TCallKind): TApiKeyScope => (kind === "query" ? "read" : "write");

/** Whether a set of scopes (null: unscoped) allows a call of this kind. */
export function scopesAllow(scopes: readonly string[] | null | undefined, kind: TCallKind): boolean {
  if (scopes === null || scopes === undefined) return true;
  if (scopes.includes("write")) return true;
  return kind === "query" && scopes.includes("read");
}

/** Whether the principal may make a call of this kind: sessions and unscoped keys always may. */
export const principalAllows = (principal: TPrincipal, kind: TCallKind): boolean =>
  principal.kind !== "api_key" || scopesAllow(principal.scopes, kind);

/** Stored form: each scope once, in the catalog's order; `write` implies `read` and is kept alone. */
export function normalizeScopes(scopes: readonly TApiKeyScope[]): TApiKeyScope[] {
  if (scopes.includes("write")) return ["write"];
  return API_KEY_SCOPES.filter((s) => scopes.includes(s));
}
