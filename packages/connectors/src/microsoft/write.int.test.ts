import { afterEach, describe, expect, it } from "vitest";
import { type THttpOptions } from "../http/client";
import { collect, recordingSleep } from "../../../fakes/src/adapter-harness";
import {
  ALL_GRAPH_ROLES,
  ALL_GRAPH_WRITE_ROLES,
  startFakeGraph,
  type TFakeGraph,
  type TGraphFixture,
} from "../../../fakes/src/fake-graph";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../../../fakes/src/graph-fixture";
import { SourceAuthError, SourceUnavailableError, type TSourceFile } from "../types";
import { SourceWriteError, type TWriteFile } from "../write";
import { MICROSOFT_WRITE_ACCESS } from "./access";
import { createMicrosoft365Adapter } from "./adapter";
import { createMicrosoft365Writer } from "./write";

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";

let fake: TFakeGraph | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

/** The default tenant, with direct grants to change: a guest and a member on files the adapter reads. */
function writableFixture(grantedRoles: readonly string[]): TGraphFixture {
  const fixture = buildGraphFixture();
  const team = fixture.drives.find((d) => d.id === "drv-team");
  const strategy = team?.items.find((i) => i.id === "t-strategy");
  strategy?.permissions?.push(
    { id: "perm-bob", roles: ["write"], grantedToV2: { user: { id: "m-bob", displayName: "Bob Byrne" } } },
    {
      id: "perm-guest",
      roles: ["write"],
      grantedToV2: {
        siteUser: {
          displayName: "Guest",
          loginName: "i:0#.f|membership|urn%3aspo%3aguest#guest@partner.example",
        },
      },
      invitation: { email: "guest@partner.example" },
    },
  );
  return { ...fixture, grantedRoles: [...grantedRoles] };
}

async function start(grantedRoles: readonly string[] = ALL_GRAPH_WRITE_ROLES) {
  const fixture = writableFixture(grantedRoles);
  fake = await startFakeGraph({ fixture, clientId: CLIENT_ID, clientSecret: SECRET });
  return { server: fake, fixture };
}

const endpoints = (server: TFakeGraph) => ({ graphBaseUrl: server.url, loginBaseUrl: server.url });
const credentials = (secret = SECRET) => ({
  tenantId: GRAPH_TENANT_ID,
  clientId: CLIENT_ID,
  clientSecret: secret,
});

function writerFor(server: TFakeGraph, http: THttpOptions = {}, secret = SECRET) {
  return createMicrosoft365Writer({ credentials: credentials(secret), endpoints: endpoints(server), http });
}

async function filesOf(server: TFakeGraph): Promise<Map<string, TSourceFile>> {
  const adapter = createMicrosoft365Adapter({ credentials: credentials(), endpoints: endpoints(server) });
  return new Map((await collect(adapter.files())).map((f) => [f.id, f]));
}

async function grantsOf(server: TFakeGraph) {
  const adapter = createMicrosoft365Adapter({ credentials: credentials(), endpoints: endpoints(server) });
  return collect(adapter.appGrants());
}

// A OneDrive file as the store keeps it (no drive id: map.ts gives personal drives none).
const BUDGET: TWriteFile = { id: "a-budget", driveId: null, ownerEmail: "alice@contoso.test" };
const PLAN: TWriteFile = { id: "a-plan", driveId: null, ownerEmail: "alice@contoso.test" };
const STRATEGY: TWriteFile = { id: "t-strategy", driveId: "drv-team", ownerEmail: "admin@contoso.test" };

