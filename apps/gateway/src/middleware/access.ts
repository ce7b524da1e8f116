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

/**
 * How many procedure calls the request carries, read exactly as the tRPC handler reads them:
 * the query through URLSearchParams (so `?batch=%31` and `?%62atch=1` are a batch), and the
 * procedure paths from the last path segment, percent-decoded, then split on commas (so an
 * encoded comma separates calls too). A path that does not decode is one call: tRPC refuses it.
 */
export function callCount(req: Request): number {
  if (req.baseUrl !== "/trpc") return 1;
  const q = req.url.indexOf("?");
  if (q < 0 || new URLSearchParams(req.url.slice(q + 1)).get("batch") !== "1") return 1;
  const segment = req.path.slice(req.path.lastIndexOf("/") + 1);
  try {
    return decodeURIComponent(segment).split(",").length;
  } catch {
    return 1;
  }
}

const isExempt = (req: Request) =>
  req.baseUrl === "/api" &&
  req.method === "GET" &&
  (req.path === "/health" || req.path.startsWith("/health/"));

/** The API reference: the page, its scripts and the OpenAPI document (see docs-page.ts). */
export const isDocsRequest = (req: Request) =>
  req.baseUrl === "/api" &&
  (req.method === "GET" || req.method === "HEAD") &&
  (req.path === "/docs" || req.path.startsWith("/docs/assets/") || req.path === "/openapi.json");

/**
 * Rate limit and credentials in one step, cheapest first (see AccessGate): the per-client
 * budget is checked before any database work, an authenticated request with a cached
 * credential costs one Redis round trip and no PostgreSQL. Per client means per IPv4 address
 * or IPv6 /64. It never rejects for a bad credential by itself: the procedure decides, so
 * public endpoints keep working with a stale cookie. GET /api/health is never limited; the API
 * reference is counted in a generous budget of its own, not the API's.
 */
export function access(gate: AccessGate) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    req.principal = null;
    req.credentialFailure = null;
    req.credentialSource = null;
    req.credentialEpoch = null;
    req.dataEpoch = null;
    req.rateDecision = undefined;
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
    // The reference is static and public: its own budget, no credential (nothing there uses one).
    // A conditional GET is checked against the budget now and counted only if it is not answered
    // 304 (conditional.ts, read-cache.ts): one Redis round trip either way.
    const conditional = calls === 1 && req.method === "GET" && req.headers["if-none-match"] !== undefined;
    const result = isDocsRequest(req)
      ? await gate.checkStatic(clientBucket(req.clientIp))
      : await gate.check(presented(req), clientBucket(req.clientIp), calls, conditional);
    const headers = rateLimitHeaders(result.decision);
    res.setHeader("RateLimit-Policy", headers["RateLimit-Policy"] ?? "");
    res.setHeader("RateLimit", headers.RateLimit ?? "");
    if (!result.decision.allowed) return sendError(res, rateLimitedError(result.decision));
    req.principal = result.principal;
    req.credentialFailure = result.failure;
    req.credentialEpoch = result.epoch;
    req.dataEpoch = result.dataEpoch;
    req.rateDecision = result.decision;
    if (result.decision.charge?.deferred) {
      res.once("finish", () => {
        if (req.rateDecision) req.rateDecision = gate.limits.settle(req.rateDecision);
      });
    }
    next();
  };
}
