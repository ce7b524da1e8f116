import { Router, type Request, type Response } from "express";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { ERROR_STATUS, type TAccess, type TErrorCode, type TMeta } from "@posture/platform";
import type { TGatewayDeps } from "./deps";
import { renderDocsPage } from "./docs-page";
import { appRouter } from "./router";

const SECURITY_BY_AUTH: Record<TAccess["auth"], Array<Record<string, string[]>>> = {
  public: [],
  apiKey: [{ apiKey: [] }, { session: [] }],
  session: [{ session: [] }],
  partner: [{ apiKey: [] }, { session: [] }],
};

type TResponseObject = { description: string; content?: unknown; headers?: unknown };
type TOperation = {
  security?: unknown;
  description?: string;
  parameters?: Array<Record<string, unknown>>;
  requestBody?: unknown;
  responses?: Record<string, TResponseObject>;
  "x-access"?: TAccess;
};

const ERROR_SCHEMA = {
  type: "object",
  description: "Every error: a stable code, a human message; clients ignore unknown fields.",
  properties: {
    error: { type: "string", enum: Object.keys(ERROR_STATUS) },
    message: { type: "string" },
    details: {
      type: "array",
      description: "invalid_input: what failed validation",
      items: {
        type: "object",
        properties: { path: { type: "string" }, message: { type: "string" } },
        required: ["path", "message"],
      },
    },
    upgrade: {
      type: "object",
      description: "plan_upgrade_required: the plan (and feature) that would allow the call",
      properties: { feature: { type: "string" }, requiredPlan: { type: "string" } },
      required: ["requiredPlan"],
    },
    retryAfter: { type: "integer", description: "rate_limited: seconds until a retry may succeed" },
  },
  required: ["error", "message"],
};

const errorResponse = (codes: TErrorCode[], extra: Partial<TResponseObject> = {}): TResponseObject => ({
  description: codes.map((c) => `\`${c}\``).join(", "),
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  ...extra,
});

const RATE_LIMIT_HEADERS = {
  "Retry-After": { description: "Whole seconds to wait", schema: { type: "integer" } },
  RateLimit: { description: "IETF RateLimit header", schema: { type: "string" } },
  "RateLimit-Policy": { description: "IETF RateLimit-Policy header", schema: { type: "string" } },
};

/**
 * The generator describes tRPC's own error shape; the wire carries the contract's `{error,
 * message}`. This replaces every error response with the codes the operation can really return,
 * derived from the same access meta the guards enforce.
 */
function contractResponses(path: string, method: string, op: TOperation, access: TAccess): void {
  const responses: Record<string, TResponseObject> = {};
  for (const [status, r] of Object.entries(op.responses ?? {}))
    if (status.startsWith("2")) responses[status] = r;
  const write = method !== "get";
  const authed = access.auth !== "public";
  const hasInput = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined;
  if (hasInput || write) responses["400"] = errorResponse(["invalid_input"]);
  if (authed) responses["401"] = errorResponse(["unauthenticated"]);
  if (authed && (access.plan || access.feature || access.auth !== "session")) {
    responses["402"] = errorResponse(["plan_upgrade_required"]);
  }
  const forbidden: TErrorCode[] = [];
  if (access.auth === "session") forbidden.push("session_required");
  if (access.auth === "partner") forbidden.push("partner_required");
  if (access.role) forbidden.push("forbidden");
  if (write) forbidden.push("csrf_rejected");
  if (forbidden.length > 0) responses["403"] = errorResponse(forbidden);
  if (path.includes("{")) responses["404"] = errorResponse(["not_found"]);
  if (authed && method === "post") responses["409"] = errorResponse(["conflict"]);
  if (path !== "/health") responses["429"] = errorResponse(["rate_limited"], { headers: RATE_LIMIT_HEADERS });
  responses["500"] = errorResponse(["internal_error"]);
  op.responses = responses;
}

const IDEMPOTENCY_PARAMETER = {
  in: "header",
  name: "Idempotency-Key",
  required: false,
  description:
    "Makes a retry safe: the first result with this key (per credential, for 24 h) is replayed with `Idempotent-Replayed: true`; the same key with another body is 409 `conflict`.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

/**
 * The generator documents every success as 200; a procedure that answers 201 or 202 (set at run
 * time through ctx.response.status) states it as `successStatus` in its meta.
 */
function moveSuccessStatus(op: TOperation, meta: TMeta): void {
  const status = (meta as { successStatus?: unknown }).successStatus;
  const ok = op.responses?.["200"];
  if (typeof status !== "number" || status === 200 || !ok || !op.responses) return;
  const { ["200"]: _moved, ...rest } = op.responses;
  op.responses = { [String(status)]: ok, ...rest };
}

/** Adds each operation's auth (security), plan and role from the procedure's access meta. */
function annotateAccess(doc: OpenAPIObject): OpenAPIObject {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { meta?: TMeta } }>;
  for (const proc of Object.values(procedures)) {
    const meta = proc._def.meta;
    const openapi = meta?.openapi;
    if (!openapi || !meta.access) continue;
    const method = openapi.method.toLowerCase();
    const op = (doc.paths?.[openapi.path] as Record<string, TOperation> | undefined)?.[method];
    if (!op) continue;
    const access = meta.access;
    op.security = SECURITY_BY_AUTH[access.auth];
    op["x-access"] = access;
    const parts = [
      access.auth === "public"
        ? "Public"
        : `Auth: ${access.auth === "apiKey" ? "API key or session" : access.auth}`,
      access.plan ? `plan: ${access.plan}+` : null,
      access.feature ? `needs: ${access.feature}` : null,
      access.role ? `role: ${access.role === "ADMIN" ? "ADMIN+" : access.role}` : null,
    ].filter(Boolean);
    op.description = [op.description, parts.join(" · ")].filter(Boolean).join("\n\n");
    if (access.auth !== "public" && method === "post") {
      op.parameters = [...(op.parameters ?? []), IDEMPOTENCY_PARAMETER];
    }
    contractResponses(openapi.path, method, op, access);
    moveSuccessStatus(op, meta);
  }
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schemas)) if (name.startsWith("error.")) delete schemas[name];
  schemas.Error = ERROR_SCHEMA;
  doc.components = { ...doc.components, schemas: schemas as never };
  return doc;
}

export function buildOpenApiDocument(publicUrl: string): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: "Security Posture Developer API",
    version: "1",
    description:
      "One API over an organization's SaaS security posture. Errors are `{error, message}`. " +
      "Requests are limited per IP (60/min signed in or with an API key, 20/min anonymous).",
    baseUrl: `${publicUrl.replace(/\/$/, "")}/api`,
    securitySchemes: {
      apiKey: { type: "http", scheme: "bearer", description: "`Authorization: Bearer svc_ak_…`" },
      session: {
        type: "apiKey",
        in: "cookie",
        name: "svc_session",
        description: "Signed-in browser session",
      },
    },
  });
  return annotateAccess(doc);
}

export function openApiRoutes(deps: TGatewayDeps): Router {
  const r = Router();
  let cached: { json: string; html: string } | undefined;
  const get = () => {
    if (!cached) {
      const doc = buildOpenApiDocument(deps.runtime.publicUrl);
      cached = { json: JSON.stringify(doc), html: renderDocsPage(doc) };
    }
    return cached;
  };
  r.get("/openapi.json", (_req: Request, res: Response) => {
    res.type("application/json").send(get().json);
  });
  r.get("/docs", (_req: Request, res: Response) => {
    res.setHeader(
      "Content-Security-Policy",
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    );
    res.type("text/html").send(get().html);
  });
  return r;
}
