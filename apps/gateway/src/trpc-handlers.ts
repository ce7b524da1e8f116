import type { Request, Response } from "express";
import { createExpressMiddleware } from "@trpc/server/adapters/express";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import {
  isServerFault,
  ResponseControl,
  toWireError,
  type TContext,
  type TLogger,
  type TWireError,
} from "@posture/platform";
import type { TGatewayDeps } from "./deps";
import type { AppRouter } from "./router";

/** Stamps the request id on every line without building a pino child logger per request. */
function withRequestId(log: TLogger, requestId: string): TLogger {
  return {
    info: (obj, msg) => log.info({ requestId, ...obj }, msg),
    warn: (obj, msg) => log.warn({ requestId, ...obj }, msg),
    error: (obj, msg) => log.error({ requestId, ...obj }, msg),
    debug: (obj, msg) => log.debug({ requestId, ...obj }, msg),
  };
}

export function contextFactory(deps: TGatewayDeps) {
  return ({ req: raw }: { req: unknown }): TContext => {
    const req = raw as Request;
    return {
      db: deps.db.db,
      principal: req.principal ?? null,
      credentialFailure: req.credentialFailure ?? null,
      ip: req.ip ?? req.socket.remoteAddress ?? "unknown",
      requestId: req.requestId,
      userAgent: req.get("user-agent"),
      response: new ResponseControl(deps.secureCookies),
      limits: deps.limits,
      jobs: deps.jobs,
      runtime: deps.runtime,
      log: withRequestId(deps.log, req.requestId),
      probes: deps.probes,
    };
  };
}

type TMetaArgs = { ctx?: TContext; errors: readonly unknown[] };

// Status and headers of a response: the error table for failures, the procedure's own choice
// (201, 202, 503, cookies) for successes.
function responseMeta({ ctx, errors }: TMetaArgs) {
  const first = errors[0];
  if (first !== undefined) {
    const wire = toWireError(first);
    return { status: wire.status, headers: wire.headers };
  }
  const headers: Record<string, string | string[]> = { ...ctx?.response.headers };
  if (ctx && ctx.response.cookies.length > 0) headers["Set-Cookie"] = ctx.response.cookies;
  return { status: ctx?.response.status ?? 200, headers };
}

function onErrorFactory(deps: TGatewayDeps) {
  return ({ error, req, path }: { error: unknown; req: Request; path?: string | undefined }) => {
    const wire = toWireError(error);
    (req as Request & { wireError?: TWireError }).wireError = wire;
    if (isServerFault(wire))
      deps.log.error({ err: error, path, requestId: req.requestId }, "procedure failed");
  };
}

/** The public REST API: every path generated from the routers' OpenAPI meta, written once. */
export function restHandler(deps: TGatewayDeps, router: AppRouter) {
  const handler = createOpenApiNodeHttpHandler({
    router,
    createContext: contextFactory(deps),
    responseMeta: responseMeta as never,
    onError: onErrorFactory(deps) as never,
    maxBodySize: 100_000,
  });
  return async (req: Request, res: Response, next: () => void): Promise<void> => {
    // trpc-to-openapi writes its own error envelope; the contract's body replaces it, built
    // from the original error object in onError rather than by re-parsing JSON.
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      const wire = (req as Request & { wireError?: TWireError }).wireError;
      if (wire && res.statusCode >= 400 && !res.headersSent) {
        const body = JSON.stringify(wire.body);
        res.setHeader("Content-Length", Buffer.byteLength(body));
        return end(body);
      }
      return end(...args);
    }) as Response["end"];
    await handler(req, res, next);
  };
}

/** tRPC itself, for internal UI teams who use the AppRouter type end to end. */
export function trpcHandler(deps: TGatewayDeps, router: AppRouter) {
  return createExpressMiddleware({
    router,
    createContext: contextFactory(deps),
    responseMeta: responseMeta as never,
    onError: onErrorFactory(deps) as never,
    maxBodySize: 100_000,
  });
}
