import type { Request } from "express";
import { routeCatalog, type TRestRoute } from "@posture/platform";
import type { AppRouter } from "./router";

/** Express routes served beside the procedures. */
const EXTRA_ROUTES = ["GET /api/openapi.json", "GET /api/docs"];

/**
 * Every request's route template (`GET /api/findings/{id}`), for metrics labels, from the route
 * catalog, matched as the REST handler matches (case-insensitive, without a trailing slash).
 * Paths without parameters are one map lookup; parameterised ones a short scan of that method's
 * patterns. Raw paths never become labels.
 */
export function compileRoutes(router: AppRouter): (req: Request) => string {
  const catalog = routeCatalog(router);
  const exact = new Map<string, string>(EXTRA_ROUTES.map((r) => [r.toLowerCase(), r]));
  const withParams = new Map<string, TRestRoute[]>();
  for (const { rest } of catalog.rest) {
    if (rest.literal) {
      exact.set(`${rest.method} ${rest.apiPath.toLowerCase()}`, rest.template);
      continue;
    }
    const list = withParams.get(rest.method) ?? [];
    list.push(rest);
    withParams.set(rest.method, list);
  }
  return (req) => {
    const url = req.originalUrl;
    const q = url.indexOf("?");
    const path = (q < 0 ? url : url.slice(0, q)).replace(/(.)\/$/, "$1");
    if (path.startsWith("/trpc/")) {
      const name = path.slice("/trpc/".length);
      if (name.includes(",")) return `${req.method} /trpc (batch)`;
      return catalog.byKey.has(name) ? `${req.method} /trpc/${name}` : "unmatched";
    }
    const hit = exact.get(`${req.method} ${path.toLowerCase()}`);
    if (hit) return hit;
    if (!path.startsWith("/api/")) return "unmatched";
    const relative = path.slice("/api".length);
    for (const route of withParams.get(req.method) ?? [])
      if (route.pattern.test(relative)) return route.template;
    return "unmatched";
  };
}