const writesTo = (server: TFakeGraph, method: string, suffix: string) =>
  server.requests.filter((r) => r.method === method && r.path.endsWith(suffix));

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("Microsoft 365 writer: sharing", () => {
  it("deletes a OneDrive file's anonymous link, found through its owner's drive; the next read has no link", async () => {
    const { server } = await start();
    const writer = writerFor(server);
    expect(await writer.readPermission(BUDGET, "perm-anon")).toEqual({
      id: "perm-anon",
      type: "anyone",
      role: "reader",
      link: { expiresAt: null, discoverable: false },
      extra: {
        driveId: "drv-alice",
        graphId: "perm-anon",
        roles: ["read"],
        link: { scope: "anonymous", type: "view" },
      },
    });
    expect(await writer.deletePermission(BUDGET, "perm-anon")).toBe("applied");
    expect(writesTo(server, "DELETE", "/drives/drv-alice/items/a-budget/permissions/perm-anon")).toHaveLength(
      1,
    );
    const budget = (await filesOf(server)).get("a-budget");
    expect(budget?.permissions.map((p) => p.id)).toEqual(["perm-owner"]);
    // Done already: nothing is deleted twice.
    expect(await writer.deletePermission(BUDGET, "perm-anon")).toBe("already_gone");
    expect(await writer.readPermission(BUDGET, "perm-anon")).toBeNull();
    expect(
      writer.reversibility("remove_public_link", { id: "perm-anon", type: "anyone", role: "reader" }),
    ).toEqual({
      reversible: false,
      reason: expect.stringContaining("a new link would have a new URL") as string,
    });
  });

  it("finds a OneDrive by its owner's mail when the UPN differs", async () => {
    const { server } = await start();
    server.tenant.updateUser("m-alice", { userPrincipalName: "alice.able@contoso.test" });
    expect(await writerFor(server).deletePermission(BUDGET, "perm-anon")).toBe("applied");
    expect((await filesOf(server)).get("a-budget")?.permissions.map((p) => p.id)).toEqual(["perm-owner"]);
  });

  it("lowers a member's role with a PATCH of roles alone, and raises it back on undo", async () => {
    const { server } = await start();
    const writer = writerFor(server);
    const image = await writer.readPermission(STRATEGY, "perm-bob");
    expect(image).toMatchObject({
      id: "perm-bob",
      type: "user",
      role: "writer",
      emailAddress: "bob@contoso.test",
    });

    expect(await writer.updatePermissionRole(STRATEGY, "perm-bob", "reader")).toBe("applied");
    const patches = writesTo(server, "PATCH", "/permissions/perm-bob");
    expect(patches.map((r) => r.json)).toEqual([{ roles: ["read"] }]);
    const read = (await filesOf(server)).get("t-strategy")?.permissions.find((p) => p.id === "perm-bob");
    expect(read).toEqual({ id: "perm-bob", type: "user", role: "reader", emailAddress: "bob@contoso.test" });
    // Already so: no second PATCH.
    expect(await writer.updatePermissionRole(STRATEGY, "perm-bob", "reader")).toBe("already_gone");
    expect(writesTo(server, "PATCH", "/permissions/perm-bob")).toHaveLength(1);
    // A downgrade to a role above the one it has now is no raise: compared by rank, not equality.
    expect(await writer.updatePermissionRole(STRATEGY, "perm-bob", "writer")).toBe("already_gone");
    expect(writesTo(server, "PATCH", "/permissions/perm-bob")).toHaveLength(1);

    expect(await writer.updatePermissionRole(STRATEGY, "perm-bob", "writer", "restore")).toBe("applied");
    const back = (await filesOf(server)).get("t-strategy")?.permissions.find((p) => p.id === "perm-bob");
    expect(back?.role).toBe("writer");
    expect(await writer.updatePermissionRole(STRATEGY, "gone-perm", "reader")).toBe("already_gone");
  });

  it("refuses to change a sharing link's role or one grantee of a shared link", async () => {
    const { server } = await start();
    const writer = writerFor(server);
    const linkChange = await rejection(writer.updatePermissionRole(BUDGET, "perm-anon", "reader"));
    expect(linkChange).toBeInstanceOf(SourceWriteError);
    expect(linkChange).toMatchObject({ status: 400, code: "unsupported" });
    // perm-people is one link shared with two people: v1.0 removes it for both or not at all.
    const oneOfTwo = await rejection(writer.deletePermission(PLAN, "perm-people:1"));
    expect(oneOfTwo).toMatchObject({ status: 400, code: "unsupported" });
    expect((await filesOf(server)).get("a-plan")?.permissions.map((p) => p.id)).toEqual([
      "perm-people:0",
      "perm-people:1",
    ]);
    expect(writesTo(server, "PATCH", "/permissions/perm-anon")).toHaveLength(0);
  });

  it("removes an external user and restores them by invitation, signed in, not notified", async () => {
    const { server } = await start();
    const writer = writerFor(server);
    const image = await writer.readPermission(STRATEGY, "perm-guest");
    expect(image).toMatchObject({
      id: "perm-guest",
      type: "user",
      role: "writer",
      emailAddress: "guest@partner.example",
    });
    expect(writer.reversibility("remove_external_user", image ?? undefined)).toEqual({ reversible: true });
    expect(await writer.deletePermission(STRATEGY, "perm-guest")).toBe("applied");
    const after = (await filesOf(server)).get("t-strategy");
    expect(after?.permissions.some((p) => p.emailAddress === "guest@partner.example")).toBe(false);

    const restored = await writer.restorePermission(
      STRATEGY,
      image ?? { id: "", type: "user", role: "reader" },
    );
    expect(restored.id).not.toBe("perm-guest");
    expect(writesTo(server, "POST", "/drives/drv-team/items/t-strategy/invite").map((r) => r.json)).toEqual([
      {
        recipients: [{ email: "guest@partner.example" }],
        roles: ["write"],
        requireSignIn: true,
        sendInvitation: false,
      },
    ]);
    const back = (await filesOf(server)).get("t-strategy")?.permissions.find((p) => p.id === restored.id);
    expect(back).toEqual({
      id: restored.id,
      type: "user",
      role: "writer",
      emailAddress: "guest@partner.example",
    });
  });

  it("restores a member's deleted grant as a directory user", async () => {
    const { server } = await start();
    const writer = writerFor(server);
    const image = await writer.readPermission(STRATEGY, "perm-bob");
    expect(await writer.deletePermission(STRATEGY, "perm-bob")).toBe("applied");
    const { id } = await writer.restorePermission(
      STRATEGY,
      image ?? { id: "", type: "user", role: "reader" },
    );
    const back = (await filesOf(server)).get("t-strategy")?.permissions.find((p) => p.id === id);
    expect(back).toEqual({ id, type: "user", role: "writer", emailAddress: "bob@contoso.test" });
  });

  it("restores a group's deleted grant by inviting the group by its object id", async () => {
    const { server, fixture } = await start();
    fixture.groups = [{ id: "grp-sales", displayName: "Sales", mail: "sales@contoso.test" }];
    const strategy = fixture.drives
      .find((d) => d.id === "drv-team")
      ?.items.find((i) => i.id === "t-strategy");
    strategy?.permissions?.push({
      id: "perm-sales",
      roles: ["read"],
      grantedToV2: { group: { id: "grp-sales", displayName: "Sales" } },
    });
    const writer = writerFor(server);
    const image = await writer.readPermission(STRATEGY, "perm-sales");
    expect(image).toMatchObject({ id: "perm-sales", type: "group", role: "reader" });
    expect(await writer.deletePermission(STRATEGY, "perm-sales")).toBe("applied");
    const { id } = await writer.restorePermission(
      STRATEGY,
      image ?? { id: "", type: "group", role: "reader" },
    );
    expect(writesTo(server, "POST", "/drives/drv-team/items/t-strategy/invite").map((r) => r.json)).toEqual([
      {
        recipients: [{ objectId: "grp-sales" }],
        roles: ["read"],
        requireSignIn: true,
        sendInvitation: false,
      },
    ]);
    const back = (await writer.readPermission(STRATEGY, id)) ?? null;
    expect(back).toMatchObject({
      id,
      type: "group",
      role: "reader",
      extra: { grantedToV2: { group: { id: "grp-sales", displayName: "Sales" } } },
    });
    expect(back?.extra).not.toHaveProperty("invitation");
    // A group Graph cannot resolve is refused, never turned into a guest.
    const lost = await rejection(
      writer.restorePermission(STRATEGY, {
        ...(image ?? { id: "", type: "group", role: "reader" }),
        extra: { grantedToV2: { group: { id: "grp-gone" } } },
      }),
    );
    expect(lost).toMatchObject({ status: 400 });
  });

  it("refuses to re-create a link and to transfer ownership", async () => {
    const { server } = await start();
    const writer = writerFor(server);
    const image = await writer.readPermission(BUDGET, "perm-anon");
    expect(
      await rejection(writer.restorePermission(BUDGET, image ?? { id: "", type: "anyone", role: "reader" })),
    ).toMatchObject({
      status: 400,
      code: "unsupported",
      message: expect.stringContaining("new URL") as string,
    });
    const transfer = await rejection(writer.transferOwnership(BUDGET, "admin@contoso.test"));
    expect(transfer).toBeInstanceOf(SourceWriteError);
    expect(transfer).toMatchObject({ status: 400, code: "unsupported" });
    expect(writer.reversibility("transfer_ownership")).toMatchObject({ reversible: false });
    expect(writer.reversibility("remove_external_domain")).toMatchObject({ reversible: false });
    // Nothing reached the tenant: no write of any kind.
    expect(server.requests.filter((r) => r.method !== "GET" && !r.path.endsWith("/token"))).toHaveLength(0);
  });

  it("answers already_gone for an unknown file, permission or drive owner", async () => {
    const { server } = await start();
    const writer = writerFor(server);
    expect(await writer.deletePermission(STRATEGY, "no-such-perm")).toBe("already_gone");
    expect(await writer.deletePermission({ ...STRATEGY, id: "no-such-item" }, "perm-bob")).toBe(
      "already_gone",
    );
    expect(await writer.deletePermission({ ...BUDGET, ownerEmail: "left@contoso.test" }, "perm-anon")).toBe(
      "already_gone",
    );
    expect(await writer.readPermission({ ...STRATEGY, id: "no-such-item" }, "perm-bob")).toBeNull();
  });
});

