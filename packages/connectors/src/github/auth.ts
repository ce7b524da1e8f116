import { createSign } from "node:crypto";
import { type TTokenProvider } from "../http/client";
import { SourceAuthError } from "../types";
import { GITHUB_API_URL, GithubApiError, readGithub, sendGithub, type TGithubHttpOptions } from "./http";

// A GitHub App installation's credentials (GitHub Docs, "Authenticating as a GitHub App
// installation"): the app signs a JWT with its private key (RS256; `iat` 60 s in the past against
// clock drift, `exp` at most 10 minutes after it, `iss` the app id), trades it at
// POST /app/installations/{installation_id}/access_tokens for an installation token, and uses
// that token, which lasts an hour, for every other call. The token is cached and replaced
// before its `expires_at`; a 401 on the way drops it for a fresh one (`invalidate`).

export type TGithubAppCredentials = {
  appId: number | string;
  /** The app's private key as GitHub hands it out (PEM, PKCS#1 or PKCS#8). */
  privateKey: string;
  installationId: number | string;
};

/** The permissions an installation token carries, e.g. `{members: "read"}`. */
export type TGithubTokenPermissions = Record<string, string>;

const JWT_BACKDATE_SEC = 60;
/** GitHub refuses an `exp` more than 10 minutes ahead; 9 leaves room for our clock running behind. */
const JWT_AHEAD_SEC = 9 * 60;
/** Replace a token this long before `expires_at`, so none expires between being read and used. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;

const base64url = (input: string | Buffer) => Buffer.from(input).toString("base64url");

/** The app's JWT at `nowMs`: iat = now − 60 s, exp = now + 9 min (10 min after iat). */
export function signAppJwt(
  creds: Pick<TGithubAppCredentials, "appId" | "privateKey">,
  nowMs: number,
): string {
  const now = Math.floor(nowMs / 1000);
  const head = base64url(JSON.stringify({ alg: "RS256", typ: "JWT" }));
  const claims = base64url(
    JSON.stringify({ iat: now - JWT_BACKDATE_SEC, exp: now + JWT_AHEAD_SEC, iss: String(creds.appId) }),
  );
  const signature = createSign("RSA-SHA256").update(`${head}.${claims}`).sign(creds.privateKey);
  return `${head}.${claims}.${base64url(signature)}`;
}

export type TGithubInstallationToken = {
  token: string;
  expiresAt: number;
  /** When to stop using it: the margin before `expiresAt`, or half its life if that is shorter. */
  refreshAt: number;
  permissions: TGithubTokenPermissions;
};

export type TGithubAppTokens = TTokenProvider & {
  /** The permissions of the current token (minting one if none is cached). */
  permissions: () => Promise<TGithubTokenPermissions>;
};

type TAccessTokenBody = { token?: unknown; expires_at?: unknown; permissions?: unknown };

export function githubAppTokens(
  creds: TGithubAppCredentials,
  opts: { baseUrl?: string; http?: TGithubHttpOptions } = {},
): TGithubAppTokens {
  const now = opts.http?.now ?? Date.now;
  const url = `${(opts.baseUrl ?? GITHUB_API_URL).replace(/\/$/, "")}/app/installations/${encodeURIComponent(String(creds.installationId))}/access_tokens`;
  // Each attempt signs a fresh JWT: one that waited out a rate limit may be past its `exp`.
  const jwt: TTokenProvider = { getToken: async () => signAppJwt(creds, now()), invalidate: () => undefined };
  let cached: TGithubInstallationToken | null = null;
  let inflight: Promise<TGithubInstallationToken> | null = null;

  const exchange = async (): Promise<TGithubInstallationToken> => {
    const response = await sendGithub({ method: "POST", url }, jwt, opts.http);
    let body: TAccessTokenBody;
    try {
      body = await readGithub<TAccessTokenBody>(response);
    } catch (error) {
      // 401: the key or app id is wrong; 403: the installation is suspended; 404: it is gone.
      if (error instanceof GithubApiError && [403, 404, 422].includes(error.status))
        throw new SourceAuthError(
          `GitHub App installation ${String(creds.installationId)}: ${error.message}`,
        );
      throw error;
    }
    const expiresAt = typeof body.expires_at === "string" ? Date.parse(body.expires_at) : Number.NaN;
    if (typeof body.token !== "string" || body.token === "" || Number.isNaN(expiresAt))
      throw new SourceAuthError(
        "GitHub answered the installation token request without a token or its expiry",
      );
    const permissions =
      typeof body.permissions === "object" && body.permissions !== null
        ? (body.permissions as TGithubTokenPermissions)
        : {};
    const mintedAt = now();
    const margin = Math.min(TOKEN_REFRESH_MARGIN_MS, Math.max(0, expiresAt - mintedAt) / 2);
    return { token: body.token, expiresAt, refreshAt: expiresAt - margin, permissions };
  };

  const current = async (): Promise<TGithubInstallationToken> => {
    if (cached && cached.refreshAt > now()) return cached;
    inflight ??= exchange()
      .then((minted) => {
        cached = minted;
        return minted;
      })
      .finally(() => {
        inflight = null;
      });
    return inflight;
  };

  return {
    getToken: async () => (await current()).token,
    permissions: async () => (await current()).permissions,
    invalidate: () => {
      cached = null;
    },
  };
}
