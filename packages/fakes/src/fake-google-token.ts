import { createVerify } from "node:crypto";
import { type TFakeResponse } from "./fake-server";

// What Google's token endpoint checks of a JWT bearer grant (RFC 7523): a known issuer, an RS256
// signature by that service account's key, the endpoint as audience, a live expiry, the scopes,
// each of them delegated to the client (domain-wide delegation), and a subject it may impersonate:
// an existing, active user of the tenant.

export type TFakeServiceAccount = { clientEmail: string; publicKey: string };

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

const refuse = (status: number, error: string, description: string): TFakeResponse => ({
  status,
  body: { error, error_description: description },
});

/** The token endpoint's refusal when a requested scope is not in the client's domain-wide delegation. */
export const UNAUTHORIZED_CLIENT =
  "Client is unauthorized to retrieve access tokens using this method, or client not authorized for " +
  "any of the scopes requested.";

/** The grant's subject and scopes when it is acceptable, else the token endpoint's error response. */
export function checkJwtBearerGrant(
  formBody: string,
  opts: {
    tokenUrl: string;
    serviceAccounts: TFakeServiceAccount[];
    /** The scopes the admin delegated to the client (Admin console > API controls > Domain-wide delegation). */
    authorizedScopes: readonly string[];
    /** Why the subject cannot be impersonated (unknown, suspended), or null when it can. */
    refuseSubject: (subject: string) => string | null;
  },
): { refused: TFakeResponse } | { subject: string; scopes: string[] } {
  const form = new URLSearchParams(formBody);
  if (form.get("grant_type") !== JWT_BEARER)
    return { refused: refuse(400, "unsupported_grant_type", "Invalid grant_type") };
  const parts = (form.get("assertion") ?? "").split(".");
  const [header, claims, signature] = parts;
  if (parts.length !== 3 || !header || !claims || !signature)
    return { refused: refuse(400, "invalid_request", "Invalid JWT") };
  const head = JSON.parse(Buffer.from(header, "base64url").toString()) as { alg?: string };
  const body = JSON.parse(Buffer.from(claims, "base64url").toString()) as Record<string, unknown>;
  const account = opts.serviceAccounts.find((a) => a.clientEmail === body.iss);
  if (!account) return { refused: refuse(401, "invalid_client", "The OAuth client was not found.") };
  const verified =
    head.alg === "RS256" &&
    createVerify("RSA-SHA256")
      .update(`${header}.${claims}`)
      .verify(account.publicKey, Buffer.from(signature, "base64url"));
  if (!verified) return { refused: refuse(400, "invalid_grant", "Invalid JWT Signature.") };
  const now = Math.floor(Date.now() / 1000);
  if (
    body.aud !== opts.tokenUrl ||
    typeof body.exp !== "number" ||
    body.exp < now ||
    typeof body.iat !== "number"
  ) {
    return { refused: refuse(400, "invalid_grant", "Invalid JWT: Token must be a short-lived token") };
  }
  const scopes = typeof body.scope === "string" ? body.scope.split(" ").filter(Boolean) : [];
  if (scopes.length === 0)
    return { refused: refuse(400, "invalid_scope", "Empty or missing scope not allowed.") };
  if (!scopes.every((s) => opts.authorizedScopes.includes(s)))
    return { refused: refuse(401, "unauthorized_client", UNAUTHORIZED_CLIENT) };
  const subject = typeof body.sub === "string" ? body.sub.toLowerCase() : "";
  const subjectRefused = opts.refuseSubject(subject);
  if (subjectRefused) return { refused: refuse(400, "invalid_grant", subjectRefused) };
  return { subject, scopes };
}
