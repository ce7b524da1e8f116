import type { Request, Response } from "express";
import {
  compileQueryParser,
  compileRequestFields,
  normalisePath,
  routeCatalog,
  toWireError,
  type TCatalogProcedure,
  type TContext,
  type TLogger,
  type TQueryParser,
  type TRequestFields,
  type TWireError,
} from "@posture/platform";
import { logFault } from "./middleware/errors";
import type { AppRouter } from "./router";

type TZod = { _zod: { def: { type: string; [k: string]: unknown } }; _def: Record<string, unknown> };

type TRoute = {
  name: string;
  procedure: TCatalogProcedure;
  pattern: RegExp;
  /** undefined: the procedure takes no input. */
  input: { arrayKeys: Set<string>; parse: TQueryParser } | undefined;
  /** What it finds wrong with a request's query parameters (and body: it takes none). */
  fields: TRequestFields;
  /** false: an input shape this dispatcher does not replicate; trpc-to-openapi serves it. */
  fast: boolean;
};

const kind = (t: TZod | undefined): string | undefined => t?._zod?.def?.type;

// trpc-to-openapi's unwrapping of a query input schema, applied once instead of per request.
function unwrap(t: TZod): TZod {
  const def = t._zod.def as { type: string; innerType?: TZod; element?: TZod; in?: TZod; out?: TZod };
  switch (def.type) {
    case "array":
      return def.element ? unwrap(def.element) : t;
    case "nullable":
    case "optional":
    case "default":
    case "prefault":
      return def.innerType ? unwrap(def.innerType) : t;
    default:
      return t;
  }
}

/**
 * The REST GET routes compiled once from the route catalog: the route lookup, the query
 * conversion and the procedure itself are resolved at start-up instead of per request (what
 * trpc-to-openapi's handler does on every call: URL parsing, a scan of every route's regular
 * expression and a caller proxy). Query values are converted to the field types strictly
 * (`compileQueryParser`), never by schema coercion. Matching is trpc-to-openapi's exactly — first
 * route in registration order, case-insensitive — and anything unusual (another method, a path
 * with dots or escapes, a procedure with several inputs) is left to trpc-to-openapi.
 */
export function compileGetRoutes(router: AppRouter) {
  const ordered: TRoute[] = [];
  for (const entry of routeCatalog(router).rest) {
    const { rest } = entry;
    if (rest.method !== "GET" || entry.kind !== "query") continue;
    if (entry.inputs.length > 1) return null; // merged inputs: not worth replicating
    const schema = entry.input as TZod | undefined;
    const unwrapped = schema ? unwrap(schema) : undefined;
    const t = kind(unwrapped);
    let input: TRoute["input"] = { arrayKeys: new Set(), parse: compileQueryParser(schema) };
    let fast = true;
    if (t === "void" || t === "undefined" || t === "never") input = undefined;
    else if (t !== "object" || !unwrapped) fast = false;
    else {
      const shape = (unwrapped as unknown as { shape: Record<string, TZod> }).shape;
      for (const [key, field] of Object.entries(shape)) {
        const inner = kind(field) === "optional" ? (field._zod.def.innerType as TZod) : field;
        if (kind(inner) === "array") input.arrayKeys.add(key);
      }
    }
    const fields = compileRequestFields(schema, { pathParams: rest.params, body: false });
    ordered.push({ name: entry.key, procedure: entry.procedure, pattern: rest.pattern, input, fields, fast });
  }
  // For each literal path, the route trpc-to-openapi would pick (the first that matches).
  const exact = new Map<string, TRoute>();
  for (const route of ordered) {
    const literal = route.pattern.source.slice(1, -1);
    if (/^[A-Za-z0-9/_-]*$/.test(literal) && !exact.has(literal)) {
      const first = ordered.find((r) => r.pattern.test(literal));
      if (first) exact.set(literal, first);
    }
  }
  return {
    match(rawPath: string): { route: TRoute; params: Record<string, string> } | undefined {
      // Only plain paths, which URL parsing would leave as they are.
      if (!/^[A-Za-z0-9/_~-]*$/.test(rawPath)) return undefined;
      const path = normalisePath(rawPath);
      const route = exact.get(path) ?? ordered.find((r) => r.pattern.test(path));
      if (!route?.fast) return undefined;
      return { route, params: { ...route.pattern.exec(path)?.groups } };
    },
  };
}