describe("Microsoft 365 writer: app grants", () => {
  it("revokes a delegated consent and grants it back with the same scopes", async () => {
    const { server } = await start();
    const writer = writerFor(server);
    const grant = { id: "g-chatgpt", clientId: "app-chatgpt", userEmail: "alice@contoso.test" };
    const image = await writer.readGrant(grant);
    expect(image).toEqual({
      id: "g-chatgpt",
      extra: {
        kind: "delegated",
        clientId: "sp-chatgpt",
        consentType: "Principal",
        principalId: "m-alice",
        resourceId: "sp-graph",
        scope: " Files.Read.All User.Read offline_access",
      },
    });
    expect(writer.reversibility("revoke_oauth_grant")).toEqual({ reversible: true });
    expect(await writer.revokeGrant(grant)).toBe("applied");
    expect((await grantsOf(server)).some((g) => g.clientId === "app-chatgpt")).toBe(false);
    expect(await writer.revokeGrant(grant)).toBe("already_gone");
    expect(await writer.readGrant(grant)).toBeNull();

    const restored = await writer.restoreGrant?.(image ?? { id: "", extra: {} });
    expect(writesTo(server, "POST", "/v1.0/oauth2PermissionGrants").map((r) => r.json)).toEqual([
      {
        clientId: "sp-chatgpt",
        consentType: "Principal",
        principalId: "m-alice",
        resourceId: "sp-graph",
        scope: " Files.Read.All User.Read offline_access",
      },
    ]);
    const back = (await grantsOf(server)).find((g) => g.clientId === "app-chatgpt");
    expect(back).toMatchObject({
      id: restored?.id,
      userEmail: "alice@contoso.test",
      scopes: ["Files.Read.All", "User.Read", "offline_access"],
    });
    // Undo again: Graph's 409 names the grant already there, which is the answer.
    expect(await writer.restoreGrant?.(image ?? { id: "", extra: {} })).toEqual(restored);
  });

  it("revokes a tenant-wide consent and grants it back without a principal", async () => {
    const { server } = await start();
    const writer = writerFor(server);
    const grant = { id: "g-mailmerge", clientId: "app-mailmerge", userEmail: "" };
    const image = await writer.readGrant(grant);
    expect(await writer.revokeGrant(grant)).toBe("applied");
    await writer.restoreGrant?.(image ?? { id: "", extra: {} });
    const sent = writesTo(server, "POST", "/v1.0/oauth2PermissionGrants")[0]?.json;
    expect(sent).toEqual({
      clientId: "sp-mailmerge",
      consentType: "AllPrincipals",
      resourceId: "sp-graph",
      scope: "Mail.Read",
    });
    expect((await grantsOf(server)).find((g) => g.clientId === "app-mailmerge")?.scopes).toEqual([
      "Mail.Read",
    ]);
  });

  it("revokes an app's application permissions (every role on the API) and assigns them back", async () => {
    const { server, fixture } = await start();
    const writer = writerFor(server);
    const grant = { id: "approle:sp-archiver:sp-graph", clientId: "app-archiver", userEmail: "" };
    const image = await writer.readGrant(grant);
    expect(image).toEqual({
      id: grant.id,
      extra: {
        kind: "appRole",
        principalId: "sp-archiver",
        resourceId: "sp-graph",
        appRoleIds: ["01d4889c-1287-42c6-ac1f-5d1e02578ef6", "810c84a8-4a9e-49e6-bf7d-12d183f40d01"],
      },
    });
    expect(await writer.revokeGrant(grant)).toBe("applied");
    expect(writesTo(server, "DELETE", "/appRoleAssignedTo/ar-1")).toHaveLength(1);
    expect(writesTo(server, "DELETE", "/appRoleAssignedTo/ar-2")).toHaveLength(1);
    expect((await grantsOf(server)).some((g) => g.id === grant.id)).toBe(false);
    // A user's assignment to the same API is not the app's permission: untouched.
    expect(fixture.appRoleAssignments.map((a) => a.id)).toEqual(["ar-user"]);
    expect(await writer.revokeGrant(grant)).toBe("already_gone");

    expect(await writer.restoreGrant?.(image ?? { id: "", extra: {} })).toEqual({ id: grant.id });
    const back = (await grantsOf(server)).find((g) => g.id === grant.id);
    expect(back?.scopes).toEqual(["Files.Read.All", "Mail.Read"]);
    // Undo again: both roles are there, nothing is posted twice.
    await writer.restoreGrant?.(image ?? { id: "", extra: {} });
    expect(writesTo(server, "POST", "/servicePrincipals/sp-graph/appRoleAssignedTo")).toHaveLength(2);
  });

  it("lists the write permissions it needs", async () => {
    const { server } = await start();
    const requirements = writerFor(server).requirements();
    expect(requirements).toEqual(MICROSOFT_WRITE_ACCESS);
    expect(requirements.map((r) => r.feature)).toEqual([
      "Remediation: file sharing",
      "Remediation: app consent",
      "Remediation: app permissions",
    ]);
  });
});

