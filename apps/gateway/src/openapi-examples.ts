import type { OpenAPIObject } from "trpc-to-openapi";
import { PLANS } from "@posture/platform";

/**
 * Examples for the reference page. Without one, a renderer makes its own from the schema, and
 * those contradict it (`limit: 0` under `minimum: 1`, `"string"` for a timestamp, a record shown
 * as `{additionalProperty: …}`, a free plan with every feature on). Each operation's JSON request
 * body, query and path parameters and JSON responses get an example made here from its schema:
 * a valid instance (openapi-examples.test.ts validates every one against its schema), plausible
 * by the field's name, with the few answers whose fields depend on each other written out.
 */

type TSchema = Record<string, unknown>;

const AT = "2026-03-02T09:30:00.000Z";

/** Plausible values by field name: the first whose pattern matches the (lower-cased) name wins. */
const STRING_BY_NAME: Array<[RegExp, string]> = [
  [/email|assignee|owner$|^actor$/, "owner@acme.example"],
  [/domain/, "payroll-partner.example"],
  [/^(org|organization)id$|^orgid/, "org_01hqz8k3v4m5n6p7q8r9s0t1u2"],
  [/connectorid/, "con_01hqz8k3v4m5n6p7q8r9s0t1u2"],
  [/findingid/, "fnd_01hqz8k3v4m5n6p7q8r9s0t1u2"],
  [/scanid/, "scn_01hqz8k3v4m5n6p7q8r9s0t1u2"],
  [/incidentid/, "inc_01hqz8k3v4m5n6p7q8r9s0t1u2"],
  [/remediationid/, "rem_01hqz8k3v4m5n6p7q8r9s0t1u2"],
  [/ruleid/, "public_link"],
  [/^grade$/, "C"],
  [/^mode$/, "demo"],
  [/^id$|id$/, "id_01hqz8k3v4m5n6p7q8r9s0t1u2"],
  [/color|colour/, "#1F6FEB"],
  [/week/, "2026-W09"],
  [/title|summary/, "Public link on a finance spreadsheet"],
  [/^name$|displayname|label/, "Acme Google Workspace"],
  [/resourcename/, "Q1 payroll.xlsx"],
  [/url|link|href/, "https://posture.example/findings/fnd_01hqz8k3v4m5n6p7q8r9s0t1u2"],
  [/message|description|reason|note|detail/, "Shared with anyone holding the link"],
  [/cursor|before|after/, AT],
  [/version/, "1.3.0"],
  [/key$/, "svc_ak_2f8c1e0b7d6a4c3b9e5f1a0d8c7b6e5f"],
  [/status|state/, "ok"],
  [/connectortype|sourcetype|^type$|provider/, "google_workspace"],
  [/categor/, "public_exposure"],
  [/ruleid|rule$/, "public_link"],
  [/framework/, "soc2"],
  [/severity/, "HIGH"],
  [
    /cause|lesson|fix|expected|observed|text|body|content/,
    "Link sharing on the finance drive was set to public",
  ],
  [/principal|user/, "j.doe@acme.example"],
  [/action/, "REVOKE_PUBLIC_LINK"],
];

/** A nullable field named so is shown as null (an open finding has not resolved, a last page has no next one). */
const NULL_BY_NAME =
  /resolved|closed|ended|deleted|revoked|withdrawn|error|failed|^next|grace|cancel|undone|replaced/i;

const INTEGER_BY_NAME: Array<[RegExp, number]> = [
  [/delta|change/, 5],
  [/score/, 72],
  [/pages/, 1],
  [/offset|page$/, 0],
  [/limit|max|per/, 50],
  [/day/, 30],
  [/percent|pct|rate/, 40],
  [/ms$|millis|duration/, 120],
  [/bytes|size/, 24_576],
  [/year/, 2026],
  [/count|total|used|new|resolved|open|critical|high|medium|low|findings|resources/, 12],
];

/** Preferred enum values by field name, when the schema offers them. */
const ENUM_BY_NAME: Array<[RegExp, string[]]> = [
  [/plan/, ["business"]],
  [/severity/, ["HIGH"]],
  [/status/, ["OPEN", "COMPLETE", "ACTIVE", "ok", "READY"]],
  [/role/, ["admin"]],
];

/** Answers whose fields hang together (a plan and its features): written out, checked like the rest. */
const RESPONSE_EXAMPLES: Record<string, unknown> = {
  "get /health": { status: "ok", time: AT, checks: { database: "ok", redis: "ok" } },
  // A business organization with 2 of its sources and 7 of its daily scans used: its plan's own limits.
  "get /usage": {
    plan: "business",
    inGrace: false,
    graceEndsAt: null,
    sources: { used: 2, max: PLANS.business.sourcesMax },
    scans: { usedToday: 7, maxPerDay: PLANS.business.scansPerDay },
    features: PLANS.business.features,
  },
};

