import compression from "compression";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { TGatewayDeps } from "./deps";
import { emptyBodyAsJson, jsonBody } from "./middleware/body";
import { csrfGuard } from "./middleware/csrf";
import { errorHandler, notFoundHandler } from "./middleware/errors";
import { httpMetrics } from "./middleware/http-metrics";
import { idempotency } from "./middleware/idempotency";
import { access } from "./middleware/access";
import { conditionalGet } from "./middleware/conditional";
import { readCacheLookup } from "./middleware/read-cache";
import { requestId } from "./middleware/request-context";
import { requestLog } from "./middleware/request-log";
import { sanitizeInput } from "./middleware/sanitize";
import { securityHeaders } from "./middleware/security-headers";
import { docsRoutes, openApiCaching } from "./docs-page";
import { methodNotAllowed } from "./middleware/method-not-allowed";
import { mcpHandler } from "./mcp";
import { openApiDocument, openApiRoutes, routeTable } from "./openapi";
import { compileRoutes } from "./routes";
import { downloadRoutes } from "./downloads";
import { appRouter } from "./router";
import { restHandler, trpcHandler } from "./trpc-handlers";
import { ticketEventRoutes } from "./ticket-events";

/** Whether a response may be compressed (see createApp): buffering would hold a stream back. */
function compressible(req: Request, res: Response): boolean {
  if (String(res.getHeader("Content-Type") ?? "").startsWith("text/event-stream")) return false;
  const accept = `${req.get("trpc-accept") ?? ""},${req.get("accept") ?? ""}`;
  if (/(^|,)\s*application\/jsonl\s*(;|,|$)/i.test(accept)) return false;
  return compression.filter(req, res);
}

type THandler = (req: Request, res: Response, next: NextFunction) => unknown;

/** Express 5 forwards rejected promises to the error handler; this keeps the types honest. */
const wrap = (h: THandler) => (req: Request, res: Response, next: NextFunction) => h(req, res, next);

export function createApp(deps: TGatewayDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", deps.trustProxy);
  app.set("etag", false);

  app.use(requestId);
  app.use(httpMetrics(compileRoutes(appRouter)));
  app.use(requestLog(deps.log));
  app.use(securityHeaders);

  const rest = restHandler(deps, appRouter);
  // Limits first, then credentials (cached; the database only for a credential not seen before).
  // What they refuse (429, a batch too large) is a small body: it is not compressed.
  app.use(["/api", "/trpc"], wrap(access(deps.access)));
  // A JSON GET kept at the organization's current data epoch is answered from memory, in the
  // encoding the client takes, compressed once when it was kept (read-cache.ts).
  if (deps.readCache) app.use(["/api", "/trpc"], readCacheLookup(deps.readCache, appRouter, deps.limits));
  // gzip or brotli (quality 4) when the client accepts it, for compressible types (JSON, text,
  // HTML, CSV/NDJSON exports) of 1 kB or more; never for ZIP or PDF (not compressible), bodies
  // already encoded (the reference's precompressed assets), `Cache-Control: no-transform`, and
  // never for streams that must reach the client as each part is written: event streams and
  // tRPC's streamed batches (httpBatchStreamLink asks for application/jsonl).
  app.use(compression({ threshold: 1024, filter: compressible }));
  // Every JSON GET: an ETag over the identity body; If-None-Match → 304, not charged (conditional.ts).
  app.use(["/api", "/trpc"], conditionalGet(deps.limits, deps.readCache));
  // Trackers' signed webhooks: the raw body is what their HMAC covers (ticket-events.ts).
  app.use(ticketEventRoutes(deps));
  // Hostile input (depth, size, NUL, lone surrogates) stops here, before anything does work with it.
  app.use(["/api", "/trpc"], jsonBody, emptyBodyAsJson, sanitizeInput);
  app.use(["/api", "/trpc"], csrfGuard(deps.allowedOrigins));
  // After the limiter (a replay still counts against it), before anything that does work.
  app.use("/api", wrap(idempotency(deps.requestDb, deps.log, deps.runtime.encryptionKey)));

  const document = openApiDocument(deps);
  app.use("/api", openApiCaching(document), openApiRoutes(document), docsRoutes());
  // Procedures that answer with a file (PDF, ZIP): same guards, raw streamed body.
  app.use("/api", downloadRoutes(deps));
  app.use("/api", wrap(rest));
  app.use("/trpc", trpcHandler(deps, appRouter));
  // MCP over Streamable HTTP (apps/mcp, docs/mcp.md), as the Bearer API key: the same limiter,
  // credential cache and input limits as the API; each tool call runs the operation's procedure.
  app.use("/mcp", wrap(access(deps.access)), jsonBody, sanitizeInput, wrap(mcpHandler(deps, document)));
  app.use(
    "/api",
    methodNotAllowed(() => routeTable(document().doc)),
  );

  app.use(notFoundHandler);
  app.use(errorHandler(deps.log));
  return app;
}
