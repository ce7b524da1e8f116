import type { Request } from "express";
import type { TMeta } from "@posture/platform";
import type { AppRouter } from "./router";

type TCompiled = { template: string; pattern: RegExp };

/** Express routes served beside the procedures. */
const EXTRA_ROUTES = ["GET /api/openapi.json", "GET /api/docs"];

/**
 * Every request's route template (`GET /api/findings/{id}`), for metrics labels: compiled once
 * from the procedures' OpenAPI meta. Paths without parameters are one map lookup; parameterised
 * ones a short regular-expression scan for that method. Raw paths never become labels.
 */
export function compileRoutes(router: AppRouter): (req: Request) => string {
  const exact = new Map<string, string>(EXTRA_ROUTES.map((r) => [r, r]));
  const withParams = new Map<string, TCompiled[]>();
  const trpc = new Set<string>();
  const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: TMeta } }>;
  for (const [name, proc] of Object.entries(procedures)) {
    trpc.add(name);
    const openapi = proc._def.meta?.openapi;
    if (!openapi) continue;
    const path = `/api${openapi.path.startsWith("/") ? "" : "/"}${openapi.path}`.replace(/\/$/, "");
    const template = `${openapi.method} ${path}`;
    if (!path.includes("{")) {
      exact.set(template, template);
      continue;
    }
    const source = path
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))
      .join("[^/]+");
    const list = withParams.get(openapi.method) ?? [];
    list.push({ template, pattern: new RegExp(`^${source}$`) });
    withParams.set(openapi.method, list);
  }
  return (req) => {
    const url = req.originalUrl;
    const q = url.indexOf("?");
    const path = (q < 0 ? url : url.slice(0, q)).replace(/(.)\/$/, "$1");
    if (path.startsWith("/trpc/")) {
      const name = path.slice("/trpc/".length);
      if (name.includes(",")) return `${req.method} /trpc (batch)`;
      return trpc.has(name) ? `${req.method} /trpc/${name}` : "unmatched";
    }
    const hit = exact.get(`${req.method} ${path}`);
    if (hit) return hit;
    for (const route of withParams.get(req.method) ?? []) if (route.pattern.test(path)) return route.template;
    return "unmatched";
  };
}
