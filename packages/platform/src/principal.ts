import type { TPlanId, TRole } from "@posture/db";

export type TCredentialKind = "api_key" | "session";

// Who is calling, resolved once per request from an API key or a session cookie.
// The organization always comes from here, never from a header or a parameter.
export type TPrincipal = {
  kind: TCredentialKind;
  credentialId: string;
  userId: string;
  userEmail: string;
  role: TRole;
  org: {
    id: string;
    name: string;
    plan: TPlanId; // effective plan, grace applied
    isPartner: boolean;
  };
  /**
   * The program making this request as it declares itself (`X-Service-Client`, e.g.
   * `mcp:claude-ai/0.1.0`): per request, never cached with the credential; audit rows record it.
   */
  client?: string;
  /**
   * An API key's scopes (scopes.ts), read with the key and cached with it: absent or null for a
   * session and for an unscoped key (the owner's full role).
   */
  scopes?: readonly string[] | null;
};

/** A declared client name: printable ASCII, at most 120 characters; anything else is dropped. */
const CLIENT_LABEL = /^[\x21-\x7e][\x20-\x7e]{0,119}$/;

/** The principal of one request with the client it declares, when the declaration is well formed. */
export function withClient(principal: TPrincipal, client: string | undefined): TPrincipal {
  return client !== undefined && CLIENT_LABEL.test(client) ? { ...principal, client } : principal;
}

/** Whether `have` meets a minimum role: OWNER ⊃ ADMIN ⊃ member. */
export function hasRole(have: TRole | undefined, required: TRole): boolean {
  if (required === "OWNER") return have === "OWNER";
  if (required === "ADMIN") return have === "OWNER" || have === "ADMIN";
  return have !== undefined;
}
