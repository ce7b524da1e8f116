import extract from "./vendor/google-discovery-extract.json" with { type: "json" };
import { type TShape } from "./fake-google-schema";

// The part of Google's Discovery documents the fake validates against: the schemas of the Admin
// SDK's users, domains, tokens, groups and members lists, Reports' activities and Drive's Permission, structure
// only (`vendor/google-discovery-extract.json`, made by `extractSchemas` from the documents in the
// shared vendor reference and checked against them by `google-discovery.test.ts`). The fake reads
// the resources' selectable properties from here rather than from lists written by hand.

/** A Discovery property, structure only: a reference, an array's items, an object's properties or map values. */
export type TDiscoveryProperty = {
  $ref?: string;
  items?: TDiscoveryProperty;
  properties?: Record<string, TDiscoveryProperty>;
  additionalProperties?: TDiscoveryProperty;
};
export type TDiscoverySchemas = Record<string, { properties?: Record<string, TDiscoveryProperty> }>;

function strip(p: TDiscoveryProperty): TDiscoveryProperty {
  const out: TDiscoveryProperty = {};
  if (p.$ref) out.$ref = p.$ref;
  if (p.items) out.items = strip(p.items);
  if (p.properties) out.properties = stripAll(p.properties);
  if (p.additionalProperties && typeof p.additionalProperties === "object")
    out.additionalProperties = strip(p.additionalProperties);
  return out;
}
const stripAll = (ps: Record<string, TDiscoveryProperty>) =>
  Object.fromEntries(Object.entries(ps).map(([name, p]) => [name, strip(p)]));

/** The schemas reachable from `roots`, structure only, sorted by name. */
export function extractSchemas(schemas: TDiscoverySchemas, roots: readonly string[]): TDiscoverySchemas {
  const out: TDiscoverySchemas = {};
  const visit = (name: string) => {
    if (name in out) return;
    const schema = schemas[name];
    if (!schema) throw new Error(`Discovery schema ${name} is missing`);
    out[name] = { properties: stripAll(schema.properties ?? {}) };
    const walk = (p: TDiscoveryProperty) => {
      if (p.$ref) visit(p.$ref);
      if (p.items) walk(p.items);
      if (p.additionalProperties) walk(p.additionalProperties);
      for (const child of Object.values(p.properties ?? {})) walk(child);
    };
    for (const p of Object.values(out[name].properties ?? {})) walk(p);
  };
  for (const root of roots) visit(root);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * A schema as a `fields` mask sees it: its property names, and for each object-valued one (a
 * reference, an array of them, an inline object) the shape within. A map (`additionalProperties`)
 * takes any key, as Google's selector does. Shapes are shared, so recursive schemas are fine.
 */
export function shapeFromSchemas(schemas: TDiscoverySchemas, root: string): TShape {
  const memo = new Map<string, TShape>();
  const ofProperties = (
    ps: Record<string, TDiscoveryProperty>,
    into: TShape & { nested: Record<string, TShape> },
  ) => {
    (into.properties as string[]).push(...Object.keys(ps));
    for (const [name, p] of Object.entries(ps)) {
      const inner = nestedOf(p);
      if (inner) into.nested[name] = inner;
    }
    return into;
  };
  const nestedOf = (p: TDiscoveryProperty): TShape | undefined => {
    if (p.$ref) return ofRef(p.$ref);
    if (p.items) return nestedOf(p.items);
    if (p.properties) return ofProperties(p.properties, { properties: [], nested: {} });
    return undefined;
  };
  const ofRef = (name: string): TShape => {
    const known = memo.get(name);
    if (known) return known;
    const shape = { properties: [] as string[], nested: {} as Record<string, TShape> };
    memo.set(name, shape);
    const schema = schemas[name];
    if (!schema) throw new Error(`Discovery schema ${name} is not in the extract`);
    return ofProperties(schema.properties ?? {}, shape);
  };
  return ofRef(root);
}

export const DISCOVERY_ROOTS = {
  directory: ["Users", "Domains2", "Tokens", "Groups", "Members"],
  reports: ["Activities"],
  drive: ["Permission"],
} as const;

const schemasOf = (api: keyof typeof DISCOVERY_ROOTS) => extract[api].schemas as TDiscoverySchemas;

export const DIRECTORY_USERS = shapeFromSchemas(schemasOf("directory"), "Users");
export const DIRECTORY_DOMAINS = shapeFromSchemas(schemasOf("directory"), "Domains2");
export const DIRECTORY_TOKENS = shapeFromSchemas(schemasOf("directory"), "Tokens");
export const DIRECTORY_GROUPS = shapeFromSchemas(schemasOf("directory"), "Groups");
export const DIRECTORY_MEMBERS = shapeFromSchemas(schemasOf("directory"), "Members");
export const REPORTS_ACTIVITIES = shapeFromSchemas(schemasOf("reports"), "Activities");
/** permissions.create's request body: a Permission. */
export const DRIVE_PERMISSION_BODY = shapeFromSchemas(schemasOf("drive"), "Permission");
/** The pattern Reports' `applicationName` path parameter must match, as Discovery declares it. */
export const REPORTS_APPLICATION_PATTERN: string = extract.reports.applicationNamePattern;