describe("Microsoft 365 writer: Graph's refusals", () => {
  it("names the missing application permission on a 403", async () => {
    const { server, fixture } = await start(ALL_GRAPH_ROLES);
    const writer = writerFor(server);
    const file = await rejection(writer.deletePermission(STRATEGY, "perm-bob"));
    expect(file).toBeInstanceOf(SourceWriteError);
    expect(file).toMatchObject({
      status: 403,
      code: "accessDenied",
      message: expect.stringContaining("Files.ReadWrite.All") as string,
    });
    const consent = await rejection(
      writer.revokeGrant({ id: "g-chatgpt", clientId: "app-chatgpt", userEmail: "" }),
    );
    expect(consent).toMatchObject({
      status: 403,
      code: "Authorization_RequestDenied",
      message: expect.stringContaining("DelegatedPermissionGrant.ReadWrite.All") as string,
    });
    const roles = await rejection(
      writer.revokeGrant({ id: "approle:sp-archiver:sp-graph", clientId: "app-archiver", userEmail: "" }),
    );
    expect(roles).toMatchObject({
      status: 403,
      code: "Authorization_RequestDenied",
      message: expect.stringContaining("AppRoleAssignment.ReadWrite.All") as string,
    });
    // Nothing changed.
    expect(fixture.permissionGrants.some((g) => g.id === "g-chatgpt")).toBe(true);
    expect(fixture.appRoleAssignments).toHaveLength(3);
  });

  it("rides out 429s with Retry-After and makes exactly one change", async () => {
    const { server, fixture } = await start();
    const { delays, http } = recordingSleep();
    const writer = writerFor(server, http);
    server.injectFault({
      status: 429,
      count: 2,
      retryAfter: 3,
      pathPrefix: "/v1.0/drives/drv-team/items/t-strategy/permissions/perm-guest",
    });
    expect(await writer.deletePermission(STRATEGY, "perm-guest")).toBe("applied");
    expect(delays).toEqual([3000, 3000]);
    expect(writesTo(server, "DELETE", "/permissions/perm-guest")).toHaveLength(3);
    const strategy = fixture.drives
      .find((d) => d.id === "drv-team")
      ?.items.find((i) => i.id === "t-strategy");
    expect(strategy?.permissions?.map((p) => p.id)).toEqual(["perm-org", "perm-bob"]);
  });

  it("hands back a 429 it could not ride out, with Graph's wait", async () => {
    const { server } = await start();
    const writer = writerFor(server, { ...recordingSleep().http, retry: { maxAttempts: 3 } });
    server.injectFault({ status: 429, count: 3, retryAfter: 7, pathPrefix: "/v1.0/oauth2PermissionGrants" });
    const error = await rejection(
      writer.revokeGrant({ id: "g-mi", clientId: "app-backup-mi", userEmail: "" }),
    );
    expect(error).toBeInstanceOf(SourceWriteError);
    expect(error).toMatchObject({ status: 429, code: "TooManyRequests", retryAfterMs: 7000 });
  });

  it("is unavailable when Graph keeps failing with 5xx", async () => {
    const { server } = await start();
    const writer = writerFor(server, { ...recordingSleep().http, retry: { maxAttempts: 3 } });
    server.injectFault({ status: 500, count: 3, pathPrefix: "/v1.0/drives/drv-team" });
    const error = await rejection(writer.deletePermission(STRATEGY, "perm-bob"));
    expect(error).toBeInstanceOf(SourceUnavailableError);
    expect(error).not.toBeInstanceOf(SourceWriteError);
    // A 503 that names its wait is handed back with it.
    server.injectFault({ status: 503, count: 3, retryAfter: 5, pathPrefix: "/v1.0/drives/drv-team" });
    expect(await rejection(writer.deletePermission(STRATEGY, "perm-bob"))).toMatchObject({
      status: 503,
      retryAfterMs: 5000,
    });
    expect(await writer.deletePermission(STRATEGY, "perm-bob")).toBe("applied");
  });

  it("is an auth error when the app's credentials are refused", async () => {
    const { server } = await start();
    const error = await rejection(writerFor(server, {}, "wrong").deletePermission(STRATEGY, "perm-bob"));
    expect(error).toBeInstanceOf(SourceAuthError);
  });
});
