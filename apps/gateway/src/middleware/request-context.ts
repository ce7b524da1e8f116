import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import {
  resolveApiKey,
  resolveSession,
  SESSION_COOKIE,
  type TCredentialFailure,
  type TPrincipal,
} from "@posture/platform";
import type { Db } from "@posture/db";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express's own augmentation point
  namespace Express {
    // eslint-disable-next-line @typescript-eslint/consistent-type-definitions -- declaration merging needs an interface
    interface Request {
      requestId: string;
      principal: TPrincipal | null;
      credentialFailure: TCredentialFailure | null;
      /** How the request authenticated, decided once: CSRF applies only to cookie credentials. */
      credentialSource: "api_key" | "cookie" | null;
    }
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get("x-request-id");
  req.requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader("X-Request-Id", req.requestId);
  next();
}

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/**
 * The one place credentials are resolved: a Bearer API key, else the session cookie. It never
 * rejects: the procedure's guard decides whether the endpoint needs a principal, so public
 * endpoints keep working with a stale cookie.
 */
export function resolveCredentials(db: Db) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    req.principal = null;
    req.credentialFailure = null;
    req.credentialSource = null;
    const auth = req.get("authorization");
    if (auth !== undefined) {
      req.credentialSource = "api_key";
      const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
      const result = match?.[1]
        ? await resolveApiKey(db, match[1])
        : ({ ok: false, reason: "malformed" } as const);
      if (result.ok) req.principal = result.principal;
      else req.credentialFailure = result.reason;
      return next();
    }
    const token = readCookie(req, SESSION_COOKIE);
    if (token) {
      req.credentialSource = "cookie";
      const result = await resolveSession(db, token);
      if (result.ok) req.principal = result.principal;
      else req.credentialFailure = result.reason;
    }
    next();
  };
}
