import type { NextFunction, Request, Response } from "express";
import { metrics, type TWireError } from "@posture/platform";

/**
 * Request count, latency and error code per route template. The labels are computed once the
 * response has finished, so a request costs a map lookup and three counter updates.
 */
export function httpMetrics(routeOf: (req: Request) => string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.once("finish", () => {
      const route = routeOf(req);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.httpDuration.observe({ method: req.method, route }, seconds);
      if (res.statusCode >= 400) {
        const wire = (req as Request & { wireError?: TWireError }).wireError;
        const code =
          wire?.body.error ?? (res.locals.errorCode as string | undefined) ?? String(res.statusCode);
        metrics.httpErrors.inc({ code });
      }
    });
    next();
  };
}