/**
 * Every REST route as trpc-to-openapi matches it (per method, first pattern in registration order,
 * case-insensitive, on the undecoded path without its trailing slash), with what the gateway
 * checks before the library spreads the input together: the request carries only the fields the
 * operation takes (a body operation: an object body of its fields and no query parameter; GET and
 * DELETE: its fields as query parameters and no body), a query string's values are converted to
 * the field types strictly.
 */
export function compileRouteInputs(router: AppRouter) {
  const byMethod = new Map<
    string,
    Array<{ pattern: RegExp; parse: TQueryParser; fields: TRequestFields; body: boolean }>
  >();
  for (const { rest, input } of routeCatalog(router).rest) {
    const routes = byMethod.get(rest.method) ?? [];
    routes.push({
      pattern: rest.pattern,
      parse: compileQueryParser(input),
      fields: compileRequestFields(input, { pathParams: rest.params, body: rest.body }),
      body: rest.body,
    });
    byMethod.set(rest.method, routes);
  }
  return (method: string, url: string) => {
    const routes = byMethod.get(method);
    if (!routes) return undefined;
    const pathname = new URL(url.startsWith("/") ? `http://127.0.0.1${url}` : url).pathname;
    const path = normalisePath(pathname);
    return routes.find((r) => r.pattern.test(path));
  };
}

/**
 * True when a path is one a procedure declares literally (no parameter) but not for this method:
 * `GET /compliance/evidence/generate` is a 405, not the evidence job "generate". Routing by
 * template alone would hand it to `/compliance/evidence/{jobId}` and answer 404.
 */
export function literalPathOfOtherMethods(router: AppRouter): (method: string, path: string) => boolean {
  const catalog = routeCatalog(router);
  return (method, rawPath) => {
    const methods = catalog.literalMethods(rawPath);
    return methods !== undefined && !methods.has(method === "HEAD" ? "GET" : method);
  };
}

type TDispatch = {
  createContext: (opts: { req: unknown }) => TContext;
  responseMeta: (args: { ctx?: TContext; errors: readonly unknown[] }) => {
    status: number;
    headers: Record<string, string | string[]>;
  };
  log: TLogger;
};

function send(res: Response, status: number, headers: Record<string, string | string[]>, body: unknown) {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(JSON.stringify(body));
}

/** Runs a matched GET route: the same context, guards, validation and response as the library's. */
export async function dispatchGet(
  d: TDispatch,
  req: Request,
  res: Response,
  hit: { route: TRoute; params: Record<string, string> },
): Promise<void> {
  const { route, params } = hit;
  req.requestProblem = route.fields(req.query as Record<string, unknown>, req.body);
  let input: Record<string, unknown> | undefined;
  if (route.input) {
    input = {};
    const query = req.query as Record<string, string | string[] | undefined>;
    for (const key of Object.keys(query)) {
      const value = query[key];
      if (!value) continue;
      const single = Array.isArray(value) && value.length === 1 ? value[0] : value;
      input[key] = route.input.arrayKeys.has(key) && !Array.isArray(single) ? [single] : single;
    }
    input = route.input.parse(input);
    Object.assign(input, params);
  }
  const ctx = d.createContext({ req });
  try {
    const data = await route.procedure({
      path: route.name,
      getRawInput: () => Promise.resolve(input),
      ctx,
      type: "query",
      signal: undefined,
      batchIndex: 0,
    });
    const meta = d.responseMeta({ ctx, errors: [] });
    send(res, meta.status, meta.headers, data);
  } catch (error) {
    const wire = toWireError(error);
    (req as Request & { wireError?: TWireError }).wireError = wire;
    logFault(d.log, wire, error, { requestId: req.requestId, path: route.name });
    send(res, wire.status, wire.headers, wire.body);
  }
}
