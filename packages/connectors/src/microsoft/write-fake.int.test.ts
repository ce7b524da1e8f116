import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ALL_GRAPH_WRITE_ROLES, startFakeGraph, type TFakeGraph } from "../../../fakes/src/fake-graph";
import { GRAPH_WRITE_ROUTE_PERMISSIONS } from "../../../fakes/src/fake-graph-write";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../../../fakes/src/graph-fixture";
import { BROADER_WRITE_PERMISSIONS, MICROSOFT_WRITE_ACCESS } from "./access";
import { microsoftTokenProvider } from "./auth";

// The Graph fake's write endpoints refuse what Graph refuses, with Graph's error bodies; their
// permissions are graph-permissions.json's (a verbatim extract in packages/fakes/src/vendor, checked
// against the full file when the shared reference holds it).

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";
const DIR = process.env.GRAPH_REFERENCE_DIR ?? "/work/shared/reference/vendor-apis";
const PERMISSIONS = join(DIR, "graph-permissions.json");
const extract = (
  JSON.parse(
    readFileSync(
      fileURLToPath(
        new URL("../../../fakes/src/vendor/graph-permissions-write-extract.json", import.meta.url),
      ),
      "utf8",
    ),
  ) as { routes: Record<string, string[]> }
).routes;

let fake: TFakeGraph | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function start() {
  fake = await startFakeGraph({
    fixture: { ...buildGraphFixture(), grantedRoles: [...ALL_GRAPH_WRITE_ROLES] },
    clientId: CLIENT_ID,
    clientSecret: SECRET,
  });
  const tokens = microsoftTokenProvider(
    { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET },
    { loginBaseUrl: fake.url },
  );
  const server = fake;
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await tokens.getToken()}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
  };
  return { server, send };
}

const graphErrorBody = (code: string) => ({
  error: {
    code,
    message: expect.any(String) as string,
    innerError: {
      date: expect.any(String) as string,
      "request-id": expect.any(String) as string,
      "client-request-id": expect.any(String) as string,
    },
  },
});

const PERMISSION = "/v1.0/drives/drv-alice/items/a-budget/permissions";

