import { AppError } from "./errors";

/**
 * How a REST request becomes a procedure's input, without guessing.
 *
 * - A body is a JSON object. trpc-to-openapi spreads the body into the input (`{...body,
 *   ...pathParams}`), which would turn an array into `{"0": …}` and a string into its characters;
 *   anything but an object is refused before that.
 * - Nothing is coerced. trpc-to-openapi marks every number, boolean, bigint and date schema of an
 *   input as coercing (`_def.coerce = true`) on each request, bodies included, and for every
 *   transport afterwards (the schemas are shared with /trpc): `"yes"` and `"false"` became `true`,
 *   `null` and `[]` became 0. `forbidCoercion` keeps each such schema's own setting for good.
 * - A query string's text is converted where the schema wants a number or a boolean, strictly
 *   (`compileQueryParser`): a plain decimal number, exactly `true` or `false`; anything else stays a
 *   string and fails validation with 400 `invalid_input`.
 * - Nothing unknown is dropped (`compileRequestFields`). The input schemas are strict
 *   (`z.strictObject`), which covers every depth of a body and every tRPC call; what the schema
 *   cannot see is checked here against its field names: a query parameter the operation does not
 *   take (the library drops empty values, and a path parameter overrides a query or body field of
 *   the same name), a field of an operation without input, a body sent to a GET or DELETE.
 */

type TDef = { type: string; coerce?: boolean; [key: string]: unknown };
type TSchema = { _zod: { def: TDef } };

const COERCIBLE = new Set(["number", "boolean", "bigint", "date"]);
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "nonoptional", "catch"]);

const isSchema = (v: unknown): v is TSchema =>
  typeof v === "object" && v !== null && typeof (v as TSchema)._zod?.def?.type === "string";

/** The schemas a def refers to: its shape, element, options, inner type, pipe ends… */
function children(def: TDef): TSchema[] {
  const out: TSchema[] = [];
  const add = (v: unknown) => {
    if (isSchema(v)) out.push(v);
    else if (Array.isArray(v)) for (const x of v) add(x);
  };
  for (const [key, value] of Object.entries(def)) {
    if (key === "shape" && typeof value === "object" && value !== null) {
      for (const field of Object.values(value)) add(field);
    } else if (key === "getter" && typeof value === "function") {
      add((value as () => unknown)());
    } else add(value);
  }
  return out;
}

const LOCKED = Symbol("coercionLocked");

/**
 * Fixes `coerce` on every number, boolean, bigint and date schema reachable from `schema` to the
 * value it was declared with: later writes (trpc-to-openapi's, on each REST request) are ignored.
 * Idempotent.
 */
export function forbidCoercion(schema: unknown): void {
  const seen = new Set<TDef>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const s = stack.pop();
    if (!isSchema(s)) continue;
    const def = s._zod.def;
    if (seen.has(def)) continue;
    seen.add(def);
    if (COERCIBLE.has(def.type) && !(LOCKED in def)) {
      const declared = def.coerce === true;
      Object.defineProperty(def, "coerce", {
        get: () => declared,
        set: () => {},
        enumerable: true,
        configurable: true,
      });
      Object.defineProperty(def, LOCKED, { value: true });
    }
    stack.push(...children(def));
  }
}

/** The schema under optional/nullable/default…; a pipe is read by what it takes in. */
function innerOf(s: TSchema): TSchema {
  let t = s;
  for (;;) {
    const def = t._zod.def;
    if (WRAPPERS.has(def.type) && isSchema(def.innerType)) t = def.innerType;
    else if (def.type === "pipe" && isSchema(def.in)) t = def.in;
    else if (def.type === "lazy" && typeof def.getter === "function") t = (def.getter as () => TSchema)();
    else return t;
  }
}

/** Decimal numbers as people write them in a URL; no hex, exponents, blanks or empty strings. */
const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

type TConvert = (text: string) => unknown;

function converterFor(s: TSchema): TConvert | null {
  const t = innerOf(s);
  switch (t._zod.def.type) {
    case "number":
      return (text) => (DECIMAL.test(text) ? Number(text) : text);
    case "boolean":
      return (text) => (text === "true" ? true : text === "false" ? false : text);
    case "bigint":
      return (text) => (/^-?(?:0|[1-9]\d*)$/.test(text) ? BigInt(text) : text);
    case "array": {
      const element = t._zod.def.element;
      return isSchema(element) ? converterFor(element) : null;
    }
    default:
      return null;
  }
}

export type TQueryParser = (query: Record<string, unknown>) => Record<string, unknown>;

/**
 * For an input schema (an object, possibly wrapped), a function that converts a parsed query
 * string's values to the types its fields declare. Unknown keys and other types pass as they are.
 */
