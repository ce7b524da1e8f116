import { Router, type Request, type Response } from "express";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import {
  ERROR_STATUS,
  inputFieldNames,
  routeCatalog,
  scopeFor,
  type TAccess,
  type TErrorCode,
  type TMeta,
} from "@posture/platform";
import { webhookDocuments } from "@posture/webhooks";
import type { TGatewayDeps } from "./deps";
import { DOCS_ASSET_ROUTES } from "./docs-page";
import { GUIDES_MARKDOWN } from "./guides";
import { addExamples } from "./openapi-examples";
import type { TRouteTable } from "./middleware/method-not-allowed";
import { appRouter } from "./router";

/**
 * Each operation's security requirement. An API key's requirement names the scope the call needs
 * (platform scopes.ts): `read` for a GET, `write` for anything else; an unscoped key holds both.
 * OpenAPI 3.1 lets a non-OAuth scheme list such role names.
 */
function securityOf(auth: TAccess["auth"], method: string): Array<Record<string, string[]>> {
  if (auth === "public") return [];
  if (auth === "session") return [{ session: [] }];
  return [{ apiKey: [scopeFor(method === "get" ? "query" : "mutation")] }, { session: [] }];
}

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
    retryAfter: {
      type: "integer",
      minimum: 0,
      example: 30,
      description: "rate_limited: seconds until a retry may succeed",
    },
  },
  required: ["error", "message"],
};

/** An error response: the contract's `Error` body, its `error` narrowed to the codes possible here. */
const errorResponse = (codes: TErrorCode[], extra: Partial<TResponseObject> = {}): TResponseObject => ({
  description: codes.map((c) => `\`${c}\``).join(", "),
  content: {
    "application/json": {
      schema: {
        allOf: [
          { $ref: "#/components/schemas/Error" },
          { type: "object", properties: { error: { type: "string", enum: codes } } },
        ],
      },
    },
  },
  ...extra,
});

const RATE_LIMIT_HEADERS = {
  RateLimit: {
    description:
      'IETF RateLimit header (draft-ietf-httpapi-ratelimit-headers): the policy\'s remaining quota `r` and seconds to its reset `t`, e.g. `"authenticated";r=57;t=42`. Sent on every response of a rate-limited operation.',
    schema: { type: "string", example: '"authenticated";r=57;t=42' },
  },
  "RateLimit-Policy": {
    description:
      'IETF RateLimit-Policy header: the quota `q` per window of `w` seconds that applies to this request, e.g. `"authenticated";q=60;w=60`. Sent on every response of a rate-limited operation.',
    schema: { type: "string", example: '"authenticated";q=60;w=60' },
  },
  "Retry-After": {
    description: "Whole seconds to wait before retrying",
    schema: { type: "integer", minimum: 0, example: 30 },
  },
  ETag: {
    description:
      "Strong entity tag of the JSON body (the same for every content coding). Send it back as `If-None-Match`: an unchanged answer is 304 with no body, not counted against the rate limit.",
    schema: { type: "string", example: '"3q2-7wEAAAAAAAAAAAAAAAAAAAA"' },
  },
};
const headerRef = (name: keyof typeof RATE_LIMIT_HEADERS) => ({ $ref: `#/components/headers/${name}` });

const PROBES = new Set(["/health", "/health/live"]);

/** Every code an operation can answer with: from its access, its input, the platform and its own meta. */
export function operationErrorCodes(
  path: string,
  method: string,
  access: TAccess,
  declared: readonly TErrorCode[] = [],
): TErrorCode[] {
  const write = method !== "get";
  const authed = access.auth !== "public";
  // Any request can carry a hostile query string (or body): the input limits apply everywhere.
  const codes = new Set<TErrorCode>(["invalid_input"]);
  if (authed) codes.add("unauthenticated");
  if (authed && (access.plan || access.feature || access.auth !== "session"))
    codes.add("plan_upgrade_required");
  if (access.auth === "session") codes.add("session_required");
  if (access.auth === "partner") codes.add("partner_required");
  if (access.role) codes.add("forbidden");
  if (write) codes.add("csrf_rejected");
  // A `read`-scoped API key on anything but a GET (platform scopes.ts), public writes included.
  if (write) codes.add("insufficient_scope");
  if (path.includes("{")) codes.add("not_found");
  // An Idempotency-Key reused for another request, or still in flight.
  if (authed && method === "post") codes.add("conflict");
  if (write) {
    codes.add("payload_too_large");
    codes.add("unsupported_media_type");
  }
  if (!PROBES.has(path)) codes.add("rate_limited");
  codes.add("internal_error");
  // The database (or another required dependency) unreachable. Readiness reports it in its body.
  if (path !== "/health/live" && path !== "/health") codes.add("service_unavailable");
  for (const c of declared) codes.add(c);
  return [...codes];
}

