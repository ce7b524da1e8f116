import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { TRole } from "@posture/db";
import type { TAuthedContext, TContext } from "./context";
import { asDataWrite, asRead, asUnnamedWrite } from "./data-epochs";
import type { TDownloadMeta } from "./download";
import { AppError, type TErrorCode } from "./errors";
import { hasRole, type TPrincipal } from "./principal";
import { principalAllows, scopeFor, type TCallKind } from "./scopes";
import { atLeast, minimumPlanFor, PLANS, type TFeature, type TPlanId } from "./plans";
import { toWireError } from "./wire-error";

export type TAuthMode = "public" | "apiKey" | "session" | "partner";

/** Who may call a procedure; read by the guards below and by the OpenAPI document. */
export type TAccess = {
  auth: TAuthMode;
  plan?: TPlanId;
  feature?: TFeature;
  role?: Exclude<TRole, "member">;
};

/**
 * `successStatus`: the status of a successful call when it is not 200 (201 for creations).
 * `errors`: the codes the procedure itself can return beyond what its access, input and the
 * platform imply (`ticket_exists`, `invalid_transition`, `expired`…); the OpenAPI document
 * lists them per operation.
 * `download`: the procedure may answer with a file (TDownload), streamed raw by the gateway; it
 * runs on `ctx.reportDb` (reports, exports, PDFs keep the pool's longer database bounds).
 */
export type TMeta = OpenApiMeta<{
  access?: TAccess;
  /**
   * The procedure reads for longer than an interactive request may (a report answered as JSON):
   * it runs on `ctx.reportDb`, the pool's bounds, not the request's 2 s. Downloads always do.
   */
  longReads?: true;
  successStatus?: 201 | 202;
  /**
   * `false`: the gateway's read cache never keeps this GET's answer — it shows what changes
   * without a write (a credential's last use, written in batches off the request path) or exists
   * to see changes made outside the service (the audit chain's verification).
   */
  readCache?: false;
  download?: TDownloadMeta;
  errors?: readonly TErrorCode[];
}>;

const t = initTRPC
  .context<TContext>()
  .meta<TMeta>()
  .create({
    errorFormatter({ shape, error }) {
      const wire = toWireError(error);
      // tRPC clients keep the standard shape; the contract's code rides in data.
      return {
        ...shape,
        message: wire.body.message,
        data: { ...wire.body, httpStatus: wire.status, path: shape.data.path },
      };
    },
  });

export const router = t.router;
/** Joins routers' top-level keys into one (the gateway's appRouter); a key defined twice throws. */
export const mergeRouters = t.mergeRouters;

const CREDENTIAL_MESSAGES = {
  malformed: "Malformed credential",
  unknown: "Unknown credential",
  revoked: "Credential revoked",
  expired: "Credential expired",
  no_membership: "No access to the organization",
} as const;

/**
 * An API key's scopes against the call's kind (scopes.ts): the one check for REST, /trpc and MCP
 * tool calls alike, since all three run the procedure. A `read` key may make no other call, so it
 * is refused before anything else about the route (whichever credential kind the route takes).
 */
function checkScope(principal: TPrincipal | null | undefined, kind: TCallKind): void {
  if (!principal || principalAllows(principal, kind)) return;
  throw new AppError(
    "insufficient_scope",
    `This API key's scopes (${(principal.scopes ?? []).join(", ")}) do not allow this call: it needs the ${scopeFor(kind)} scope`,
    { requiredScope: scopeFor(kind) },
  );
}

// The contract's check order: authenticate (401) → scope (403) → credential kind (403) → plan
// (402) → role (403); input (400) and resources (404/409) come after, in the procedure.
export function authenticate(
  ctx: TContext,
  mode: Exclude<TAuthMode, "public">,
  kind: TCallKind = "query",
): TPrincipal {
  const principal = ctx.principal;
  if (!principal) {
    const message = ctx.credentialFailure
      ? CREDENTIAL_MESSAGES[ctx.credentialFailure]
      : "Authentication required";
    throw new AppError("unauthenticated", message);
  }
  checkScope(principal, kind);
  if (mode === "session" && principal.kind !== "session") {
    throw new AppError("session_required", "This endpoint is available to a signed-in browser session only");
  }
  if (mode === "partner" && !principal.org.isPartner) {
    throw new AppError("partner_required", "This endpoint requires a partner account");
  }
  const features = PLANS[principal.org.plan].features;
  if (principal.kind === "api_key" && !features.apiAccess) {
    throw new AppError("plan_upgrade_required", "API access is not included in your plan", {
      upgrade: { feature: "apiAccess", requiredPlan: minimumPlanFor("apiAccess") },
    });
  }
  return principal;
}

