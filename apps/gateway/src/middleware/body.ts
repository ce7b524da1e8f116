import express, { type NextFunction, type Request, type Response } from "express";

export const BODY_LIMIT_BYTES = 100_000;

export const jsonBody = express.json({
  limit: BODY_LIMIT_BYTES,
  type: ["application/json", "application/*+json"],
});

/**
 * Endpoints like POST /api/connectors/{id}/sync take no body, and clients send none and no
 * Content-Type: treat that as an empty JSON object rather than an unsupported media type.
 */
export function emptyBodyAsJson(req: Request, _res: Response, next: NextFunction): void {
  const hasBody =
    req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
  // tRPC reads a missing body as no input (auth.signOut's is void), where `{}` would be one; its
  // clients send `Content-Type: application/json` with no body, which the JSON parser made `{}`.
  if (req.baseUrl === "/trpc" && req.method === "POST" && !hasBody) {
    req.headers["content-type"] = "application/json";
    req.body = undefined;
    return next();
  }
  if (req.method !== "GET" && req.method !== "HEAD" && !hasBody && !req.is("application/json")) {
    req.headers["content-type"] = "application/json";
    req.body = {};
  }
  next();
}