/**
 * The generator describes tRPC's own error shape; the wire carries the contract's `{error,
 * message}`. This replaces every error response with the codes the operation can really return,
 * grouped by status.
 */
function contractResponses(path: string, method: string, op: TOperation, access: TAccess, meta: TMeta): void {
  const responses: Record<string, TResponseObject> = {};
  for (const [status, r] of Object.entries(op.responses ?? {}))
    if (status.startsWith("2")) responses[status] = r;
  const byStatus = new Map<number, TErrorCode[]>();
  for (const code of operationErrorCodes(path, method, access, meta.errors)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    responses[String(status)] = errorResponse(codes);
  }
  // Readiness answers 503 with its own body, naming the dependency that is down.
  const ok = responses["200"];
  if (path === "/health" && ok) responses["503"] = { ...ok, description: "Not ready: a dependency is down" };
  op.responses = responses;
}

/**
 * The limiter answers every request of a limited operation with `RateLimit-Policy` and
 * `RateLimit` (middleware/access.ts), successes and errors alike; a refusal (429) and an
 * unreachable dependency (503) add `Retry-After`.
 */
function documentLimitHeaders(path: string, op: TOperation): void {
  const limited = !PROBES.has(path);
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    const headers: Record<string, unknown> = { ...(response.headers as Record<string, unknown> | undefined) };
    if (limited) {
      headers.RateLimit = headerRef("RateLimit");
      headers["RateLimit-Policy"] = headerRef("RateLimit-Policy");
    }
    if (status === "429" || (status === "503" && limited)) headers["Retry-After"] = headerRef("Retry-After");
    if (Object.keys(headers).length > 0) response.headers = headers;
  }
}

const IF_NONE_MATCH_PARAMETER = {
  in: "header",
  name: "If-None-Match",
  required: false,
  description:
    "The `ETag` of an answer you hold (a list, `W/` tags and `*` are accepted): when the answer is unchanged it is 304 Not Modified with no body, and not counted against the rate limit.",
  schema: { type: "string" },
  // An entity tag, as the ETag header's example (the reference page's curl sample sends it).
  example: RATE_LIMIT_HEADERS.ETag.schema.example,
};

/**
 * Every JSON GET answers with an ETag and takes If-None-Match (middleware/conditional.ts):
 * the 200 names the header, a 304 is documented beside it; files (downloads) are not conditional.
 */
function documentConditional(method: string, op: TOperation, meta: TMeta): void {
  const ok = op.responses?.["200"];
  if (method !== "get" || meta.download || !ok || !op.responses) return;
  op.parameters = [...(op.parameters ?? []), IF_NONE_MATCH_PARAMETER];
  ok.headers = { ...(ok.headers as Record<string, unknown> | undefined), ETag: headerRef("ETag") };
  op.responses["304"] = {
    description:
      "Not Modified: the `If-None-Match` tag is the current one; no body, not counted against the rate limit",
    headers: { ETag: headerRef("ETag") },
  };
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

const BINARY = { schema: { type: "string", format: "binary" } };

/** A download's 200 carries its file types (and JSON when negotiable); declared errors are added. */
function documentDownload(op: TOperation, meta: TMeta): void {
  const responses = op.responses ?? {};
  if (meta.download) {
    const ok = responses["200"];
    const json = (ok?.content as Record<string, unknown> | undefined)?.["application/json"];
    const content: Record<string, unknown> = {};
    for (const type of meta.download.contentTypes) content[type] = BINARY;
    if (meta.download.negotiate && json) content["application/json"] = json;
    responses["200"] = {
      description: meta.download.negotiate
        ? "The file as an attachment, or JSON (while not ready, or when Accept prefers application/json)"
        : "The file, as an attachment (Content-Disposition)",
      content,
    };
  }
  op.responses = responses;
}

/**
 * A request body takes only its operation's fields: the gateway refuses any other top-level field
 * (rest-dispatch.ts) and the input schemas are strict below it, where the generator already writes
 * `additionalProperties: false`. Only the top level needs saying again: for an input with a
 * refinement or a transform the generator rebuilds the body as a plain object and loses it.
 */
function closeRequestBody(op: TOperation, input: unknown): void {
  const content = (op.requestBody as { content?: Record<string, { schema?: Record<string, unknown> }> })
    ?.content;
  if (!content || inputFieldNames(input) === null) return;
  for (const media of Object.values(content))
    if (media.schema?.type === "object") media.schema.additionalProperties = false;
}

/** Adds each operation's auth (security), plan and role from the procedure's access meta. */
function annotateAccess(doc: OpenAPIObject): OpenAPIObject {
  for (const { rest, meta, access, input } of routeCatalog(appRouter).rest) {
    if (!meta || !access) continue;
    const method = rest.method.toLowerCase();
    const op = (doc.paths?.[rest.path] as Record<string, TOperation> | undefined)?.[method];
    if (!op) continue;
    op.security = securityOf(access.auth, method);
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
    closeRequestBody(op, input);
    contractResponses(rest.path, method, op, access, meta);
    documentDownload(op, meta);
    moveSuccessStatus(op, meta);
    documentConditional(method, op, meta);
    documentLimitHeaders(rest.path, op);
  }
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schemas)) if (name.startsWith("error.")) delete schemas[name];
  schemas.Error = ERROR_SCHEMA;
  doc.components = { ...doc.components, schemas: schemas as never };
  return doc;
}

