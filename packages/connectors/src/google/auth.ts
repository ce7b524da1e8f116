import { createSign } from "node:crypto";
import { type THttpOptions, type TTokenProvider } from "../http/client";
import { createCachedTokenProvider, requestToken, staticTokenProvider } from "../http/token";

export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";

/** Read-only scopes the service account must be granted in domain-wide delegation. */
export const GOOGLE_SCOPES = [
  "https://www.googleapis.com/auth/drive.readonly",
  "https://www.googleapis.com/auth/admin.directory.user.readonly",
  "https://www.googleapis.com/auth/admin.directory.user.security",
  "https://www.googleapis.com/auth/admin.directory.domain.readonly",
  "https://www.googleapis.com/auth/admin.reports.audit.readonly",
];

export type TGoogleServiceAccount = { clientEmail: string; privateKey: string; subject: string };
export type TGoogleCredentials = { accessToken: string } | TGoogleServiceAccount;

const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ASSERTION_LIFETIME_SEC = 3600;

const base64url = (input: string | Buffer) => Buffer.from(input).toString("base64url");

/** The RS256-signed assertion of the OAuth 2.0 JWT bearer grant (RFC 7523), impersonating `subject`. */
export function signServiceAccountJwt(
  account: TGoogleServiceAccount,
  opts: { audience: string; scopes: string[]; now?: Date },
): string {
  const iat = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  const header = base64url(JSON.stringify({ alg: "RS256", typ: "JWT" }));
  const claims = base64url(
    JSON.stringify({
      iss: account.clientEmail,
      sub: account.subject,
      scope: opts.scopes.join(" "),
      aud: opts.audience,
      iat,
      exp: iat + ASSERTION_LIFETIME_SEC,
    }),
  );
  const signature = createSign("RSA-SHA256").update(`${header}.${claims}`).sign(account.privateKey);
  return `${header}.${claims}.${base64url(signature)}`;
}

export function googleTokenProvider(
  credentials: TGoogleCredentials,
  opts: { tokenUrl?: string; http?: THttpOptions } = {},
): TTokenProvider {
  if ("accessToken" in credentials) return staticTokenProvider(credentials.accessToken);
  const tokenUrl = opts.tokenUrl ?? GOOGLE_TOKEN_URL;
  return createCachedTokenProvider(() =>
    requestToken(
      "Google Workspace",
      tokenUrl,
      {
        grant_type: JWT_BEARER_GRANT,
        assertion: signServiceAccountJwt(credentials, { audience: tokenUrl, scopes: GOOGLE_SCOPES }),
      },
      opts.http,
    ),
  );
}