export function compileQueryParser(schema: unknown): TQueryParser {
  const identity: TQueryParser = (q) => q;
  if (!isSchema(schema)) return identity;
  const object = innerOf(schema);
  const shape = object._zod.def.shape as Record<string, unknown> | undefined;
  if (object._zod.def.type !== "object" || !shape) return identity;
  const converters = new Map<string, TConvert>();
  for (const [key, field] of Object.entries(shape)) {
    const c = isSchema(field) ? converterFor(field) : null;
    if (c) converters.set(key, c);
  }
  if (converters.size === 0) return identity;
  return (query) => {
    const out: Record<string, unknown> = { ...query };
    for (const [key, convert] of converters) {
      const v = out[key];
      if (typeof v === "string") out[key] = convert(v);
      else if (Array.isArray(v)) out[key] = v.map((x) => (typeof x === "string" ? convert(x) : x));
    }
    return out;
  };
}

/**
 * The top-level field names of an input schema: an object's keys, the keys of every member of a
 * union of objects; none for no input (`z.void()`). null when the schema is none of these (any
 * name may then reach validation).
 */
export function inputFieldNames(schema: unknown): ReadonlySet<string> | null {
  if (schema === undefined) return new Set();
  if (!isSchema(schema)) return null;
  const t = innerOf(schema);
  const def = t._zod.def;
  switch (def.type) {
    case "void":
    case "undefined":
    case "never":
      return new Set();
    case "object":
      return new Set(Object.keys(def.shape as Record<string, unknown>));
    case "union": {
      const names = new Set<string>();
      for (const option of def.options as unknown[]) {
        const n = inputFieldNames(option);
        if (n === null) return null;
        for (const name of n) names.add(name);
      }
      return names;
    }
    default:
      return null;
  }
}

const list = (names: ReadonlySet<string>) => (names.size === 0 ? "none" : [...names].sort().join(", "));
const quoted = (names: string[]) => names.map((n) => JSON.stringify(n)).join(", ");

/**
 * What the REST layer finds wrong with a request's fields, or null: given the parsed query string
 * and the parsed body (undefined when there is none).
 */
export type TRequestFields = (query: Record<string, unknown>, body: unknown) => AppError | null;

/**
 * What a REST request may carry besides its path: for a body operation (POST, PUT, PATCH) a JSON
 * object of the input's fields and no query parameter; for GET and DELETE the input's fields as
 * query parameters and no body (or an empty object). Path parameters come from the path only.
 * Fields below the top level are the strict input schema's to check. The problem is returned, not
 * thrown: the procedure throws it after the access checks (context.ts `requestProblem`).
 */
export function compileRequestFields(
  schema: unknown,
  o: { pathParams: readonly string[]; body: boolean },
): TRequestFields {
  const fields = inputFieldNames(schema);
  const carried = fields && new Set([...fields].filter((f) => !o.pathParams.includes(f)));
  const none: ReadonlySet<string> = new Set();
  const queryNames = o.body ? none : carried;
  const bodyNames = o.body ? carried : none;
  return (query, body) => {
    let unknownQuery: string[] | undefined;
    if (queryNames !== null)
      for (const name in query)
        if (Object.hasOwn(query, name) && !queryNames.has(name)) (unknownQuery ??= []).push(name);
    let unknownBody: string[] | undefined;
    if (body !== undefined) {
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        const kind = Array.isArray(body) ? "an array" : body === null ? "null" : `a ${typeof body}`;
        const message = o.body
          ? `The request body must be a JSON object, not ${kind}`
          : `This operation takes no request body (received ${kind})`;
        return new AppError("invalid_input", message, {
          details: [
            { path: "", message: o.body ? `Expected a JSON object, received ${kind}` : "no body expected" },
          ],
        });
      }
      if (bodyNames !== null) {
        const unknown = Object.keys(body).filter((name) => !bodyNames.has(name));
        if (unknown.length > 0) unknownBody = unknown;
      }
    } else if (o.body) {
      return new AppError("invalid_input", "The request body must be a JSON object", {
        details: [{ path: "", message: "Expected a JSON object, received nothing" }],
      });
    }
    if (!unknownQuery && !unknownBody) return null;
    const parts: string[] = [];
    if (unknownQuery)
      parts.push(
        `query parameter${unknownQuery.length === 1 ? "" : "s"} ${quoted(unknownQuery)} (it takes: ${list(queryNames ?? none)})`,
      );
    if (unknownBody)
      parts.push(
        `body field${unknownBody.length === 1 ? "" : "s"} ${quoted(unknownBody)} (its body takes: ${list(bodyNames ?? none)})`,
      );
    return new AppError("invalid_input", `This operation does not take ${parts.join(", nor ")}`, {
      details: [
        ...(unknownQuery ?? []).map((path) => ({ path, message: "unknown query parameter" })),
        ...(unknownBody ?? []).map((path) => ({ path, message: "unknown field" })),
      ],
    });
  };
}