const PUBLIC_ACCESS: TAccess = { auth: "public" };
/** ticket-events.ts's Express route, relative to /api as every documented path. */
const TICKET_EVENTS_OPENAPI_PATH = "/integrations/ticketing/events/{hookId}";

/** The gateway's own documents, which are Express routes rather than procedures. */
function platformPaths(): Record<string, Record<string, TOperation & Record<string, unknown>>> {
  const op = (operationId: string, summary: string, description: string, type: string, schema: unknown) => {
    const o: TOperation & Record<string, unknown> = {
      operationId,
      summary,
      description,
      tags: ["platform"],
      security: [],
      "x-access": PUBLIC_ACCESS,
      responses: { "200": { description: "OK", content: { [type]: { schema } } } },
    };
    contractResponses("/openapi.json", "get", o, PUBLIC_ACCESS, {});
    documentLimitHeaders("/openapi.json", o);
    return o;
  };
  const hook: TOperation & Record<string, unknown> = {
    operationId: "integrations-ticketing-events-receive",
    summary: "Receive the issue tracker's signed webhook (Jira, GitHub Issues, Linear)",
    description:
      "The address `PUT /api/integrations/ticketing` answers as `webhookUrl`, for the tracker's webhook settings. No API key: the tracker's signature over the raw body is the credential, checked with the integration's `webhookSecret` in the configured provider's own scheme — Jira `X-Hub-Signature: sha256=<hex>`, GitHub `X-Hub-Signature-256: sha256=<hex>`, Linear `Linear-Signature: <hex>` with `webhookTimestamp` in the body within 60 s. An issue closed as won't do / not planned / canceled makes its finding ACCEPTED; reopened makes it OPEN again; closed as done flags the ticket (`closed:done`) and leaves the finding to the next scan (docs/integrators.md). 401 `unauthenticated` when unsigned or wrongly signed, 404 for an unknown hookId; a signed delivery about an issue that is not ours is 200 with `applied: false`.",
    tags: ["integrations"],
    security: [],
    "x-access": PUBLIC_ACCESS,
    parameters: [
      {
        in: "path",
        name: "hookId",
        required: true,
        description: "The integration's `hookId` (thk_…)",
        schema: { type: "string", minLength: 1, maxLength: 100 },
      },
      ...["X-Hub-Signature", "X-Hub-Signature-256", "Linear-Signature"].map((name) => ({
        in: "header" as const,
        name,
        required: false,
        schema: { type: "string" },
        description: "The configured tracker's signature header (only that provider's counts)",
      })),
    ],
    requestBody: {
      required: true,
      description:
        "The tracker's event, as it sends it (JSON of the tracker's own shape, so not closed like the API's bodies); signed byte for byte.",
      content: {
        "application/json": {
          schema: {
            description: "A Jira, GitHub or Linear issue event",
            example: {
              webhookEvent: "jira:issue_updated",
              issue: { key: "SEC-1", fields: { status: { statusCategory: { key: "done" } } } },
            },
          },
        },
      },
    },
    responses: {
      "200": {
        description: "Received",
        content: {
          "application/json": {
            schema: {
              type: "object",
              properties: {
                received: { type: "boolean", enum: [true] },
                applied: { type: "boolean" },
                findingId: { type: ["string", "null"] },
                trackerState: { type: ["string", "null"], enum: ["done", "declined", "reopened", null] },
                findingStatus: { type: ["string", "null"], enum: ["OPEN", "ACCEPTED", "RESOLVED", null] },
              },
              required: ["received", "applied", "findingId", "trackerState", "findingStatus"],
            },
          },
        },
      },
    },
  };
  contractResponses(TICKET_EVENTS_OPENAPI_PATH, "post", hook, PUBLIC_ACCESS, {
    errors: ["unauthenticated", "not_found"],
  });
  documentLimitHeaders(TICKET_EVENTS_OPENAPI_PATH, hook);
  return {
    [TICKET_EVENTS_OPENAPI_PATH]: { post: hook },
    "/openapi.json": {
      get: op(
        "platform-openApiDocument",
        "This OpenAPI document",
        "The OpenAPI 3 document of every REST operation, generated from the routers.",
        "application/json",
        { type: "object" },
      ),
    },
    "/docs": {
      get: op(
        "platform-docs",
        "API reference page",
        "An HTML page rendering this document (Scalar API reference, served from this origin).",
        "text/html",
        { type: "string" },
      ),
    },
  };
}

