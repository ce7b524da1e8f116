import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GRAPH_ROUTE_PERMISSIONS } from "./fake-graph";
import { GRAPH_V1_PROPERTIES } from "./graph-v1-properties";

// The vendor's own descriptions (Graph v1.0 metadata, graph-permissions.json) are too large to keep
// in the repository; GRAPH_REFERENCE_DIR points at a copy (the shared reference set by default).
const DIR = process.env.GRAPH_REFERENCE_DIR ?? "/work/shared/reference/vendor-apis";
const CSDL = join(DIR, "graph-v1.0-Prod.csdl");
const PERMISSIONS = join(DIR, "graph-permissions.json");

/** An entity type's structural properties, its base types' included, from the microsoft.graph schema. */
function csdlProperties(schema: string, type: string): string[] {
  const match = new RegExp(
    `<EntityType Name="${type}"(?: BaseType="graph\\.(\\w+)")?[^>]*?(?:/>|>([\\s\\S]*?)</EntityType>)`,
  ).exec(schema);
  if (!match) throw new Error(`no entity type ${type}`);
  const own = [...(match[2] ?? "").matchAll(/<Property Name="(\w+)"/g)].map((m) => m[1] ?? "");
  return [...(match[1] ? csdlProperties(schema, match[1]) : []), ...own];
}

describe.skipIf(!existsSync(CSDL))("the fake's v1.0 property lists", () => {
  it("are exactly the properties Graph v1.0's metadata declares on each entity type", () => {
    const csdl = readFileSync(CSDL, "utf8");
    const start = csdl.indexOf('<Schema Namespace="microsoft.graph"');
    const schema = csdl.slice(start, csdl.indexOf("</Schema>", start));
    for (const [type, properties] of Object.entries(GRAPH_V1_PROPERTIES)) {
      expect([...properties].sort(), type).toEqual(csdlProperties(schema, type).sort());
    }
    // The defects this fake exists to catch: neither is a v1.0 property.
    expect(GRAPH_V1_PROPERTIES.servicePrincipal).not.toContain("publisherName");
    expect(GRAPH_V1_PROPERTIES.driveItem).not.toContain("sensitivityLabel");
  });
});

type TPermissionsFile = {
  permissions: Record<
    string,
    { pathSets?: Array<{ schemeKeys: string[]; methods: string[]; paths: Record<string, string> }> }
  >;
};

describe.skipIf(!existsSync(PERMISSIONS))("the fake's route permissions", () => {
  it("are application permissions graph-permissions.json lists for the same path and method", () => {
    const file = JSON.parse(readFileSync(PERMISSIONS, "utf8")) as TPermissionsFile;
    const allowed = new Map<string, Set<string>>();
    for (const [name, permission] of Object.entries(file.permissions)) {
      for (const set of permission.pathSets ?? []) {
        if (!set.schemeKeys.includes("Application")) continue;
        for (const method of set.methods) {
          for (const path of Object.keys(set.paths)) {
            const key = `${method} ${path}`.toLowerCase();
            allowed.set(key, (allowed.get(key) ?? new Set()).add(name));
          }
        }
      }
    }
    for (const [route, permissions] of Object.entries(GRAPH_ROUTE_PERMISSIONS)) {
      const listed = allowed.get(route.toLowerCase());
      expect(listed, route).toBeDefined();
      for (const permission of permissions)
        expect(listed?.has(permission), `${route}: ${permission}`).toBe(true);
    }
  });
});
