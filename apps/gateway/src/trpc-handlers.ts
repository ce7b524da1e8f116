import type { Request, Response } from "express";
import { createExpressMiddleware } from "@trpc/server/adapters/express";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import {
  forbidCoercion,
  ResponseControl,
  routeCatalog,
  toWireError,
  type TContext,
  type TLogger,
  type TWireError,
  withClient,
} from "@posture/platform";
import type { TGatewayDeps } from "./deps";
import { logFault } from "./middleware/errors";
import { MAX_TRPC_BATCH } from "./middleware/access";
import {
  compileGetRoutes,
  compileRouteInputs,
  dispatchGet,
  literalPathOfOtherMethods,
} from "./rest-dispatch";
import type { AppRouter } from "./router";

/**
 * Stamps the request id on every line without building a pino child logger per request: one
 * small object whose methods live on the prototype.
 */
class RequestLogger implements TLogger {
  constructor(
    private readonly log: TLogger,
    private readonly requestId: string,
  ) {}
  info(obj: object, msg?: string) {
    this.log.info({ requestId: this.requestId, ...obj }, msg);
  }
  warn(obj: object, msg?: string) {
    this.log.warn({ requestId: this.requestId, ...obj }, msg);
  }
  error(obj: object, msg?: string) {
    this.log.error({ requestId: this.requestId, ...obj }, msg);
  }
  debug(obj: object, msg?: string) {
    this.log.debug({ requestId: this.requestId, ...obj }, msg);
  }
}

export function contextFactory(deps: TGatewayDeps) {
  return ({ req: raw, res: rawRes }: { req: unknown; res?: unknown }): TContext => {
    const req = raw as Request;
    const response = new ResponseControl(deps.secureCookies);
    // 'close' follows 'finish', and also comes when the client goes away first.
    const res = (rawRes ?? (req as Request).res) as Response | undefined;
    if (res) res.once("close", () => response.runAfterResponse());
    return {
      db: deps.requestDb,
      // Downloads and `longReads` procedures: the procedure factory swaps it in (trpc.ts).
      reportDb: deps.db.db,
      // The principal is cached per credential; the client a request declares is its own.
      principal: req.principal ? withClient(req.principal, req.get("x-service-client")) : null,
      credentialFailure: req.credentialFailure ?? null,
      // Computed once by the access middleware (Express recomputes req.ip on every read).
      ip: req.clientIp ?? req.socket.remoteAddress ?? "unknown",
      requestProblem: req.requestProblem ?? null,
      requestId: req.requestId,
      userAgent: req.get("user-agent"),
      idempotencyKey: req.get("idempotency-key") ?? null,
      response,
      limits: deps.limits,
      jobs: deps.jobs,
      runtime: deps.runtime,
      log: new RequestLogger(deps.log, req.requestId),
      probes: deps.probes,
      publishCredentialChanges: (orgId) =>
        deps.access.afterMutation(orgId, orgId === req.principal?.org.id ? req.credentialEpoch : null),
      ...(deps.dataWrites ? { dataWrites: deps.dataWrites } : {}),
    };
  };
}

type TMetaArgs = { ctx?: TContext; errors: readonly unknown[]; type?: string };

// Status and headers of a response: the error table for failures, the procedure's own choice
// (201, 202, 503, cookies) for successes.
function responseMeta({ ctx, errors, type }: TMetaArgs) {
  const first = errors[0];
  if (first !== undefined) {
    const wire = toWireError(first);
    // tRPC serves queries on GET and mutations on POST: say which, as a 405 must.
    if (wire.status === 405 && (type === "query" || type === "mutation")) {
      return { status: wire.status, headers: { ...wire.headers, Allow: type === "query" ? "GET" : "POST" } };
    }
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
    logFault(deps.log, wire, error, { requestId: req.requestId, path });
  };
}

/** The public REST API: every path generated from the routers' OpenAPI meta, written once. */
export function restHandler(deps: TGatewayDeps, router: AppRouter) {
  // trpc-to-openapi turns on coercion of every number and boolean of an input on each request
  // (bodies included, and /trpc after it, since the schemas are shared): it must not.
  for (const entry of routeCatalog(router).entries) for (const input of entry.inputs) forbidCoercion(input);
  const routeInputs = compileRouteInputs(router);
  const handler = createOpenApiNodeHttpHandler({
    router,
    createContext: contextFactory(deps),
    responseMeta: responseMeta as never,
    onError: onErrorFactory(deps) as never,
    maxBodySize: 100_000,
  });
  const getRoutes = compileGetRoutes(router);
  const otherMethodsPath = literalPathOfOtherMethods(router);
  const dispatch = {
    createContext: contextFactory(deps),
    responseMeta: responseMeta as never,
    log: deps.log,
  };
  return async (req: Request, res: Response, next: () => void): Promise<void> => {
    if (otherMethodsPath(req.method, req.path)) return next(); // 405 (method-not-allowed.ts)
    // The read endpoints integrators poll take the precompiled path (rest-dispatch.ts).
    if (req.method === "GET" && getRoutes) {
      const q = req.url.indexOf("?");
      const hit = getRoutes.match(q < 0 ? req.url : req.url.slice(0, q));
      if (hit) return dispatchGet(dispatch, req, res, hit);
    }
    const route = routeInputs(req.method, req.url);
    // Only the fields the operation takes (the strict input schemas check every depth below);
    // the procedure throws what is found after its access checks.
    if (route) req.requestProblem = route.fields(req.query as Record<string, unknown>, req.body);
    if (route && !route.body) {
      // The library reads req.query and drops falsy values: a converted 0 or false travels as a
      // one-element array, which it unwraps.
      const query = route.parse(req.query as Record<string, unknown>);
      for (const [k, v] of Object.entries(query))
        if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") query[k] = [v];
      Object.defineProperty(req, "query", {
        value: query,
        configurable: true,
        enumerable: true,
        writable: true,
      });
    }
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
    // Also checked (with the contract's error body) before the limiter counts each call.
    maxBatchSize: MAX_TRPC_BATCH,
    createContext: contextFactory(deps),
    responseMeta: responseMeta as never,
    onError: onErrorFactory(deps) as never,
    maxBodySize: 100_000,
  });
}
