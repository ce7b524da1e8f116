import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BROADER_PERMISSIONS, MICROSOFT_GRAPH_ACCESS } from "@posture/connectors/wire";
import { GRAPH_ROUTE_PERMISSIONS } from "./fake-graph";
import { GRAPH_V1_PROPERTIES } from "./graph-v1-properties";

// Graph's own descriptions are too large for the repository: vendor/ keeps verbatim extracts (the
// entity types the fake serves; the permissions of its paths). The fake is checked against the
// extracts always, the extracts against the full files when GRAPH_REFERENCE_DIR (the shared
// reference set by default) holds them.
const VENDOR = (name: string) => fileURLToPath(new URL(`./vendor/${name}`, import.meta.url));
const DIR = process.env.GRAPH_REFERENCE_DIR ?? "/work/shared/reference/vendor-apis";
const CSDL = join(DIR, "graph-v1.0-Prod.csdl");
const PERMISSIONS = join(DIR, "graph-permissions.json");

/** An entity type's structural properties, its base types' included. */
function csdlProperties(schema: string, type: string): string[] {
  const match = new RegExp(
    `<EntityType Name="${type}"(?: BaseType="graph\\.(\\w+)")?[^>]*?(?:/>|>([\\s\\S]*?)</EntityType>)`,
  ).exec(schema);
  if (!match) throw new Error(`no entity type ${type}`);
  const own = [...(match[2] ?? "").matchAll(/<Property Name="(\w+)"/g)].map((m) => m[1] ?? "");
  return [...(match[1] ? csdlProperties(schema, match[1]) : []), ...own];
}

const extract = readFileSync(VENDOR("graph-v1.0-entities.csdl.xml"), "utf8");
const permissionsExtract = (
  JSON.parse(readFileSync(VENDOR("graph-permissions-extract.json"), "utf8")) as {
    routes: Record<string, string[]>;
  }
).routes;

describe("the fake's v1.0 property lists", () => {
  it("are exactly the properties Graph v1.0's metadata declares on each entity type", () => {
    for (const [type, properties] of Object.entries(GRAPH_V1_PROPERTIES)) {
      expect([...properties].sort(), type).toEqual(csdlProperties(extract, type).sort());
    }
    // The defects this fake exists to catch: neither is a v1.0 property.
    expect(GRAPH_V1_PROPERTIES.servicePrincipal).not.toContain("publisherName");
    expect(GRAPH_V1_PROPERTIES.driveItem).not.toContain("sensitivityLabel");
  });

  it.skipIf(!existsSync(CSDL))("come from a verbatim extract of graph-v1.0-Prod.csdl", () => {
    const csdl = readFileSync(CSDL, "utf8");
    const start = csdl.indexOf('<Schema Namespace="microsoft.graph"');
    const schema = csdl.slice(start, csdl.indexOf("</Schema>", start));
    const blocks = [...extract.matchAll(/[ \t]*<EntityType Name="(\w+)"[\s\S]*?(?:<\/EntityType>|\/>)/g)];
    expect(blocks.length).toBeGreaterThan(Object.keys(GRAPH_V1_PROPERTIES).length);
    for (const block of blocks) expect(schema.includes(block[0]), block[1]).toBe(true);
  });
});

describe("the fake's route permissions", () => {
  it("are application permissions graph-permissions.json lists for the same path and method", () => {
    for (const [route, permissions] of Object.entries(GRAPH_ROUTE_PERMISSIONS)) {
      const listed = permissionsExtract[route];
      expect(listed, route).toBeDefined();
      for (const permission of permissions) expect(listed, route).toContain(permission);
    }
  });

  it("serve each requirement's reads, as do the broader permissions accepted for it", () => {
    // The paths each permission of MICROSOFT_GRAPH_ACCESS is asked for.
    const reads: Record<string, string[]> = {
      "User.Read.All": ["GET /users", "GET /organization"],
      "Sites.Read.All": [
        "GET /sites",
        "GET /sites/{id}/drives",
        "GET /users/{id}/drives",
        "GET /drives/{id}",
        "GET /drives/{id}/items/{id}",
        "GET /drives/{id}/root/delta",
        "GET /drives/{id}/items/{id}/permissions",
        "POST /drives/{id}/items/{id}/extractSensitivityLabels",
      ],
      "Application.Read.All": [
        "GET /servicePrincipals",
        "GET /servicePrincipals/{id}",
        "GET /servicePrincipals/{id}/appRoleAssignedTo",
      ],
      "Directory.Read.All": ["GET /oauth2PermissionGrants"],
      "Organization.Read.All": ["GET /subscribedSkus"],
      "SensitivityLabel.Read": [
        "GET /security/dataSecurityAndGovernance/sensitivityLabels",
        "GET /security/dataSecurityAndGovernance/sensitivityLabels/{id}",
      ],
      "AgentIdentity.Read.All": ["GET /servicePrincipals/microsoft.graph.agentIdentity"],
      "AgentIdentityBlueprintPrincipal.Read.All": [
        "GET /servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal",
      ],
      "CopilotPackages.Read.All": ["GET /copilot/admin/catalog/packages"],
      "GroupMember.Read.All": ["GET /groups", "GET /groups/{id}/transitiveMembers"],
      "AuditLog.Read.All": [
        "GET /reports/authenticationMethods/userRegistrationDetails",
        "GET /auditLogs/signIns",
      ],
    };
    for (const requirement of MICROSOFT_GRAPH_ACCESS) {
      const routes = reads[requirement.permission];
      expect(routes, requirement.permission).toBeDefined();
      for (const permission of [
        requirement.permission,
        ...(BROADER_PERMISSIONS[requirement.permission] ?? []),
      ]) {
        for (const route of routes ?? [])
          expect(permissionsExtract[route], `${route}: ${permission}`).toContain(permission);
      }
    }
  });

  it.skipIf(!existsSync(PERMISSIONS))("come from graph-permissions.json as it is", () => {
    type TFile = {
      permissions: Record<
        string,
        { pathSets?: Array<{ schemeKeys: string[]; methods: string[]; paths: Record<string, string> }> }
      >;
    };
    const file = JSON.parse(readFileSync(PERMISSIONS, "utf8")) as TFile;
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
    for (const [route, permissions] of Object.entries(permissionsExtract)) {
      expect(permissions, route).toEqual([...(allowed.get(route.toLowerCase()) ?? [])].sort());
    }
  });
});
