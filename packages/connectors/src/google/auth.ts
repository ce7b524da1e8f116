import { createSign } from "node:crypto";
import { type THttpOptions, type TTokenProvider } from "../http/client";
import {
  createCachedTokenProvider,
  requestToken,
  staticTokenProvider,
  type TIssuedToken,
} from "../http/token";
import { SourceAuthError } from "../types";

export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";

export type TGoogleServiceAccount = { clientEmail: string; privateKey: string; subject: string };
export type TGoogleCredentials = { accessToken: string } | TGoogleServiceAccount;

const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ASSERTION_LIFETIME_SEC = 3600;

const base64url = (input: string | Buffer) => Buffer.from(input).toString("base64url");

/** The RS256-signed assertion of the OAuth 2.0 JWT bearer grant (RFC 7523), impersonating `subject`. */
export function signServiceAccountJwt(
  account: TGoogleServiceAccount,
  opts: { audience: string; scopes: readonly string[]; subject?: string; now?: Date },
): string {
  const iat = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  const header = base64url(JSON.stringify({ alg: "RS256", typ: "JWT" }));
  const claims = base64url(
    JSON.stringify({
      iss: account.clientEmail,
      sub: opts.subject ?? account.subject,
      scope: opts.scopes.join(" "),
      aud: opts.audience,
      iat,
      exp: iat + ASSERTION_LIFETIME_SEC,
    }),
  );
  const signature = createSign("RSA-SHA256").update(`${header}.${claims}`).sign(account.privateKey);
  return `${header}.${claims}.${base64url(signature)}`;
}

export type TGoogleTokens = {
  /** True for a service account with domain-wide delegation: it can act as any user of the tenant. */
  delegated: boolean;
  /** The admin the connection acts as (the service account's subject); null for a bare access token. */
  adminSubject: string | null;
  /** One cached token per subject and scope set; the bare access token for every caller otherwise. */
  as: (subject: string, scopes: readonly string[]) => TTokenProvider;
  /**
   * Like `as`, for a client whose calls need different scopes (the tenant settings): when the
   * delegation lacks one of `scopes`, the token carries those it has, so only the calls that need
   * the missing one are refused (403), not all of them.
   */
  asGranted: (subject: string, scopes: readonly string[]) => TTokenProvider;
  /** Asks the token endpoint for a fresh token, uncached; rejects with SourceAuthError when refused. */
  probe: (subject: string, scopes: readonly string[]) => Promise<void>;
};

/**
 * Tokens of the OAuth 2.0 JWT bearer grant (RFC 7523), impersonating a subject through domain-wide
 * delegation. Each API gets a token with only its own scope: Google refuses the whole grant
 * (`unauthorized_client`) when one requested scope is not delegated, so one missing scope must cost
 * one feature, not all of them.
 */
export function googleTokens(
  credentials: TGoogleCredentials,
  opts: { tokenUrl?: string; http?: THttpOptions } = {},
): TGoogleTokens {
  if ("accessToken" in credentials) {
    const fixed = staticTokenProvider(credentials.accessToken);
    return {
      delegated: false,
      adminSubject: null,
      as: () => fixed,
      asGranted: () => fixed,
      probe: async () => undefined,
    };
  }
  const tokenUrl = opts.tokenUrl ?? GOOGLE_TOKEN_URL;
  const issue = (subject: string, scopes: readonly string[]) =>
    requestToken(
      "Google Workspace",
      tokenUrl,
      {
        grant_type: JWT_BEARER_GRANT,
        assertion: signServiceAccountJwt(credentials, { audience: tokenUrl, scopes, subject }),
      },
      opts.http,
    );
  const cache = new Map<string, TTokenProvider>();
  const cached = (key: string, fetchToken: () => Promise<TIssuedToken>) => {
    let provider = cache.get(key);
    if (!provider) {
      provider = createCachedTokenProvider(fetchToken);
      cache.set(key, provider);
    }
    return provider;
  };
  const keyOf = (subject: string, scopes: readonly string[]) =>
    `${subject.toLowerCase()} ${[...scopes].sort().join(" ")}`;
  /** All of `scopes`, or when refused, those the delegation grants (each asked for alone). */
  const issueGranted = async (subject: string, scopes: readonly string[]) => {
    try {
      return await issue(subject, scopes);
    } catch (error) {
      if (!(error instanceof SourceAuthError) || scopes.length < 2) throw error;
      const granted: string[] = [];
      for (const scope of scopes) {
        const ok = await issue(subject, [scope]).then(
          () => true,
          (refused: unknown) => {
            if (refused instanceof SourceAuthError) return false;
            throw refused;
          },
        );
        if (ok) granted.push(scope);
      }
      if (granted.length === 0) throw error;
      return issue(subject, granted);
    }
  };
  return {
    delegated: true,
    adminSubject: credentials.subject,
    as: (subject, scopes) => cached(keyOf(subject, scopes), () => issue(subject, scopes)),
    asGranted: (subject, scopes) =>
      cached(`granted ${keyOf(subject, scopes)}`, () => issueGranted(subject, scopes)),
    probe: async (subject, scopes) => void (await issue(subject, scopes)),
  };
}
