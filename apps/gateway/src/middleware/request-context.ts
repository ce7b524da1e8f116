import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { TCredentialFailure, TPrincipal, TRateDecision } from "@posture/platform";

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
      /** The organization's credential epoch the principal was checked against (access.ts). */
      credentialEpoch: number | null;
      /** req.ip, read once (Express recomputes it through trust proxy on every access). */
      clientIp: string | undefined;
      /** A REST request's fields the operation does not take (rest-input.ts); the procedure throws it. */
      requestProblem?: Error | null;
      /** The limiter's decision for this request (access.ts): what a 304 gives back (conditional.ts). */
      rateDecision?: TRateDecision;
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

/**
 * A cookie's value, percent-decoded when it is valid percent-encoding and kept as sent when it is
 * not (`%E0%A4%A` must not throw: it is simply not a token we issued). Only the first cookie of
 * the name counts, as browsers send the most specific one first.
 */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0 || part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}
