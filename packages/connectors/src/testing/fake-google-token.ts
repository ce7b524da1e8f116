import { createVerify } from "node:crypto";
import { GOOGLE_SCOPES } from "../google/auth";
import { type TFakeResponse } from "./fake-server";

// What Google's token endpoint checks of a JWT bearer grant (RFC 7523): a known issuer, an RS256
// signature by that service account's key, the endpoint as audience, a live expiry, the scopes,
// and a subject domain-wide delegation lets it impersonate.

export type TFakeServiceAccount = { clientEmail: string; publicKey: string };

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

const refuse = (status: number, error: string, description: string): TFakeResponse => ({
  status,
  body: { error, error_description: description },
});

/** Null when the grant is acceptable, else the token endpoint's error response. */
export function checkJwtBearerGrant(
  formBody: string,
  opts: {
    tokenUrl: string;
    serviceAccounts: TFakeServiceAccount[];
    mayImpersonate: (email: unknown) => boolean;
  },
): TFakeResponse | null {
  const form = new URLSearchParams(formBody);
  if (form.get("grant_type") !== JWT_BEARER)
    return refuse(400, "unsupported_grant_type", "Invalid grant_type");
  const parts = (form.get("assertion") ?? "").split(".");
  const [header, claims, signature] = parts;
  if (parts.length !== 3 || !header || !claims || !signature)
    return refuse(400, "invalid_request", "Invalid JWT");
  const head = JSON.parse(Buffer.from(header, "base64url").toString()) as { alg?: string };
  const body = JSON.parse(Buffer.from(claims, "base64url").toString()) as Record<string, unknown>;
  const account = opts.serviceAccounts.find((a) => a.clientEmail === body.iss);
  if (!account) return refuse(401, "invalid_client", "The OAuth client was not found.");
  const verified =
    head.alg === "RS256" &&
    createVerify("RSA-SHA256")
      .update(`${header}.${claims}`)
      .verify(account.publicKey, Buffer.from(signature, "base64url"));
  if (!verified) return refuse(400, "invalid_grant", "Invalid JWT Signature.");
  const now = Math.floor(Date.now() / 1000);
  if (
    body.aud !== opts.tokenUrl ||
    typeof body.exp !== "number" ||
    body.exp < now ||
    typeof body.iat !== "number"
  ) {
    return refuse(400, "invalid_grant", "Invalid JWT: Token must be a short-lived token");
  }
  const scopes = typeof body.scope === "string" ? body.scope.split(" ") : [];
  if (!GOOGLE_SCOPES.every((s) => scopes.includes(s)))
    return refuse(400, "invalid_scope", "Missing required scopes");
  if (!opts.mayImpersonate(body.sub)) {
    return refuse(
      401,
      "unauthorized_client",
      "Client is unauthorized to retrieve access tokens using this method.",
    );
  }
  return null;
}
