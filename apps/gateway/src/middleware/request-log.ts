import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";

/**
 * One structured line per request at info level: method, path (never the query string, which may
 * carry tokens), status, duration, organization. Nothing is attached when info is disabled.
 */
export function requestLog(log: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!log.isLevelEnabled("info")) return next();
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      log.info(
        {
          requestId: req.requestId,
          method: req.method,
          path: req.originalUrl.split("?")[0],
          status: res.statusCode,
          ms: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
          orgId: req.principal?.org.id,
        },
        "request",
      );
    });
    next();
  };
}
