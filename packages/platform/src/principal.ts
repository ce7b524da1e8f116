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
};

/** Whether `have` meets a minimum role: OWNER ⊃ ADMIN ⊃ member. */
export function hasRole(have: TRole | undefined, required: TRole): boolean {
  if (required === "OWNER") return have === "OWNER";
  if (required === "ADMIN") return have === "OWNER" || have === "ADMIN";
  return have !== undefined;
}