const CORS_AND_BROWSERS =
  "**Browsers and CORS.** The API sends no CORS headers (`Access-Control-Allow-Origin` and the rest) " +
  "and answers a preflight `OPTIONS` with 405 `method_not_allowed`; responses carry " +
  "`Cross-Origin-Resource-Policy: same-origin`. A page on another origin therefore cannot read its " +
  "responses: call it from a server, or from pages served by the service's own origin. A " +
  "cookie-authenticated POST, PATCH, PUT or DELETE whose `Origin` (or, without one, `Sec-Fetch-Site`) " +
  "names another site is refused with 403 `csrf_rejected`, except from the origins the operator lists " +
  "in `ALLOWED_ORIGINS` (which does not enable CORS); API-key requests are not subject to that check.";

const RATE_LIMITS =
  "**Rate limits.** Requests are limited per client IP: 60/min signed in or with an API key, 20/min " +
  "anonymous; sign-in 10/min per IP and per e-mail; compliance report exports 5/hour per organization. " +
  "Every response of a limited operation carries the IETF `RateLimit-Policy` and `RateLimit` headers; a " +
  "refusal is 429 `rate_limited` with `Retry-After` in whole seconds. The health probes are not limited.";

const CONDITIONAL_REQUESTS =
  "**Conditional requests.** Every JSON GET answers with an `ETag` (a strong tag of the body) and " +
  "`Cache-Control: private, no-cache`; the same GET with `If-None-Match` of the current tag answers " +
  "304 Not Modified with no body, and a 304 is not counted against the rate limit. JSON bodies over " +
  "1 kB are compressed (gzip or br) when `Accept-Encoding` allows; the tag is that of the uncompressed " +
  "body, whatever the coding.";

const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/** Calls `visit` on every object below `node` (iteratively: documents nest deeply). */
function eachObject(node: unknown, visit: (o: Record<string, unknown>) => void): void {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const n = stack.pop();
    if (Array.isArray(n)) stack.push(...n);
    else if (n !== null && typeof n === "object") {
      const o = n as Record<string, unknown>;
      visit(o);
      stack.push(...Object.values(o));
    }
  }
}

/**
 * zod writes ±2^53−1 as the bounds of every `.int()`, which renderers then show as example values
 * (`-9007199254740991` for a count); a bound that only restates the safe-integer range says
 * nothing and goes.
 */
function dropSafeIntegerBounds(node: unknown): void {
  eachObject(node, (o) => {
    for (const k of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])
      if (typeof o[k] === "number" && Math.abs(o[k]) >= SAFE_INTEGER) delete o[k];
  });
}

/**
 * Requests stay strict, as declared; what the service sends (responses, webhook payloads) stays open:
 * fields are added without notice (spec: clients ignore unknown fields), so no schema of it may
 * say `additionalProperties: false`, or a client that validates responses breaks on the first
 * new field. The runtime output validation is unchanged (it strips, it never leaks).
 */
