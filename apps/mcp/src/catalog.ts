/**
 * The MCP tools and resources, generated from the service's OpenAPI document (itself generated
 * from the routers' procedure meta): one read tool per GET operation an API key may call in the
 * areas an assistant reads, the two planning writes, and a resource template per download.
 */

type TJson = Record<string, unknown>;

export type TAccess = {
  auth: "public" | "apiKey" | "session" | "partner";
  role?: "ADMIN" | "OWNER";
  plan?: string;
  feature?: string;
};

type TParameter = {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  description?: string;
  schema?: TJson;
};

type TOperationObject = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<TParameter | { $ref: string }>;
  requestBody?: { content?: Record<string, { schema?: TJson }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
  "x-access"?: TAccess;
};

export type TOpenApiDocument = {
  info?: { version?: string };
  paths?: Record<string, Record<string, unknown> | undefined>;
  components?: Record<string, Record<string, unknown> | undefined>;
};

/** One REST operation as the dispatchers need it. */
export type TOperation = {
  /** The tRPC procedure key (`findings.list`), from the operationId (`findings-list`). */
  key: string;
  method: "GET" | "POST";
  /** The REST path under /api, with `{param}` placeholders. */
  path: string;
  pathParams: string[];
  queryParams: string[];
};

export type TTool = {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, TJson>; required?: string[] } & TJson;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  /** What its procedure is: a query reads; a mutation (even one that writes nothing) needs a key's `write` scope. */
  kind: TProcedureKind;
  op: TOperation;
};

export type TResourceTemplate = {
  name: string;
  title: string;
  description: string;
  /** RFC 6570: `posture://incidents/{id}/export`, `posture://compliance/gap-report{?period}`. */
  uriTemplate: string;
  mimeType: string;
  op: TOperation;
};

export type TCatalog = { tools: TTool[]; resources: TResourceTemplate[] };

/**
 * The areas an assistant reads, by the REST path's first segment: findings, posture, inventory,
 * sharing, agents (agent-guard), timeline, incidents, behaviour (behavior), compliance and the
 * partner portfolio, plus the reports an API serves as downloads.
 */
export const READ_AREAS: ReadonlySet<string> = new Set([
  "findings",
  "posture",
  "inventory",
  "sharing",
  "agent-guard",
  "timeline",
  "incidents",
  "behavior",
  "compliance",
  "partner",
  "reports",
]);

/** What tRPC says a procedure is: a query reads, a mutation may write. */
export type TProcedureKind = "query" | "mutation";

/** What a mutation that is a tool writes, by what its service does (packages/remediation, packages/partner). */
export type TWriteEffect = {
  /**
   * `nothing`: computes and answers, stores nothing. `plans`: inserts PLANNED remediations (with
   * their steps, audit rows and events) and nothing else: no row is changed or removed, and
   * nothing reaches a tenant until a person approves and applies the plan in the product.
   */
  writes: "nothing" | "plans";
  /** What the tool description adds, so the assistant knows what the call leaves behind. */
  note?: string;
};

/**
 * The only mutations that are tools, and what each writes; nothing that approves, applies, undoes,
 * deletes, or creates keys, webhooks, tickets or incidents is ever one. A remediation plan is
 * created PLANNED and applies nothing (a person approves and applies it); a simulation changes
 * nothing; a partner's action plans one such remediation in each affected client, each approved
 * by that client.
 */
export const WRITE_TOOLS: ReadonlyMap<string, TWriteEffect> = new Map<string, TWriteEffect>([
  [
    "POST /remediations",
    {
      writes: "plans",
      note: "Plans only: the plan is created PLANNED and nothing is applied; a person approves and applies it in the product.",
    },
  ],
  ["POST /posture/simulate", { writes: "nothing" }],
  [
    "POST /partner/actions",
    {
      writes: "plans",
      note: "Plans only: one PLANNED remediation in each affected client, which that client's approvers approve and apply; nothing is applied by the call.",
    },
  ],
]);

export type TAnnotations = TTool["annotations"];

/**
 * A tool's annotations, from what its procedure does. A query reads: read-only. A mutation is
 * read-only only when it writes nothing (a simulation); one that plans writes (readOnlyHint
 * false), only adds rows (destructiveHint false), adds more with each call (idempotentHint false:
 * a second call is a second plan). No tool reaches outside the service: reads answer from the
 * stored scans, and a plan touches no tenant until a person applies it, so openWorldHint is false.
 */
export function annotationsOf(kind: TProcedureKind, effect?: TWriteEffect): TAnnotations {
  const writes = kind === "mutation" && effect?.writes !== "nothing";
  return {
    readOnlyHint: !writes,
    destructiveHint: false,
    idempotentHint: !writes,
    openWorldHint: false,
  };
}

/**
 * The procedure kind of an operation when only the OpenAPI document is known (the stdio server):
 * the REST method, GET for queries; the gateway knows its procedures and passes their own kind.
 */
const kindFromMethod = (op: TOperation): TProcedureKind => (op.method === "GET" ? "query" : "mutation");

export const RESOURCE_SCHEME = "posture";

const JSON_TYPE = "application/json";

/** The credential kinds MCP acts as: an API key (of a partner organization for partner paths). */
const API_KEY_AUTH = new Set(["apiKey", "partner"]);

