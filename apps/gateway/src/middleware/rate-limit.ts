import type { NextFunction, Request, Response } from "express";
import { rateLimitedError, rateLimitHeaders, type RateLimits } from "@posture/platform";
import { sendError } from "./errors";

/**
 * Per-IP limits from the spec: 60/min for signed-in or API-key requests, 20/min anonymous.
 * The client IP is Express's req.ip, which honours X-Forwarded-For only from TRUST_PROXY.
 * GET /api/health is never counted.
 */
export function ipRateLimit(limits: RateLimits) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (req.method === "GET" && req.path === "/health") return next();
    const decision = await limits.consume(req.principal ? "authenticated" : "anonymous", req.ip ?? "unknown");
    for (const [k, v] of Object.entries(rateLimitHeaders(decision))) res.setHeader(k, v);
    if (!decision.allowed) return sendError(res, rateLimitedError(decision));
    next();
  };
}
