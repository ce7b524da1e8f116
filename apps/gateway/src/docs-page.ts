import type { OpenAPIObject } from "trpc-to-openapi";
import { ERROR_STATUS, type TAccess } from "@posture/platform";

const escape = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

/** Escaped text with the `backtick` spans of the descriptions shown as code. */
const inline = (s: string) => escape(s).replace(/`([^`]+)`/g, "<code>$1</code>");

type TSchema = Record<string, unknown>;
type TParam = { name: string; in: string; required?: boolean; description?: string; schema?: TSchema };
type TMedia = { content?: Record<string, { schema?: TSchema }> };
type TOp = {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: TParam[];
  requestBody?: TMedia;
  responses?: Record<string, TMedia & { description?: string }>;
  "x-access"?: TAccess;
};

const MAX_DEPTH = 8;

function bounds(min: unknown, max: unknown): string {
  const lo = typeof min === "number" && min > Number.MIN_SAFE_INTEGER ? min : undefined;
  const hi = typeof max === "number" && max < Number.MAX_SAFE_INTEGER ? max : undefined;
  if (lo === undefined && hi === undefined) return "";
  return ` (${lo ?? ""}..${hi ?? ""})`;
}

/**
 * A TypeScript-like rendering of a JSON schema: `{ name: string (1..80); expiresInDays?: integer }`.
 * Compact enough to read at a glance; the JSON document stays the exact reference.
 */
export function renderSchema(s: TSchema | undefined, doc: OpenAPIObject, depth = 0, indent = ""): string {
  if (!s) return "unknown";
  if (depth > MAX_DEPTH) return "…";
  const next = (x: unknown) => renderSchema(x as TSchema, doc, depth + 1, indent);
  if (typeof s.$ref === "string") {
    const name = s.$ref.split("/").pop() ?? s.$ref;
    const target = (doc.components?.schemas as Record<string, TSchema> | undefined)?.[name];
    return target && depth < 2 ? renderSchema(target, doc, depth + 1, indent) : name;
  }
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  for (const [key, sep] of [
    ["anyOf", " | "],
    ["oneOf", " | "],
    ["allOf", " & "],
  ] as const) {
    if (Array.isArray(s[key])) return (s[key] as unknown[]).map(next).join(sep);
  }
  const dflt = s.default !== undefined ? ` = ${JSON.stringify(s.default)}` : "";
  if (Array.isArray(s.type)) {
    return s.type.map((t) => renderSchema({ ...s, type: t }, doc, depth + 1, indent)).join(" | ");
  }
  switch (s.type) {
    case "object": {
      const props = (s.properties ?? {}) as Record<string, TSchema>;
      const required = new Set((s.required ?? []) as string[]);
      const inner = `${indent}  `;
      const lines = Object.entries(props).map(
        ([k, v]) => `${inner}${k}${required.has(k) ? "" : "?"}: ${renderSchema(v, doc, depth + 1, inner)}`,
      );
      if (s.additionalProperties && typeof s.additionalProperties === "object") {
        lines.push(
          `${inner}[key: string]: ${renderSchema(s.additionalProperties as TSchema, doc, depth + 1, inner)}`,
        );
      }
      return lines.length > 0 ? `{\n${lines.join("\n")}\n${indent}}` : "{}";
    }
    case "array":
      return `Array<${next(s.items)}>${bounds(s.minItems, s.maxItems)}`;
    case "string":
      return `string${s.format ? ` <${String(s.format)}>` : ""}${bounds(s.minLength, s.maxLength)}${dflt}`;
    case "integer":
    case "number":
      return `${s.type}${bounds(s.minimum, s.maximum)}${dflt}`;
    default:
      return typeof s.type === "string" ? s.type : "unknown";
  }
}

function accessLine(a: TAccess | undefined): string {
  if (!a) return "";
  const auth = {
    public: "Public",
    apiKey: "API key or session",
    session: "Session only",
    partner: "Partner",
  }[a.auth];
  const parts = [`<b>Auth</b> ${auth}`];
  if (a.plan) parts.push(`<b>Plan</b> ${escape(a.plan)}+`);
  if (a.feature) parts.push(`<b>Needs</b> ${escape(a.feature)}`);
  if (a.role) parts.push(`<b>Role</b> ${a.role === "ADMIN" ? "ADMIN or OWNER" : escape(a.role)}`);
  return `<p class="access">${parts.join(" · ")}</p>`;
}

const jsonSchemaOf = (m: TMedia | undefined) => m?.content?.["application/json"]?.schema;

function renderOperation(doc: OpenAPIObject, method: string, path: string, op: TOp): string {
  const id = `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, "-");
  const out = [
    `<section id="${id}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>/api${escape(path)}</code></h3>`,
    `<p class="summary">${escape(op.summary ?? "")}</p>`,
    accessLine(op["x-access"]),
  ];
  // The last paragraph of the description is the access line, shown above from x-access.
  const paragraphs = (op.description ?? "").split("\n\n").filter(Boolean);
  if (op["x-access"]) paragraphs.pop();
  for (const p of paragraphs) out.push(`<p>${inline(p)}</p>`);
  if (op.parameters && op.parameters.length > 0) {
    const rows = op.parameters.map(
      (p) =>
        `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${p.required ? "yes" : ""}</td>` +
        `<td><code>${escape(renderSchema(p.schema, doc))}</code>${p.description ? ` ${inline(p.description)}` : ""}</td></tr>`,
    );
    out.push(
      `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>required</th><th>type</th></tr>${rows.join("")}</table>`,
    );
  }
  const body = jsonSchemaOf(op.requestBody);
  if (body) out.push(`<h4>Request body</h4><pre>${escape(renderSchema(body, doc))}</pre>`);
  const responses = Object.entries(op.responses ?? {});
  const ok = responses.filter(([s]) => s.startsWith("2"));
  for (const [status, r] of ok) {
    out.push(`<h4>Response ${escape(status)}</h4><pre>${escape(renderSchema(jsonSchemaOf(r), doc))}</pre>`);
  }
  const errors = responses.filter(([s]) => !s.startsWith("2"));
  if (errors.length > 0) {
    const items = errors.map(([s, r]) => `<li><b>${escape(s)}</b> ${inline(r.description ?? "")}</li>`);
    out.push(`<h4>Errors</h4><ul class="errors">${items.join("")}</ul>`);
  }
  out.push("</section>");
  return out.join("\n");
}

