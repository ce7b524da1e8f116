import { eq } from "drizzle-orm";
import { memberships, organizations, users, type Db } from "@posture/db";
import { appRouter } from "@posture/composition/router";
import {
  RateLimits,
  ResponseControl,
  routeCatalog,
  type TContext,
  type TLogger,
  type TPrincipal,
  type TRuntime,
} from "@posture/platform";
import type { TSeedQueue } from "./queue";

// The seed goes through the same procedures as the REST API (validation, plan and role checks,
// audit rows, events), as the demo's users: the service's own router, from the composition root.
/** The tRPC key of a REST operation, found in the routers' route catalog. */
function keyOf(method: string, path: string): string {
  const key = routeCatalog(appRouter).at(method, path)?.key;
  if (!key) throw new Error(`demo seed: no procedure for ${method} ${path}`);
  return key;
}

export type TCallDeps = { db: Db; jobs: TSeedQueue; runtime: TRuntime; log: TLogger };

/** Calls REST operations as one of the demo's users, signed in (a session principal). */
export type TCaller = <T = unknown>(method: string, path: string, input?: unknown) => Promise<T>;

export async function callerFor(deps: TCallDeps, email: string): Promise<TCaller> {
  const [row] = await deps.db
    .select({
      userId: users.id,
      email: users.email,
      role: memberships.role,
      orgId: organizations.id,
      name: organizations.name,
      plan: organizations.plan,
      isPartner: organizations.isPartner,
    })
    .from(users)
    .innerJoin(memberships, eq(memberships.userId, users.id))
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(eq(users.email, email));
  if (!row) throw new Error(`demo seed: no user ${email}`);
  const principal: TPrincipal = {
    kind: "session",
    credentialId: "demo-seed",
    userId: row.userId,
    userEmail: row.email,
    role: row.role,
    org: { id: row.orgId, name: row.name, plan: row.plan, isPartner: row.isPartner },
  };
  const limits = new RateLimits(null, "demo-seed");
  return async <T>(method: string, path: string, input?: unknown): Promise<T> => {
    const ctx: TContext = {
      db: deps.db,
      principal,
      credentialFailure: null,
      ip: "127.0.0.1",
      requestId: "demo-seed",
      userAgent: "posture-demo-seed",
      response: new ResponseControl(false),
      limits,
      jobs: deps.jobs,
      runtime: deps.runtime,
      log: deps.log,
      probes: {},
      publishCredentialChanges: async () => {},
    };
    let node: unknown = appRouter.createCaller(ctx);
    for (const part of keyOf(method, path).split(".")) node = (node as Record<string, unknown>)[part];
    const result = await (node as (i: unknown) => Promise<unknown>)(input);
    // Work a response would start once sent (e.g. an apply's job) runs now.
    ctx.response.runAfterResponse();
    return result as T;
  };
}
