import { createVerify, randomBytes } from "node:crypto";
import { header } from "@posture/platform/testing";
import { type TFakeRequest } from "./fake-server";
import { type TGithubPermissions } from "./fake-github-schema";

// What GitHub checks of a GitHub App's credentials: the app's JWT (RS256, signed with the key of
// the app named by `iss`, issued in the past, expiring at most 10 minutes ahead) on the /app
// endpoints, and installation tokens (an hour long, as POST .../access_tokens says) on the rest.

/** The claims of a JWT the fake accepted. */
export type TAcceptedJwt = { iss: string; iat: number; exp: number };

const MAX_JWT_LIFETIME_SEC = 600;

export function bearer(req: TFakeRequest): string | null {
  const value = header(req, "authorization");
  const match = value ? /^(?:Bearer|token) (.+)$/i.exec(value) : null;
  return match?.[1] ?? null;
}

const decode = (part: string): Record<string, unknown> | null => {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(part, "base64url").toString());
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/** The JWT's claims when GitHub would accept it for an app in `apps`, else GitHub's 401 message. */
export function checkAppJwt(
  token: string,
  apps: ReadonlyArray<{ appId: number; publicKey: string }>,
  nowSec: number,
): TAcceptedJwt | { refused: string } {
  const [head, body, signature, ...rest] = token.split(".");
  const undecodable = { refused: "A JSON web token could not be decoded" };
  if (!head || !body || !signature || rest.length > 0) return undecodable;
  const header = decode(head);
  const claims = decode(body);
  if (!header || !claims || header.alg !== "RS256") return undecodable;
  const app = apps.find((a) => String(a.appId) === String(claims.iss));
  if (!app) return { refused: "'Issuer' claim ('iss') must be an Integer" };
  const verified = createVerify("RSA-SHA256")
    .update(`${head}.${body}`)
    .verify(app.publicKey, Buffer.from(signature, "base64url"));
  if (!verified) return undecodable;
  const { iat, exp } = claims;
  if (typeof iat !== "number" || !Number.isInteger(iat) || iat > nowSec)
    return {
      refused:
        "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
    };
  if (typeof exp !== "number" || !Number.isInteger(exp) || exp <= nowSec)
    return {
      refused:
        "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
    };
  if (exp > nowSec + MAX_JWT_LIFETIME_SEC)
    return { refused: "'Expiration time' claim ('exp') is too far in the future" };
  return { iss: String(claims.iss), iat, exp };
}

export type TIssuedInstallationToken = {
  token: string;
  installationId: number;
  permissions: TGithubPermissions;
  /** Epoch ms. */
  expiresAt: number;
};

export type TInstallationTokens = {
  issued: TIssuedInstallationToken[];
  issue: (installationId: number, permissions: TGithubPermissions, nowMs: number) => TIssuedInstallationToken;
  /** The live token the request carries, or null (unknown, expired, revoked). */
  find: (req: TFakeRequest, nowMs: number) => TIssuedInstallationToken | null;
  /** Ends every token now, as an hour passing would. */
  expireAll: () => void;
};

export function createInstallationTokens(ttlSec: number): TInstallationTokens {
  const issued: TIssuedInstallationToken[] = [];
  const live = new Map<string, TIssuedInstallationToken>();
  return {
    issued,
    issue: (installationId, permissions, nowMs) => {
      const entry = {
        token: `ghs_${randomBytes(18).toString("hex")}`,
        installationId,
        permissions,
        expiresAt: Math.floor(nowMs / 1000) * 1000 + ttlSec * 1000,
      };
      issued.push(entry);
      live.set(entry.token, entry);
      return entry;
    },
    find: (req, nowMs) => {
      const token = bearer(req);
      const entry = token ? live.get(token) : undefined;
      return entry && entry.expiresAt > nowMs ? entry : null;
    },
    expireAll: () => live.clear(),
  };
}

const LEVEL = { read: 1, write: 2, admin: 3 } as const;

/** Whether `held` grants `needed` (write covers read, admin covers both). */
export function grants(held: TGithubPermissions, needed: TGithubPermissions): boolean {
  return Object.entries(needed).every(([name, level]) => {
    const have = held[name];
    return have !== undefined && LEVEL[have] >= LEVEL[level];
  });
}
