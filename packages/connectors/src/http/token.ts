import { SourceAuthError } from "../types";
import { readJson, sendWithRetry, type THttpOptions, type TTokenProvider } from "./client";
import { apiErrorMessage, SourceHttpError } from "./errors";

export type TIssuedToken = { accessToken: string; expiresInSec: number };

// Refresh a minute early so a token never expires between being read and being sent.
const EXPIRY_MARGIN_MS = 60_000;

/** Caches one access token until shortly before it expires; concurrent callers share one fetch. */
export function createCachedTokenProvider(
  issue: () => Promise<TIssuedToken>,
  now: () => number = Date.now,
): TTokenProvider {
  let cached: { token: string; expiresAt: number } | null = null;
  let inflight: Promise<string> | null = null;
  return {
    getToken: async () => {
      if (cached && cached.expiresAt > now()) return cached.token;
      inflight ??= issue()
        .then((issued) => {
          cached = {
            token: issued.accessToken,
            expiresAt: now() + issued.expiresInSec * 1000 - EXPIRY_MARGIN_MS,
          };
          return issued.accessToken;
        })
        .finally(() => {
          inflight = null;
        });
      return inflight;
    },
    invalidate: () => {
      cached = null;
    },
  };
}

export function staticTokenProvider(token: string): TTokenProvider {
  return { getToken: async () => token, invalidate: () => undefined };
}

/**
 * POSTs an OAuth 2.0 token request (RFC 6749 §4.4 / RFC 7523) as a form. A 400/401 from a token
 * endpoint (invalid_client, invalid_grant, unauthorized_client) means the credentials are refused.
 */
export async function requestToken(
  source: string,
  tokenUrl: string,
  form: Record<string, string>,
  http?: THttpOptions,
): Promise<TIssuedToken> {
  const response = await sendWithRetry(
    source,
    () => ({
      url: tokenUrl,
      init: {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams(form).toString(),
      },
    }),
    http,
  );
  if (response.status === 400 || response.status === 401) {
    const body: unknown = await response.json().catch(() => null);
    throw new SourceAuthError(
      `${source} token request refused: ${apiErrorMessage(body, response.statusText)}`,
    );
  }
  const body = await readJson<{ access_token?: unknown; expires_in?: unknown }>(source, response);
  if (typeof body.access_token !== "string" || body.access_token === "") {
    throw new SourceHttpError(`${source} token endpoint returned no access_token`, response.status);
  }
  const expiresIn = Number(body.expires_in);
  return {
    accessToken: body.access_token,
    expiresInSec: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 3600,
  };
}