type TCtx = { doc: OpenAPIObject; depth: number };

function resolve(s: TSchema, ctx: TCtx): TSchema {
  let cur = s;
  for (let i = 0; i < 10 && typeof cur.$ref === "string"; i++) {
    const name = cur.$ref.split("/").pop() ?? "";
    cur = ((ctx.doc.components?.schemas ?? {}) as Record<string, TSchema>)[name] ?? {};
  }
  return cur;
}

const pick = <T>(table: Array<[RegExp, T]>, name: string): T | undefined =>
  table.find(([re]) => re.test(name.toLowerCase()))?.[1];

function stringExample(s: TSchema, name: string): string {
  const pattern = typeof s.pattern === "string" ? new RegExp(s.pattern, "u") : null;
  const candidates: string[] = [];
  if (s.format === "date-time") candidates.push(AT);
  if (s.format === "date") candidates.push(AT.slice(0, 10));
  if (s.format === "email") candidates.push("owner@acme.example");
  if (s.format === "uri") candidates.push("https://hooks.acme.example/posture");
  // The field's own description names a value ("e.g. `CIS Google Workspace Foundations`"): it
  // knows better than the field's name does.
  const named = typeof s.description === "string" ? /e\.g\. `([^`]+)`/.exec(s.description)?.[1] : undefined;
  if (named && !s.format) candidates.push(named);
  const byName = pick(STRING_BY_NAME, name);
  if (byName) candidates.push(byName);
  if (!pattern && !s.format) candidates.push(humanized(name));
  candidates.push(
    AT,
    AT.slice(0, 10),
    "owner@acme.example",
    "payroll-partner.example",
    "#1F6FEB",
    "2026-W09",
    "file_01hqz8k3v4m5n6p7q8r9s0t1u2|public",
    "example",
  );
  const min = typeof s.minLength === "number" ? s.minLength : 0;
  const max = typeof s.maxLength === "number" ? s.maxLength : Infinity;
  for (const c of candidates) {
    const v = c.length < min ? c.padEnd(min, "x") : c.slice(0, max);
    if (!pattern || pattern.test(v)) return v;
  }
  return "example".padEnd(min, "x").slice(0, max);
}

function numberExample(s: TSchema, name: string, integer: boolean): number {
  const min =
    typeof s.minimum === "number"
      ? s.minimum
      : typeof s.exclusiveMinimum === "number"
        ? s.exclusiveMinimum + (integer ? 1 : 0.5)
        : -Infinity;
  const max =
    typeof s.maximum === "number"
      ? s.maximum
      : typeof s.exclusiveMaximum === "number"
        ? s.exclusiveMaximum - (integer ? 1 : 0.5)
        : Infinity;
  let v = pick(INTEGER_BY_NAME, name) ?? 3;
  if (/score/.test(name.toLowerCase()) && max <= 1) v = 0.72;
  v = Math.min(Math.max(v, min), max);
  if (integer) v = Math.ceil(v) > max ? Math.floor(v) : Math.ceil(v);
  if (typeof s.multipleOf === "number") v = Math.ceil(v / s.multipleOf) * s.multipleOf;
  return v;
}

/** An example instance of `schema`; `name` is the field it is the value of (for plausibility). */
export function exampleOf(schema: unknown, name: string, ctx: TCtx): unknown {
  const s = resolve((schema ?? {}) as TSchema, ctx);
  if ("example" in s) return s.example;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ("const" in s) return s.const;
  if ("default" in s && s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length > 0) {
    const preferred = pick(ENUM_BY_NAME, name)?.find((v) => (s.enum as unknown[]).includes(v));
    return preferred ?? s.enum[0];
  }
  if (ctx.depth > 24) return null;
  const inner = { ...ctx, depth: ctx.depth + 1 };
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = s[key];
    if (Array.isArray(options)) {
      const nonNull = (options as TSchema[]).filter((o) => resolve(o, ctx).type !== "null");
      if (nonNull.length < options.length && NULL_BY_NAME.test(name)) return null;
      return exampleOf(nonNull[0] ?? options[0], name, inner);
    }
  }
  if (Array.isArray(s.allOf)) {
    const parts = (s.allOf as TSchema[]).map((p) => exampleOf(p, name, inner));
    return parts.every((p) => p && typeof p === "object" && !Array.isArray(p))
      ? Object.assign({}, ...parts)
      : parts[0];
  }
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== "null") : s.type;
  switch (type) {
    case "string":
      return stringExample(s, name);
    case "integer":
      return numberExample(s, name, true);
    case "number":
      return numberExample(s, name, false);
    case "boolean":
      return name.toLowerCase().startsWith("is") || /enabled|ok|healthy/.test(name.toLowerCase());
    case "null":
      return null;
    case "array": {
      const min = typeof s.minItems === "number" ? s.minItems : 1;
      const max = typeof s.maxItems === "number" ? s.maxItems : Infinity;
      const item = singular(name);
      const n = Math.min(Math.max(min, 1), max);
      if (s.uniqueItems) {
        const itemSchema = resolve((s.items ?? {}) as TSchema, ctx);
        if (Array.isArray(itemSchema.enum)) return itemSchema.enum.slice(0, Math.max(min, 1));
        return n > 0 ? [exampleOf(s.items, item, inner)] : [];
      }
      return Array.from({ length: n }, () => exampleOf(s.items, item, inner));
    }
    default: {
      if (type !== "object" && !s.properties && !s.additionalProperties) return {};
      const out: Record<string, unknown> = {};
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
      for (const [k, v] of Object.entries(props))
        if (required.has(k) || !conditional(resolve((v ?? {}) as TSchema, ctx)))
          out[k] = exampleOf(v, k, inner);
      if (
        Object.keys(props).length === 0 &&
        s.additionalProperties &&
        typeof s.additionalProperties === "object"
      ) {
        const names = resolve((s.propertyNames ?? {}) as TSchema, ctx);
        const key =
          Array.isArray(names.enum) && names.enum.length > 0 ? String(names.enum[0]) : keyFor(name, names);
        out[key] = exampleOf(s.additionalProperties, key, inner);
      }
      return out;
    }
  }
}

/**
 * An optional field present only on some rows ("Tenant-configuration findings only: …"): left
 * out, so the example row (a public link) does not carry what only another kind of row has.
 */
const conditional = (s: TSchema): boolean =>
  typeof s.description === "string" && /^[^:.]*\bonly\b[^:.]*:/.test(s.description);

/** A field's name as words: `rootCause` → "Root cause". */
function humanized(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : "Example";
}

const singular = (name: string) => (name.endsWith("ies") ? `${name.slice(0, -3)}y` : name.replace(/s$/, ""));

/** A record's example key: by what the record holds, valid against its propertyNames. */
function keyFor(name: string, names: TSchema): string {
  const n = name.toLowerCase();
  const candidate = /severit/.test(n)
    ? "HIGH"
    : /categor/.test(n)
      ? "public_exposure"
      : /check/.test(n)
        ? "database"
        : /domain/.test(n)
          ? "payroll-partner.example"
          : /metadata|label|tag/.test(n)
            ? "team"
            : "key";
  return stringExample({ ...names, type: "string" }, candidate === "key" ? "" : candidate) === candidate ||
    !names.pattern
    ? candidate
    : stringExample({ ...names, type: "string" }, "");
}

type TOperation = {
  parameters?: Array<{ in: string; name: string; schema?: unknown; example?: unknown }>;
  requestBody?: { content?: Record<string, { schema?: unknown; example?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown; example?: unknown }> }>;
};

const METHODS = ["get", "put", "post", "delete", "patch"];

/** Every operation of the document, with its key (`get /health`). */
export function eachOperation(doc: OpenAPIObject): Array<[string, TOperation]> {
  const out: Array<[string, TOperation]> = [];
  for (const [path, item] of Object.entries(doc.paths ?? {}))
    for (const m of METHODS) {
      const op = (item as Record<string, TOperation | undefined>)[m];
      if (op) out.push([`${m} ${path}`, op]);
    }
  return out;
}

/** Sets an example on every parameter, JSON request body and JSON response (an example already given stays). */
export function addExamples(doc: OpenAPIObject): void {
  const ctx: TCtx = { doc, depth: 0 };
  for (const [key, op] of eachOperation(doc)) {
    for (const p of op.parameters ?? [])
      if (p.schema && p.example === undefined) p.example = exampleOf(p.schema, p.name, ctx);
    const body = op.requestBody?.content?.["application/json"];
    if (body?.schema && body.example === undefined) body.example = exampleOf(body.schema, "body", ctx);
    for (const [status, res] of Object.entries(op.responses ?? {})) {
      const media = res.content?.["application/json"];
      if (!media?.schema || media.example !== undefined) continue;
      media.example =
        status.startsWith("2") && key in RESPONSE_EXAMPLES
          ? RESPONSE_EXAMPLES[key]
          : exampleOf(media.schema, "body", ctx);
    }
  }
}