function openSchemas(node: unknown): void {
  eachObject(node, (o) => {
    if (o.additionalProperties === false) delete o.additionalProperties;
  });
}

export function buildOpenApiDocument(publicUrl: string): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: "Security Posture Developer API",
    version: "1",
    description: [
      "One API over an organization's SaaS security posture. Errors are `{error, message}` (the `Error` schema); " +
        "each operation lists the codes it can return. A known path called with another method answers 405 " +
        "`method_not_allowed` with an `Allow` header. Bodies are JSON objects of at most 100 kB, nested at most " +
        "32 levels, with no NUL characters or unpaired surrogates in any string; values are never coerced (a " +
        "boolean is `true` or `false`, in a query string too). Requests are strict: a body field or query " +
        "parameter the operation does not take, at any depth, is 400 `invalid_input` with `details` naming it " +
        "(request bodies say `additionalProperties: false`). Responses are open and may gain fields at any " +
        "time: ignore the ones you do not use. The events sent to webhook subscriptions, with their data fields and " +
        "signature headers, are listed under `webhooks`.",
      RATE_LIMITS,
      CONDITIONAL_REQUESTS,
      CORS_AND_BROWSERS,
      // The getting-started guides (docs/guides/), which the reference page renders first.
      GUIDES_MARKDOWN,
    ].join("\n\n"),
    baseUrl: `${publicUrl.replace(/\/$/, "")}/api`,
    securitySchemes: {
      apiKey: {
        type: "http",
        scheme: "bearer",
        description:
          '`Authorization: Bearer svc_ak_…`. Each operation names the key scope it needs: `read` (GET operations) or `write` (all others). A key created with `scopes: ["read"]` is refused anything else with 403 `insufficient_scope`; a key created without scopes holds both.',
      },
      session: {
        type: "apiKey",
        in: "cookie",
        name: "svc_session",
        description: "Signed-in browser session",
      },
    },
  });
  const annotated = annotateAccess(doc);
  annotated.paths = { ...annotated.paths, ...(platformPaths() as OpenAPIObject["paths"]) };
  annotated.components = { ...annotated.components, headers: RATE_LIMIT_HEADERS as never };
  // What the service POSTs to subscribers: one entry per event type (OpenAPI 3.1 `webhooks`).
  // The receiver authenticates a delivery by its signature header, not by a credential of ours.
  const webhooks = webhookDocuments() as Record<string, Record<string, Record<string, unknown>>>;
  for (const item of Object.values(webhooks)) for (const op of Object.values(item)) op.security = [];
  const full: OpenAPIObject = { ...annotated, webhooks: webhooks as OpenAPIObject["webhooks"] };
  for (const item of Object.values(full.paths ?? {}))
    for (const op of Object.values(item ?? {}) as TOperation[]) openSchemas(op.responses);
  openSchemas(full.webhooks);
  dropSafeIntegerBounds(full);
  addExamples(full);
  full.tags = [
    ...new Set(
      [...Object.values(full.paths ?? {}), ...Object.values(full.webhooks ?? {})].flatMap((item) =>
        Object.values(item ?? {}).flatMap((op) => (op as { tags?: string[] }).tags ?? []),
      ),
    ),
  ]
    .sort()
    .map((name) => ({ name }));
  return full;
}

const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

/** Every path (relative to /api) and its methods, from the document: what the 405 handler knows. */
export function routeTable(doc: OpenAPIObject): TRouteTable {
  const table: TRouteTable = Object.entries(doc.paths ?? {}).map(([path, item]) => ({
    path,
    methods: Object.keys(item ?? {})
      .filter((m) => METHODS.includes(m))
      .map((m) => m.toUpperCase()),
  }));
  return [...table, ...DOCS_ASSET_ROUTES];
}

/** One document per process, built at first use. */
export function openApiDocument(deps: TGatewayDeps): () => { doc: OpenAPIObject; json: string } {
  let cached: { doc: OpenAPIObject; json: string } | undefined;
  return () => {
    if (!cached) {
      const doc = buildOpenApiDocument(deps.runtime.publicUrl);
      cached = { doc, json: JSON.stringify(doc) };
    }
    return cached;
  };
}

export function openApiRoutes(document: () => { json: string }): Router {
  const r = Router();
  r.get("/openapi.json", (_req: Request, res: Response) => {
    res.type("application/json").send(document().json);
  });
  return r;
}
