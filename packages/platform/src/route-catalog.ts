import type { TDownloadMeta } from "./download";
import type { TAccess, TMeta } from "./trpc";

// The router's procedures read once, into the one table every transport and walker uses: the
// REST dispatch, the tRPC handler's coercion guard, the OpenAPI annotations, the downloads, the
// MCP catalog, the metrics labels, the demo seed's caller and the tests that walk every route
// (docs/architecture.md, "The route catalog"). Nothing else reads `router._def.procedures`.

export type TRouteMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type TRouteKind = "query" | "mutation" | "subscription";

/** A procedure as the router holds it: callable with tRPC's resolver options, and its definition. */
export type TCatalogProcedure = ((opts: {
  path: string;
  getRawInput: () => Promise<unknown>;
  ctx: unknown;
  type: TRouteKind;
  signal: AbortSignal | undefined;
  batchIndex: number;
}) => Promise<unknown>) & {
  _def: { type: TRouteKind; inputs: unknown[]; output?: unknown; meta?: TMeta };
};

/** A procedure's REST operation, as trpc-to-openapi serves it under /api. */
export type TRestRoute = {
  method: TRouteMethod;
  /** As the meta declares it and the OpenAPI document keys it, relative to /api: `/findings/{id}`. */
  path: string;
  /** Without a trailing slash, under /api: `/api/findings/{id}`. */
  apiPath: string;
  /** `GET /api/findings/{id}`: the metrics label. */
  template: string;
  /** `{id}` → id, in order. */
  params: string[];
  /**
   * trpc-to-openapi's match of a path relative to /api without its trailing slash:
   * case-insensitive, one named group per parameter.
   */
  pattern: RegExp;
  /** No path parameter. */
  literal: boolean;
  /** A JSON body carries the input (every method but GET and DELETE). */
  body: boolean;
};

export type TRouteEntry = {
  /** The tRPC key: `findings.list`. */
  key: string;
  kind: TRouteKind;
  procedure: TCatalogProcedure;
  meta: TMeta | undefined;
  access: TAccess | undefined;
  download: TDownloadMeta | undefined;
  /** The first (in this router, the only) input schema; undefined when it takes none. */
  input: unknown;
  inputs: readonly unknown[];
  output: unknown;
  rest: TRestRoute | undefined;
};

export type TRestEntry = TRouteEntry & { rest: TRestRoute };

export type TRouteCatalog = {
  /** Every procedure, in the router's registration order (trpc-to-openapi matches in this order). */
  entries: readonly TRouteEntry[];
  /** The procedures with a REST operation. */
  rest: readonly TRestEntry[];
  byKey: ReadonlyMap<string, TRouteEntry>;
  /** The procedure declared at `method path` (the declared path: `/findings/{id}`). */
  at(method: string, path: string): TRouteEntry | undefined;
  /**
   * The methods declared for a literal path (no parameter), matched as trpc-to-openapi does
   * (case-insensitive, without a trailing slash); undefined for a path no procedure declares.
   */
  literalMethods(path: string): ReadonlySet<string> | undefined;
};

type TRouterLike = { _def: { procedures: unknown } };

/** `/findings/{id}/` → `/findings/{id}` (trpc-to-openapi's normalisation). */
export const normalisePath = (path: string): string => `/${path.replace(/^\/|\/$/g, "")}`;

function restRoute(method: TRouteMethod, path: string): TRestRoute {
  const normal = normalisePath(path);
  const apiPath = `/api${normal === "/" ? "" : normal}`;
  return {
    method,
    path,
    apiPath,
    template: `${method} ${apiPath}`,
    params: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? ""),
    pattern: new RegExp(`^${normal.replace(/\{(.+?)\}/g, (_, key: string) => `(?<${key}>[^/]+)`)}$`, "i"),
    literal: !path.includes("{"),
    body: method !== "GET" && method !== "DELETE",
  };
}

function build(router: TRouterLike): TRouteCatalog {
  const procedures = router._def.procedures as Record<string, TCatalogProcedure>;
  const entries: TRouteEntry[] = Object.entries(procedures).map(([key, procedure]) => {
    const def = procedure._def;
    const meta = def.meta;
    const openapi = meta?.openapi;
    return {
      key,
      kind: def.type,
      procedure,
      meta,
      access: meta?.access,
      download: meta?.download,
      input: def.inputs[0],
      inputs: def.inputs,
      output: def.output,
      rest:
        openapi && openapi.enabled !== false && def.type !== "subscription"
          ? restRoute(openapi.method, openapi.path)
          : undefined,
    };
  });
  const rest = entries.filter((e): e is TRestEntry => e.rest !== undefined);
  const declared = new Map(rest.map((e) => [`${e.rest.method} ${e.rest.path}`, e]));
  const literal = new Map<string, Set<string>>();
  for (const e of rest) {
    if (!e.rest.literal) continue;
    const path = normalisePath(e.rest.path).toLowerCase();
    literal.set(path, (literal.get(path) ?? new Set()).add(e.rest.method));
  }
  return {
    entries,
    rest,
    byKey: new Map(entries.map((e) => [e.key, e])),
    at: (method, path) => declared.get(`${method} ${path}`),
    literalMethods: (path) => literal.get(normalisePath(path).toLowerCase()),
  };
}

const catalogs = new WeakMap<object, TRouteCatalog>();

/** The router's route catalog, read once per router. */
export function routeCatalog(router: TRouterLike): TRouteCatalog {
  let catalog = catalogs.get(router);
  if (!catalog) {
    catalog = build(router);
    catalogs.set(router, catalog);
  }
  return catalog;
}
