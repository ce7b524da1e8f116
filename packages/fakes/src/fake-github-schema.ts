import extract from "./vendor/github-rest-extract.json" with { type: "json" };

// What GitHub's REST API accepts and answers, as its official description declares it: the
// operations the connector makes, cut out of @octokit/openapi's `api.github.com.json` by
// `tooling/vendor-apis/extract-github.mjs` (`vendor/github-rest-extract.json`). The fake matches
// each request to one of these operations and refuses what the description does not allow; it
// fills and checks its own answers against the response schemas, so it cannot invent a field.

/** A JSON Schema as the extract keeps it: structure only, `$ref` by component name. */
export type TGithubSchema = {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  nullable?: boolean;
  required?: string[];
  minimum?: number;
  maximum?: number;
  properties?: Record<string, TGithubSchema>;
  items?: TGithubSchema;
  anyOf?: TGithubSchema[];
  oneOf?: TGithubSchema[];
  allOf?: TGithubSchema[];
  additionalProperties?: boolean | TGithubSchema;
};

export type TGithubPermissionLevel = "read" | "write" | "admin";
export type TGithubPermissions = Record<string, TGithubPermissionLevel>;

export type TGithubOperation = {
  operationId: string;
  method: string;
  path: string;
  documentationUrl: string | null;
  /** `app`: called with the app's JWT; `installation`: with an installation token. */
  auth: "app" | "installation";
  /** Any one of `anyOf` suffices (none: the call needs no permission); `fields` widens the answer. */
  permissions: { anyOf: TGithubPermissions[]; fields?: TGithubPermissions };
  parameters: Array<{ name: string; in: string; required: boolean; schema: TGithubSchema }>;
  requestBody: { required: boolean; schema: TGithubSchema } | null;
  responses: Record<string, { schema?: TGithubSchema }>;
};

export const GITHUB_EXTRACT_SOURCE = extract.source;
export const GITHUB_OPERATIONS = extract.operations as unknown as TGithubOperation[];
const SCHEMAS = extract.schemas as unknown as Record<string, TGithubSchema>;

/** GitHub's documentation of the REST API, linked from errors that name no operation. */
export const GITHUB_DOCS = "https://docs.github.com/rest";

const templates = GITHUB_OPERATIONS.map((op) => {
  const names: string[] = [];
  const pattern = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { op, names, regex: new RegExp(`^${pattern}$`) };
});

/** The operation a request is for, with its path parameters; null when the description has none. */
export function matchOperation(
  method: string,
  path: string,
): { op: TGithubOperation; params: Record<string, string> } | null {
  for (const { op, names, regex } of templates) {
    const match = regex.exec(path);
    if (!match || op.method !== method) continue;
    const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1] ?? "")]));
    return { op, params };
  }
  return null;
}

export const schemaByName = (name: string): TGithubSchema => {
  const schema = SCHEMAS[name];
  if (!schema) throw new Error(`GitHub schema ${name} is not in the extract`);
  return schema;
};

const deref = (schema: TGithubSchema): TGithubSchema =>
  schema.$ref ? deref(schemaByName(schema.$ref)) : schema;

/** A validation error as GitHub words it: one entry of a 422's `errors`. */
export type TFieldProblem = {
  field: string;
  code: "invalid" | "missing_field" | "not_permitted";
  value?: unknown;
};

function scalarProblem(schema: TGithubSchema, raw: string): boolean {
  const s = deref(schema);
  if (s.type === "integer") {
    if (!/^-?\d+$/.test(raw)) return true;
    const n = Number(raw);
    return (s.minimum !== undefined && n < s.minimum) || (s.maximum !== undefined && n > s.maximum);
  }
  if (s.type === "boolean") return raw !== "true" && raw !== "false";
  return Array.isArray(s.enum) && !s.enum.includes(raw);
}

/** The query string's problems against the operation's query parameters (unknown, ill-typed, not in the enum). */
export function queryProblems(op: TGithubOperation, query: URLSearchParams): TFieldProblem[] {
  const declared = new Map(op.parameters.filter((p) => p.in === "query").map((p) => [p.name, p]));
  const problems: TFieldProblem[] = [];
  for (const [name, value] of query) {
    const param = declared.get(name);
    if (!param) problems.push({ field: name, code: "not_permitted", value });
    else if (scalarProblem(param.schema, value)) problems.push({ field: name, code: "invalid", value });
  }
  for (const param of declared.values())
    if (param.required && !query.has(param.name)) problems.push({ field: param.name, code: "missing_field" });
  return problems;
}