describe("the Graph fake's writes", () => {
  it("updates only a permission's roles", async () => {
    const { send } = await start();
    expect(
      await send("PATCH", `${PERMISSION}/perm-anon`, { roles: ["write"], link: { type: "edit" } }),
    ).toEqual({
      status: 400,
      body: graphErrorBody("invalidRequest"),
    });
    expect(await send("PATCH", `${PERMISSION}/perm-anon`, { roles: ["admin"] })).toMatchObject({
      status: 400,
    });
    expect(await send("PATCH", `${PERMISSION}/perm-anon`, { roles: ["write"] })).toMatchObject({
      status: 200,
      body: { id: "perm-anon", roles: ["write"] },
    });
    expect(await send("PATCH", `${PERMISSION}/nope`, { roles: ["read"] })).toEqual({
      status: 404,
      body: graphErrorBody("itemNotFound"),
    });
  });

  it("deletes a permission once (204, then 404) and refuses an unknown item", async () => {
    const { send } = await start();
    expect(await send("DELETE", `${PERMISSION}/perm-anon`)).toEqual({ status: 204, body: null });
    expect(await send("DELETE", `${PERMISSION}/perm-anon`)).toEqual({
      status: 404,
      body: graphErrorBody("itemNotFound"),
    });
    expect((await send("GET", `${PERMISSION}/perm-anon`)).status).toBe(404);
    expect((await send("DELETE", "/v1.0/drives/drv-alice/items/nope/permissions/perm-owner")).status).toBe(
      404,
    );
  });

  it("refuses to delete or change an inherited permission", async () => {
    const { server, send } = await start();
    // Graph lists a folder's grant on each item under it, naming the folder in inheritedFrom.
    const fromFolder = {
      id: "perm-inherited",
      roles: ["read"],
      grantedToV2: { user: { id: "m-bob" } },
      inheritedFrom: { id: "a-docs" },
    };
    server.tenant.setPermissions("drv-alice", "a-budget", [fromFolder]);
    expect(await send("DELETE", `${PERMISSION}/perm-inherited`)).toEqual({
      status: 400,
      body: graphErrorBody("invalidRequest"),
    });
    expect((await send("PATCH", `${PERMISSION}/perm-inherited`, { roles: ["write"] })).status).toBe(400);
  });

  it("checks an invitation's parameters against driveItem: invite", async () => {
    const { send } = await start();
    const invite = "/v1.0/drives/drv-alice/items/a-budget/invite";
    const valid = {
      recipients: [{ email: "bob@contoso.test" }],
      roles: ["read"],
      requireSignIn: true,
      sendInvitation: false,
    };
    expect(await send("POST", invite, { ...valid, notify: true })).toEqual({
      status: 400,
      body: graphErrorBody("invalidRequest"),
    });
    expect((await send("POST", invite, { ...valid, recipients: [] })).status).toBe(400);
    expect((await send("POST", invite, { ...valid, requireSignIn: false })).status).toBe(400);
    const created = await send("POST", invite, valid);
    expect(created).toMatchObject({
      status: 200,
      body: { value: [{ roles: ["read"], grantedToV2: { user: { id: "m-bob" } } }] },
    });
  });

  it("refuses a duplicate delegated grant (409) and a duplicate app role assignment (400)", async () => {
    const { send } = await start();
    const grant = {
      clientId: "sp-chatgpt",
      consentType: "Principal",
      principalId: "m-alice",
      resourceId: "sp-graph",
      scope: "User.Read",
    };
    expect(await send("POST", "/v1.0/oauth2PermissionGrants", grant)).toEqual({
      status: 409,
      body: graphErrorBody("Request_MultipleObjectsWithSameKeyValue"),
    });
    expect(
      (await send("POST", "/v1.0/oauth2PermissionGrants", { ...grant, expiryTime: "2030-01-01" })).status,
    ).toBe(400);
    const assignment = {
      principalId: "sp-archiver",
      resourceId: "sp-graph",
      appRoleId: "810c84a8-4a9e-49e6-bf7d-12d183f40d01",
    };
    expect(await send("POST", "/v1.0/servicePrincipals/sp-graph/appRoleAssignedTo", assignment)).toEqual({
      status: 400,
      body: graphErrorBody("Request_BadRequest"),
    });
    expect(
      (
        await send("POST", "/v1.0/servicePrincipals/sp-graph/appRoleAssignedTo", {
          ...assignment,
          appRoleId: "nope",
        })
      ).status,
    ).toBe(400);
    expect((await send("DELETE", "/v1.0/servicePrincipals/sp-graph/appRoleAssignedTo/nope")).status).toBe(
      404,
    );
    expect((await send("DELETE", "/v1.0/oauth2PermissionGrants/nope")).status).toBe(404);
  });

  it("serves each write path only to the application permissions graph-permissions.json lists", () => {
    for (const [route, permissions] of Object.entries(GRAPH_WRITE_ROUTE_PERMISSIONS)) {
      const listed = extract[route];
      expect(listed, route).toBeDefined();
      for (const permission of permissions) expect(listed, route).toContain(permission);
    }
    // Each write requirement, and the broader permissions accepted for it, opens its writes.
    const writes: Record<string, string[]> = {
      "Files.ReadWrite.All": [
        "GET /users/{id}/drive",
        "GET /drives/{id}/items/{id}/permissions/{id}",
        "DELETE /drives/{id}/items/{id}/permissions/{id}",
        "PATCH /drives/{id}/items/{id}/permissions/{id}",
        "POST /drives/{id}/items/{id}/invite",
      ],
      "DelegatedPermissionGrant.ReadWrite.All": [
        "GET /oauth2PermissionGrants/{id}",
        "DELETE /oauth2PermissionGrants/{id}",
        "POST /oauth2PermissionGrants",
      ],
      "AppRoleAssignment.ReadWrite.All": [
        "DELETE /servicePrincipals/{id}/appRoleAssignedTo/{id}",
        "POST /servicePrincipals/{id}/appRoleAssignedTo",
      ],
    };
    for (const requirement of MICROSOFT_WRITE_ACCESS) {
      for (const permission of [
        requirement.permission,
        ...(BROADER_WRITE_PERMISSIONS[requirement.permission] ?? []),
      ]) {
        for (const route of writes[requirement.permission] ?? []) {
          expect(extract[route], `${route}: ${permission}`).toContain(permission);
        }
      }
    }
  });

  it.skipIf(!existsSync(PERMISSIONS))("takes its extract from graph-permissions.json as it is", () => {
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
    for (const [route, permissions] of Object.entries(extract)) {
      expect(permissions, route).toEqual([...(allowed.get(route.toLowerCase()) ?? [])].sort());
    }
  });
});
