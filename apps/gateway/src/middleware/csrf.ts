import type { NextFunction, Request, Response } from "express";
import { AppError } from "@posture/platform";
import { sendError } from "./errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A cookie-authenticated write (or a sign-in, against login CSRF) whose Origin — or, without
 * Origin, Sec-Fetch-Site — shows another site is refused. Requests with neither header are not
 * from a browser and pass; API-key requests carry no ambient credential and pass.
 */
export function csrfGuard(allowedOrigins: readonly string[]) {
  const allowed = new Set(allowedOrigins);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (SAFE_METHODS.has(req.method)) return next();
    if (req.credentialSource !== "cookie" && !req.path.startsWith("/auth/")) return next();
    const origin = req.get("origin");
    let crossSite: boolean;
    if (origin !== undefined) {
      crossSite = origin !== `${req.protocol}://${req.get("host") ?? ""}` && !allowed.has(origin);
    } else {
      const site = req.get("sec-fetch-site");
      crossSite = site !== undefined && site !== "same-origin" && site !== "none";
    }
    if (crossSite) {
      return sendError(res, new AppError("csrf_rejected", "Cross-site request refused"));
    }
    next();
  };
}