function checkPlan(org: TPrincipal["org"], plan: TPlanId | undefined, feature: TFeature | undefined): void {
  if (plan && !atLeast(org.plan, plan)) {
    throw new AppError("plan_upgrade_required", `This endpoint requires the ${plan} plan or higher`, {
      upgrade: { requiredPlan: plan },
    });
  }
  if (feature && !PLANS[org.plan].features[feature]) {
    throw new AppError("plan_upgrade_required", `Your plan does not include ${feature}`, {
      upgrade: { feature, requiredPlan: minimumPlanFor(feature) },
    });
  }
}

function checkRole(principal: TPrincipal, role: Exclude<TRole, "member"> | undefined): void {
  if (role && !hasRole(principal.role, role)) {
    throw new AppError(
      "forbidden",
      `This action requires the ${role === "OWNER" ? "OWNER" : "ADMIN or OWNER"} role`,
    );
  }
}

// Runs after a successful mutation: revocations, role and plan changes reach every replica's
// credential cache before the caller sees the response (see access-gate.ts).
async function publishAfterMutation(ctx: TContext, type: string, ok: boolean): Promise<void> {
  const orgId = ctx.principal?.org.id;
  if (type === "mutation" && ok && orgId) await ctx.publishCredentialChanges(orgId);
}

/**
 * Runs a call as the write it is, for the read caches (data-epochs.ts): a mutation of a principal
 * writes the principal's organization; a public mutation (sign-in, sign-up, an invitation
 * accepted) has no organization until it has run, so it is a write whose organizations its
 * audit rows name; a query writes nothing, or its audit rows say where (`asRead`).
 */
function asCall<T>(ctx: TContext, type: string, run: () => Promise<T>): Promise<T> {
  if (type !== "mutation") return asRead(ctx.dataWrites, run);
  const orgId = ctx.principal?.org.id;
  return orgId ? asDataWrite(ctx.dataWrites, [orgId], run) : asUnnamedWrite(ctx.dataWrites, run);
}

// Public procedures: the REST layer's finding about the request's fields (context.ts) in the
// input's place in the order, and credential changes published after a mutation (sign-in).
const publicAccess = t.middleware(async ({ ctx, type, next }) => {
  // A read-only key presented to a public mutation (sign-in, sign-out) is refused like any write.
  checkScope(ctx.principal, type);
  if (ctx.requestProblem) throw ctx.requestProblem;
  const result = await asCall(ctx, type, () => next());
  await publishAfterMutation(ctx, type, result.ok);
  return result;
});

export const publicProcedure = t.procedure.meta({ access: { auth: "public" } }).use(publicAccess);

/**
 * The one procedure factory: the spec's auth column, plan and role, checked in the contract's order
 * by a single middleware (every level of tRPC's middleware chain copies its options and context:
 * one level instead of five is measurable on the hottest reads).
 */
export function procedure(access: TAccess & { auth: Exclude<TAuthMode, "public"> }) {
  return t.procedure.meta({ access }).use(async ({ ctx, meta, type, next }) => {
    const principal = authenticate(ctx, access.auth, type);
    checkPlan(principal.org, access.plan, access.feature);
    checkRole(principal, access.role);
    if (ctx.requestProblem) throw ctx.requestProblem;
    // The success status is declared once, in meta, for both the wire and the OpenAPI document.
    if (meta?.successStatus) ctx.response.status = meta.successStatus;
    // tRPC merges the given fields into the context: the principal, now known to be present, and
    // for a report, export or PDF the database under the pool's longer bounds.
    const db = (meta?.download || meta?.longReads ? ctx.reportDb : undefined) ?? ctx.db;
    const result = await asCall(ctx, type, () =>
      next({ ctx: { principal, db } satisfies Partial<TAuthedContext> }),
    );
    await publishAfterMutation(ctx, type, result.ok);
    return result;
  });
}