function deref(doc: TOpenApiDocument, value: unknown, seen: Set<string> = new Set()): unknown {
  if (Array.isArray(value)) return value.map((v) => deref(doc, v, seen));
  if (!value || typeof value !== "object") return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === "string" && ref.startsWith("#/components/")) {
    if (seen.has(ref)) return {}; // a recursive schema: left open rather than unrolled
    const [, , section, name] = ref.split("/");
    const target = section && name ? doc.components?.[section]?.[name] : undefined;
    return deref(doc, target ?? {}, new Set([...seen, ref]));
  }
  const out: TJson = {};
  for (const [k, v] of Object.entries(value)) out[k] = deref(doc, v, seen);
  return out;
}

/** The content types of an operation's success response. */
function successTypes(op: TOperationObject): string[] {
  const ok = op.responses?.["200"] ?? op.responses?.["201"] ?? op.responses?.["202"];
  return Object.keys(ok?.content ?? {});
}

function accessLine(access: TAccess): string {
  const parts = [access.auth === "partner" ? "a partner organization's API key" : "API key"];
  if (access.plan) parts.push(`plan ${access.plan}+`);
  if (access.feature) parts.push(`the ${access.feature} feature`);
  parts.push(access.role ? `role ${access.role === "OWNER" ? "OWNER" : "ADMIN+"}` : "any role");
  return `Access: ${parts.join(", ")}.`;
}

const titleOf = (op: TOperationObject, fallback: string) => op.summary ?? fallback;

/**
 * Builds the catalog; operations outside the rules above are left out, whatever the document adds.
 * `kindOf` says what the procedure behind an operation is (tRPC's query or mutation); without it,
 * or for a key it does not know, the method says. A mutation is a tool only when WRITE_TOOLS
 * names it, whatever its method, so a write never slips in as a read.
 */
export function buildCatalog(
  doc: TOpenApiDocument,
  opts: { kindOf?: (key: string) => TProcedureKind | undefined } = {},
): TCatalog {
  const tools: TTool[] = [];
  const resources: TResourceTemplate[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const area = path.split("/")[1] ?? "";
    for (const [lower, raw] of Object.entries(item ?? {})) {
      const method = lower.toUpperCase();
      if (method !== "GET" && method !== "POST") continue;
      const effect = WRITE_TOOLS.get(`${method} ${path}`);
      if (!READ_AREAS.has(area) && !effect) continue;
      const op = deref(doc, raw) as TOperationObject;
      const access = op["x-access"];
      if (!op.operationId || !access || !API_KEY_AUTH.has(access.auth)) continue;
      const write = method === "POST";
      if (write && !effect) continue;
      const params = (op.parameters ?? []).filter((p): p is TParameter => "name" in p);
      const key = op.operationId.replace(/-/g, ".");
      const operation: TOperation = {
        key,
        method,
        path,
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        queryParams: params.filter((p) => p.in === "query").map((p) => p.name),
      };
      const kind = opts.kindOf?.(key) ?? kindFromMethod(operation);
      if (kind === "mutation" && !effect) continue;
      const types = successTypes(op);
      const file = types.find((t) => t !== JSON_TYPE);
      const description = [op.description, accessLine(access)].filter(Boolean).join("\n\n");
      if (!write && file) {
        const query = operation.queryParams.length > 0 ? `{?${operation.queryParams.join(",")}}` : "";
        resources.push({
          name: key.replace(/\./g, "_"),
          title: titleOf(op, key),
          description,
          uriTemplate: `${RESOURCE_SCHEME}:/${path}${query}`,
          mimeType: file,
          op: operation,
        });
        continue;
      }
      const properties: Record<string, TJson> = {};
      const required: string[] = [];
      for (const p of params) {
        if (p.in !== "path" && p.in !== "query") continue;
        properties[p.name] = { ...p.schema, ...(p.description ? { description: p.description } : {}) };
        if (p.required || p.in === "path") required.push(p.name);
      }
      const body = op.requestBody?.content?.[JSON_TYPE]?.schema;
      if (write && body) {
        const b = body as { properties?: Record<string, TJson>; required?: string[] };
        Object.assign(properties, b.properties ?? {});
        required.push(...(b.required ?? []));
      }
      tools.push({
        name: key.replace(/\./g, "_"),
        title: titleOf(op, key),
        description: effect?.note ? `${description}\n\n${effect.note}` : description,
        inputSchema: {
          type: "object",
          properties,
          ...(required.length > 0 ? { required: [...new Set(required)] } : {}),
          additionalProperties: false,
        },
        annotations: annotationsOf(kind, effect),
        kind,
        op: operation,
      });
    }
  }
  tools.sort((a, b) => a.name.localeCompare(b.name));
  resources.sort((a, b) => a.name.localeCompare(b.name));
  return { tools, resources };
}

/** A REST path with its parameters filled in, each percent-encoded. */
export function fillPath(op: TOperation, args: Record<string, unknown>): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(args[name] ?? "")));
}

/**
 * Whether an API key with these scopes may call a tool (the service's rule, scopes.ts in
 * @posture/platform): null is an unscoped key (its owner's full role); `write` allows everything;
 * `read` only queries. The stdio server lists tools with it, as the gateway's /mcp does.
 */
export function scopesAllowTool(scopes: readonly string[] | null, tool: Pick<TTool, "kind">): boolean {
  if (scopes === null) return true;
  if (scopes.includes("write")) return true;
  return tool.kind === "query" && scopes.includes("read");
}
