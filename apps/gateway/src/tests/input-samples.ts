import { routeCatalog } from "@posture/platform";
import { appRouter } from "../router";

/**
 * The router's input and output schemas as data, for tests that walk every procedure: a valid
 * sample input per procedure (built from its schema and checked against it), the places in an
 * input where an object sits, and every object schema reachable from an input or an output.
 */

export type TDef = { type: string; [k: string]: unknown };
export type TSchema = {
  _zod: { def: TDef };
  safeParse: (v: unknown) => { success: boolean; error?: { issues: unknown[] } };
};
/** Every procedure of the router, from the route catalog. */
export const entries = routeCatalog(appRouter).entries;

const isSchema = (v: unknown): v is TSchema =>
  typeof v === "object" && v !== null && typeof (v as TSchema)._zod?.def?.type === "string";

/** Every schema reachable from `root` (fields, elements, options, wrapped and piped types). */
export function reachable(root: unknown): TSchema[] {
  const out: TSchema[] = [];
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const s = stack.pop();
    if (!isSchema(s) || seen.has(s)) continue;
    seen.add(s);
    out.push(s);
    for (const [key, value] of Object.entries(s._zod.def)) {
      if (key === "shape" && value && typeof value === "object") stack.push(...Object.values(value));
      else if (key === "getter" && typeof value === "function") stack.push((value as () => unknown)());
      else if (Array.isArray(value)) stack.push(...(value as unknown[]));
      else stack.push(value);
    }
  }
  return out;
}

const ok = (s: TSchema, v: unknown) => s.safeParse(v).success;

// Strings that satisfy the usual formats: ids, e-mail, URL, domain, colour, keys, dates.
const STRINGS = [
  "Example",
  "00000000-0000-4000-8000-000000000000",
  "a@example.com",
  "https://example.com",
  "example.com",
  "#336699",
  "SEC",
  "acme/repo",
  "2026-01-01T00:00:00.000Z",
  "2026-01-01",
  "2026-01",
  "x",
  "file_1|public",
];

/**
 * A value the schema accepts: required fields only, except that optional objects (and arrays of
 * objects) are filled in, so that every nested object of the input appears in the sample.
 * undefined: nothing (an optional field left out).
 */
export function sample(s: TSchema): unknown {
  const def = s._zod.def;
  const inner = def.innerType as TSchema;
  switch (def.type) {
    case "optional":
      return reachable(inner).some((x) => x._zod.def.type === "object") ? sample(inner) : undefined;
    case "default":
    case "prefault":
    case "readonly":
    case "nonoptional":
    case "catch":
      return sample(inner);
    case "nullable": {
      const v = sample(inner);
      return v === undefined ? null : v;
    }
    case "pipe":
      return sample(def.in as TSchema);
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [k, f] of Object.entries(def.shape as Record<string, TSchema>)) {
        const v = sample(f);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    case "array": {
      const element = def.element as TSchema;
      const one = sample(element);
      return ok(s, [one]) && element._zod.def.type === "object" ? [one] : ok(s, []) ? [] : [one];
    }
    case "record":
      return {};
    case "string":
      return STRINGS.find((v) => ok(s, v)) ?? "x";
    case "number":
    case "int":
      return [1, 0, 10, 50].find((v) => ok(s, v)) ?? 1;
    case "boolean":
      return false;
    case "enum":
      return Object.values(def.entries as Record<string, unknown>)[0];
    case "literal":
      return (def.values as unknown[])[0];
    case "union":
      return (def.options as TSchema[]).map(sample).find((v) => ok(s, v));
    case "void":
    case "undefined":
      return undefined;
    default:
      return undefined;
  }
}

/** Where the objects of a value sit (the root is []), as paths of keys and array indexes. */
export function objectPaths(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.flatMap((v, i) => objectPaths(v, [...at, i]));
  if (value === null || typeof value !== "object") return [];
  return [at, ...Object.entries(value).flatMap(([k, v]) => objectPaths(v, [...at, k]))];
}

/** A copy of `value` with `key: extra` added to the object at `path`. */
export function withField(
  value: unknown,
  path: Array<string | number>,
  key: string,
  extra: unknown,
): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const p of path) node = node[p] as Record<string | number, unknown>;
  node[key] = extra;
  return copy;
}
