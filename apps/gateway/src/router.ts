import { appRouter } from "@posture/composition/router";
import { AppError, routeCatalog, type TContext } from "@posture/platform";

// The whole API, composed in @posture/composition (the service's composition root).
export { appRouter, type AppRouter } from "@posture/composition/router";

/** The procedure at a tRPC key (`findings.list`), called as the request's context: its guards apply. */
export function callerAt(ctx: TContext, key: string): (input: unknown) => Promise<unknown> {
  // The caller is a proxy that answers any path with a function: the catalog says what exists.
  if (!routeCatalog(appRouter).byKey.has(key)) throw new AppError("not_found", `No procedure ${key}`);
  let node: unknown = appRouter.createCaller(ctx);
  for (const part of key.split(".")) node = (node as Record<string, unknown>)[part];
  return node as (input: unknown) => Promise<unknown>;
}
