import type { NextFunction, Request, Response } from "express";
import {
  API_KEY_PATTERN,
  AppError,
  clientBucket,
  rateLimitedError,
  rateLimitHeaders,
  SESSION_COOKIE,
  type AccessGate,
  type TPresented,
} from "@posture/platform";
import { sendError } from "./errors";
import { readCookie } from "./request-context";

/** tRPC batching: at most this many calls per HTTP request, each counted against the limit. */
export const MAX_TRPC_BATCH = 10;

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const BATCH_QUERY = /[?&]batch=1(?:&|$)/;

/** The credential a request presents, parsed without I/O. */
function presented(req: Request): TPresented {
  const auth = req.headers.authorization;
  if (auth !== undefined) {
    req.credentialSource = "api_key";
    const token = BEARER.exec(auth)?.[1];
    return token && API_KEY_PATTERN.test(token) ? { kind: "api_key", token } : { kind: "malformed" };
  }
  if (!req.headers.cookie) return null;
  let token: string | undefined;
  try {
    token = readCookie(req, SESSION_COOKIE);
  } catch {
    // A cookie that is not valid percent-encoding is a malformed credential, not a fault.
    req.credentialSource = "cookie";
    return { kind: "malformed" };
  }
  if (!token) return null;
  req.credentialSource = "cookie";
  return token.length >= 20 && token.length <= 200 ? { kind: "session", token } : { kind: "malformed" };
}

/** How many procedure calls the request carries: a tRPC batch names them comma-separated. */
export function callCount(req: Request): number {
  if (req.baseUrl !== "/trpc") return 1;
  const q = req.url.indexOf("?");
  if (q < 0 || !BATCH_QUERY.test(req.url.slice(q))) return 1;
  return req.path.split(",").length;
}

const isExempt = (req: Request) =>
  req.baseUrl === "/api" &&
  req.method === "GET" &&
  (req.path === "/health" || req.path.startsWith("/health/"));

/**
 * Rate limit and credentials in one step, cheapest first (see AccessGate): the per-client
 * budget is checked before any database work, an authenticated request with a cached
 * credential costs one Redis round trip and no PostgreSQL. Per client means per IPv4 address
 * or IPv6 /64. It never rejects for a bad credential by itself: the procedure decides, so
 * public endpoints keep working with a stale cookie. GET /api/health is never limited.
 */
export function access(gate: AccessGate) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    req.principal = null;
    req.credentialFailure = null;
    req.credentialSource = null;
    req.credentialEpoch = null;
    if (isExempt(req)) {
      req.clientIp = req.ip;
      return next();
    }
    const calls = callCount(req);
    if (calls > MAX_TRPC_BATCH) {
      return sendError(
        res,
        new AppError("invalid_input", `A tRPC batch may hold at most ${MAX_TRPC_BATCH} calls`, {
          details: [{ path: "batch", message: `${calls} calls; the limit is ${MAX_TRPC_BATCH}` }],
        }),
      );
    }
    req.clientIp = req.ip;
    const result = await gate.check(presented(req), clientBucket(req.clientIp), calls);
    const headers = rateLimitHeaders(result.decision);
    res.setHeader("RateLimit-Policy", headers["RateLimit-Policy"] ?? "");
    res.setHeader("RateLimit", headers.RateLimit ?? "");
    if (!result.decision.allowed) return sendError(res, rateLimitedError(result.decision));
    req.principal = result.principal;
    req.credentialFailure = result.failure;
    req.credentialEpoch = result.epoch;
    next();
  };
}