/** Where `value` departs from `schema`: undeclared properties, missing required ones, wrong types. */
export function schemaProblems(schema: TGithubSchema, value: unknown, at = ""): string[] {
  if (schema.$ref) return schemaProblems(schemaByName(schema.$ref), value, at);
  if (value === null) return schema.nullable || schema.type === undefined ? [] : [`${at || "."}: null`];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const each = alternatives.map((alt) => schemaProblems(alt, value, at));
    return each.some((p) => p.length === 0) ? [] : (each[0] ?? []);
  }
  if (schema.allOf) return schema.allOf.flatMap((part) => schemaProblems(part, value, at));
  switch (schema.type) {
    case "object": {
      if (typeof value !== "object" || Array.isArray(value)) return [`${at || "."}: not an object`];
      const record = value as Record<string, unknown>;
      const props = schema.properties ?? {};
      const problems = (schema.required ?? [])
        .filter((name) => !(name in record))
        .map((name) => `${at}.${name}: missing`);
      for (const [name, v] of Object.entries(record)) {
        const prop = props[name];
        const extra = schema.additionalProperties;
        if (prop) problems.push(...schemaProblems(prop, v, `${at}.${name}`));
        else if (typeof extra === "object") problems.push(...schemaProblems(extra, v, `${at}.${name}`));
        // The description's declared properties are the closed set: the fake may not invent one.
        else if (extra !== true && Object.keys(props).length > 0)
          problems.push(`${at}.${name}: not declared`);
      }
      return problems;
    }
    case "array":
      if (!Array.isArray(value)) return [`${at || "."}: not an array`];
      return value.flatMap((item, i) =>
        schema.items ? schemaProblems(schema.items, item, `${at}[${i}]`) : [],
      );
    case "integer":
      return Number.isInteger(value) ? [] : [`${at}: not an integer`];
    case "number":
      return typeof value === "number" ? [] : [`${at}: not a number`];
    case "boolean":
      return typeof value === "boolean" ? [] : [`${at}: not a boolean`];
    case "string":
      if (typeof value !== "string") return [`${at}: not a string`];
      return schema.enum && !schema.enum.includes(value) ? [`${at}: ${value} not in enum`] : [];
    default:
      return [];
  }
}

/** The body's problems against the operation's request body: GitHub's "is not a permitted key". */
export function bodyProblems(op: TGithubOperation, body: unknown): TFieldProblem[] {
  if (!op.requestBody) return body === undefined ? [] : [{ field: "(body)", code: "not_permitted" }];
  if (body === undefined) return op.requestBody.required ? [{ field: "(body)", code: "missing_field" }] : [];
  const schema = deref(op.requestBody.schema);
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return [{ field: "(body)", code: "invalid" }];
  const problems: TFieldProblem[] = [];
  for (const [name, value] of Object.entries(body)) {
    const prop = schema.properties?.[name];
    if (!prop) problems.push({ field: name, code: "not_permitted", value });
    else if (schemaProblems(prop, value).length > 0) problems.push({ field: name, code: "invalid", value });
  }
  return problems;
}

function placeholder(schema: TGithubSchema, name: string, base: string): unknown {
  const s = deref(schema);
  if (s.nullable) return null;
  switch (s.type) {
    case "string":
      if (Array.isArray(s.enum)) return s.enum[0];
      if (name === "url" || name.endsWith("_url")) return `${base}/${name.replace(/_url$/, "")}`;
      if (name.endsWith("_at")) return "2025-01-01T00:00:00Z";
      return "";
    case "integer":
    case "number":
      return 0;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return complete(s, {}, base);
    default:
      return null;
  }
}

/**
 * An object of `schema` (a component name or a schema) with every required property the fixture
 * left out given a neutral value (URLs under `base`), as GitHub always sends them.
 */
export function complete<T extends Record<string, unknown>>(
  schema: string | TGithubSchema,
  partial: T,
  base: string,
): T {
  const s = deref(typeof schema === "string" ? { $ref: schema } : schema);
  const out: Record<string, unknown> = { ...partial };
  for (const name of s.required ?? [])
    if (!(name in out)) out[name] = placeholder(s.properties?.[name] ?? {}, name, base);
  return out as T;
}
