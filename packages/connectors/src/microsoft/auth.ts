import { type THttpOptions, type TTokenProvider } from "../http/client";
import { createCachedTokenProvider, requestToken } from "../http/token";

export const MICROSOFT_LOGIN_URL = "https://login.microsoftonline.com";
export const GRAPH_DEFAULT_SCOPE = "https://graph.microsoft.com/.default";

export type TMicrosoftCredentials = { tenantId: string; clientId: string; clientSecret: string };

/** App-only token (for Graph, or `scope`'s resource, e.g. the Office 365 Management APIs) from the Microsoft identity platform's client credentials grant, cached until expiry. */
export function microsoftTokenProvider(
  credentials: TMicrosoftCredentials,
  opts: { loginBaseUrl?: string; http?: THttpOptions; scope?: string } = {},
): TTokenProvider {
  const base = (opts.loginBaseUrl ?? MICROSOFT_LOGIN_URL).replace(/\/$/, "");
  const tokenUrl = `${base}/${encodeURIComponent(credentials.tenantId)}/oauth2/v2.0/token`;
  return createCachedTokenProvider(() =>
    requestToken(
      "Microsoft 365",
      tokenUrl,
      {
        grant_type: "client_credentials",
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
        scope: opts.scope ?? GRAPH_DEFAULT_SCOPE,
      },
      opts.http,
    ),
  );
}
