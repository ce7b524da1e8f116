import type { NextFunction, Request, Response } from "express";
import { AppError } from "@posture/platform";
import { sendError } from "./errors";

export type TRouteTable = Array<{ path: string; methods: string[] }>;

type TCompiled = { pattern: RegExp; params: number; methods: Set<string> };

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `/connectors/{id}/sync` → a pattern where each `{param}` is one non-empty path segment. */
function compile(path: string): RegExp {
  const source = path
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? "[^/]+" : escapeRegex(part)))
    .join("");
  return new RegExp(`^${source}/?$`);
}

/**
 * The methods a path answers to; empty for an unknown path. The most literal templates that
 * match decide, as in routing: `/incidents/suggestions` is not an incident `{id}`, so its
 * methods are its own, not those of `/incidents/{id}`.
 */
export function allowedMethods(table: TRouteTable): (path: string) => string[] {
  const compiled: TCompiled[] = table.map((r) => ({
    pattern: compile(r.path),
    params: (r.path.match(/\{[^}]+\}/g) ?? []).length,
    methods: new Set(r.methods.map((m) => m.toUpperCase())),
  }));
  return (path) => {
    const matches = compiled.filter((c) => c.pattern.test(path));
    const fewest = Math.min(...matches.map((c) => c.params));
    const methods = new Set<string>();
    for (const c of matches) if (c.params === fewest) for (const m of c.methods) methods.add(m);
    return [...methods].sort();
  };
}

/**
 * Reached only when no handler took the request: a known path with another method is 405
 * `method_not_allowed` with `Allow` listing the methods it has; an unknown path goes on to 404.
 */
export function methodNotAllowed(table: () => TRouteTable) {
  let lookup: ((path: string) => string[]) | undefined;
  return (req: Request, res: Response, next: NextFunction): void => {
    lookup ??= allowedMethods(table());
    const methods = lookup(req.path);
    if (methods.length === 0 || methods.includes(req.method)) return next();
    res.setHeader("Allow", methods.join(", "));
    sendError(
      res,
      new AppError("method_not_allowed", `${req.method} is not allowed here; use ${methods.join(", ")}`, {
        allow: methods,
      }),
    );
  };
}