const ERROR_TABLE = Object.entries(ERROR_STATUS)
  .map(([code, status]) => `<tr><td>${status}</td><td><code>${code}</code></td></tr>`)
  .join("");

/** A self-contained reference page (no CDN: it must render on an air-gapped network). */
export function renderDocsPage(doc: OpenAPIObject): string {
  const ops: Array<{ tag: string; method: string; path: string; op: TOp }> = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, TOp>)) {
      ops.push({ tag: op.tags?.[0] ?? "other", method, path, op });
    }
  }
  const tags = [...new Set(ops.map((o) => o.tag))];
  const toc = tags
    .map((tag) => {
      const links = ops
        .filter((o) => o.tag === tag)
        .map(
          (o) =>
            `<li><a href="#${`${o.method}-${o.path}`.replace(/[^a-zA-Z0-9]+/g, "-")}"><span class="m ${o.method}">${o.method.toUpperCase()}</span> /api${escape(o.path)}</a></li>`,
        );
      return `<li>${escape(tag)}<ul>${links.join("")}</ul></li>`;
    })
    .join("");
  const sections = tags
    .map(
      (tag) =>
        `<h2>${escape(tag)}</h2>` +
        ops
          .filter((o) => o.tag === tag)
          .map((o) => renderOperation(doc, o.method, o.path, o.op))
          .join("\n"),
    )
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(doc.info.title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{font:15px/1.45 system-ui,sans-serif;max-width:980px;margin:2rem auto;padding:0 1rem;color:#1b1f24}
section{border-top:1px solid #ddd;padding:.5rem 0 1rem}.m{display:inline-block;min-width:4.2rem;font:600 13px monospace}
.get{color:#0a7}.post{color:#07c}.delete{color:#c22}.patch,.put{color:#a60}h4{margin:.8rem 0 .3rem}
pre{background:#f6f8fa;padding:.6rem;overflow:auto;font-size:13px}table{border-collapse:collapse;font-size:14px}
td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}.access{color:#444}
nav ul{list-style:none;padding-left:1rem}nav a{text-decoration:none}</style>
</head><body><h1>${escape(doc.info.title)}</h1><p>${inline(doc.info.description ?? "")}</p>
<p>Base address: <code>${escape(doc.servers?.[0]?.url ?? "/api")}</code>. Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a>.</p>
<h2>Authentication</h2><p>API key: <code>Authorization: Bearer svc_ak_…</code> (business and enterprise plans).
Session: the <code>svc_session</code> cookie of a signed-in browser; cookie-authenticated writes must come from the same site.</p>
<h2>Errors</h2><p>Every error is <code>{"error": "&lt;code&gt;", "message": "…"}</code>; clients ignore unknown fields.</p>
<table><tr><th>status</th><th>code</th></tr>${ERROR_TABLE}</table>
<h2>Operations</h2><nav><ul>${toc}</ul></nav>
${sections}</body></html>`;
}
