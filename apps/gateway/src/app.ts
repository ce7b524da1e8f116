import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { TGatewayDeps } from "./deps";
import { emptyBodyAsJson, jsonBody } from "./middleware/body";
import { csrfGuard } from "./middleware/csrf";
import { errorHandler, notFoundHandler } from "./middleware/errors";
import { idempotency } from "./middleware/idempotency";
import { ipRateLimit } from "./middleware/rate-limit";
import { requestId, resolveCredentials } from "./middleware/request-context";
import { requestLog } from "./middleware/request-log";
import { securityHeaders } from "./middleware/security-headers";
import { openApiRoutes } from "./openapi";
import { appRouter } from "./router";
import { restHandler, trpcHandler } from "./trpc-handlers";

type THandler = (req: Request, res: Response, next: NextFunction) => unknown;

/** Express 5 forwards rejected promises to the error handler; this keeps the types honest. */
const wrap = (h: THandler) => (req: Request, res: Response, next: NextFunction) => h(req, res, next);

export function createApp(deps: TGatewayDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", deps.trustProxy);
  app.set("etag", false);

  app.use(requestId);
  app.use(requestLog(deps.log));
  app.use(securityHeaders);

  const rest = restHandler(deps, appRouter);
  app.use(["/api", "/trpc"], jsonBody, emptyBodyAsJson, wrap(resolveCredentials(deps.db.db)));
  app.use(["/api", "/trpc"], csrfGuard(deps.allowedOrigins));
  app.use(["/api", "/trpc"], wrap(ipRateLimit(deps.limits)));
  // After the limiter (a replay still counts against it), before anything that does work.
  app.use("/api", wrap(idempotency(deps.db.db, deps.log)));

  app.use("/api", openApiRoutes(deps));
  app.use("/api", wrap(rest));
  app.use("/trpc", trpcHandler(deps, appRouter));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.log));
  return app;
}
