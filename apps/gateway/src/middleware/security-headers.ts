import type { NextFunction, Request, Response } from "express";

const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** Conservative headers for a JSON API; /api/docs sets its own CSP for its inline page. */
export function securityHeaders(req: Request, res: Response, next: NextFunction): void {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
  res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
  res.setHeader("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
  res.setHeader("Content-Security-Policy", API_CSP);
  // Responses are per caller and organization: nothing may be cached by a shared cache. A JSON
  // GET's 200 or 304 replaces this with `private, no-cache` and its ETag (conditional.ts), so the
  // caller's own cache may keep it and revalidate; errors and everything else stay `no-store`.
  // The API reference (docs-page.ts: the page, its scripts, the OpenAPI document) is the same for
  // everyone and replaces it with its own public Cache-Control and ETag.
  if (req.path.startsWith("/api") || req.path.startsWith("/trpc")) res.setHeader("Cache-Control", "no-store");
  next();
}
