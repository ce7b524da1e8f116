import { afterEach, describe, expect, it } from "vitest";
import { collect, recordingSleep } from "../../../fakes/src/adapter-harness";
import { ALL_GRAPH_WRITE_ROLES, startFakeGraph, type TFakeGraph } from "../../../fakes/src/fake-graph";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../../../fakes/src/graph-fixture";
import { EVERYONE_CLAIM_REASON, NEW_LINK_REASON, NO_RESTRICT_REASON } from "../reversibility";
import { type TWriteFile } from "../write";
import { createMicrosoft365Adapter } from "./adapter";
import { createMicrosoft365Writer } from "./write";

// Internal exposure at the source (issue 30): the Microsoft writer removes an organization-scope
// sharing link, a grant to SharePoint's Everyone claims and a group's grant with Graph's
// `DELETE /drives/{d}/items/{i}/permissions/{p}`. Undo re-invites a group by its object id; a link
// would come back with a new URL and an Everyone claim cannot be invited: both are irreversible.

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";
const STRATEGY: TWriteFile = { id: "t-strategy", driveId: "drv-team", ownerEmail: "admin@contoso.test" };
const EVERYONE_BUT_GUESTS = `c:0-.f|rolemanager|spo-grid-all-users/${GRAPH_TENANT_ID}`;

let fake: TFakeGraph | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function start() {
  const fixture = { ...buildGraphFixture(), grantedRoles: [...ALL_GRAPH_WRITE_ROLES] };
  fixture.groups = [{ id: "grp-all", displayName: "All Company", mail: "allcompany@contoso.test" }];
  const strategy = fixture.drives.find((d) => d.id === "drv-team")?.items.find((i) => i.id === "t-strategy");
  strategy?.permissions?.push(
    {
      id: "perm-everyone",
      roles: ["read"],
      grantedToV2: {
        siteUser: { displayName: "Everyone except external users", loginName: EVERYONE_BUT_GUESTS },
      },
    },
    {
      id: "perm-all",
      roles: ["write"],
      grantedToV2: { group: { id: "grp-all", displayName: "All Company" } },
    },
  );
  fake = await startFakeGraph({ fixture, clientId: CLIENT_ID, clientSecret: SECRET });
  return fake;
}

const credentials = { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET };
const endpoints = (server: TFakeGraph) => ({ graphBaseUrl: server.url, loginBaseUrl: server.url });
const writerFor = (server: TFakeGraph, http = {}) =>
  createMicrosoft365Writer({ credentials, endpoints: endpoints(server), http });
async function strategyPermissions(server: TFakeGraph) {
  const adapter = createMicrosoft365Adapter({ credentials, endpoints: endpoints(server) });
  return (await collect(adapter.files())).find((f) => f.id === "t-strategy")?.permissions.map((p) => p.id);
}
const writes = (server: TFakeGraph) =>
  server.requests.filter(
    (r) => r.method !== "GET" && !r.path.endsWith("/token") && !r.path.endsWith("/extractSensitivityLabels"),
  );
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );

describe("Microsoft 365 writer: internal exposure", () => {
  it("deletes an organization-wide link; it cannot come back with its URL", async () => {
    const server = await start();
    const writer = writerFor(server);
    const image = await writer.readPermission(STRATEGY, "perm-org");
    expect(image).toMatchObject({ id: "perm-org", type: "domain", role: "reader", domain: "contoso.test" });
    expect(await writer.deletePermission(STRATEGY, "perm-org")).toBe("applied");
    expect(await writer.deletePermission(STRATEGY, "perm-org")).toBe("already_gone");
    expect(await strategyPermissions(server)).toEqual(["perm-everyone", "perm-all"]);
    expect(writer.reversibility("remove_org_wide_link")).toEqual({
      reversible: false,
      reason: NEW_LINK_REASON,
    });
    if (!image) throw new Error("no image");
    expect(await rejection(writer.restorePermission(STRATEGY, image))).toMatchObject({
      status: 400,
      code: "unsupported",
      message: `Microsoft 365: ${NEW_LINK_REASON}`,
    });
    expect(writes(server).map((r) => `${r.method} ${r.path}`)).toEqual([
      "DELETE /v1.0/drives/drv-team/items/t-strategy/permissions/perm-org",
      "DELETE /v1.0/drives/drv-team/items/t-strategy/permissions/perm-org",
    ]);
  });

  it("deletes a grant to Everyone except external users; no invitation can name the claim again", async () => {
    const server = await start();
    const writer = writerFor(server);
    const image = await writer.readPermission(STRATEGY, "perm-everyone");
    expect(image).toMatchObject({ id: "perm-everyone", type: "domain", role: "reader" });
    expect(image?.extra).not.toHaveProperty("link");
    expect(await writer.deletePermission(STRATEGY, "perm-everyone")).toBe("applied");
    expect(await strategyPermissions(server)).toEqual(["perm-org", "perm-all"]);
    expect(writer.reversibility("remove_everyone_grant")).toEqual({
      reversible: false,
      reason: EVERYONE_CLAIM_REASON,
    });
    if (!image) throw new Error("no image");
    expect(await rejection(writer.restorePermission(STRATEGY, image))).toMatchObject({
      status: 400,
      code: "unsupported",
      message: `Microsoft 365: ${EVERYONE_CLAIM_REASON}`,
    });
    expect(writes(server).filter((r) => r.path.endsWith("/invite"))).toHaveLength(0);
  });

  it("deletes a group's grant and re-invites the group by its object id on undo", async () => {
    const server = await start();
    const writer = writerFor(server);
    expect(writer.reversibility("remove_group_grant")).toEqual({ reversible: true });
    const image = await writer.readPermission(STRATEGY, "perm-all");
    expect(image).toMatchObject({ id: "perm-all", type: "group", role: "writer" });
    expect(await writer.deletePermission(STRATEGY, "perm-all")).toBe("applied");
    expect(await strategyPermissions(server)).toEqual(["perm-org", "perm-everyone"]);
    if (!image) throw new Error("no image");
    const { id } = await writer.restorePermission(STRATEGY, image);
    expect(writes(server).at(-1)?.json).toEqual({
      recipients: [{ objectId: "grp-all" }],
      roles: ["write"],
      requireSignIn: true,
      sendInvitation: false,
    });
    expect(await writer.readPermission(STRATEGY, id)).toMatchObject({
      id,
      type: "group",
      role: "writer",
      extra: { grantedToV2: { group: { id: "grp-all", displayName: "All Company" } } },
    });
  });

  it("rides out Graph's 429 with Retry-After on the delete and deletes once", async () => {
    const server = await start();
    const { delays, http } = recordingSleep();
    server.injectFault({
      status: 429,
      count: 2,
      retryAfter: 5,
      pathPrefix: "/v1.0/drives/drv-team/items/t-strategy/permissions/perm-everyone",
    });
    expect(await writerFor(server, http).deletePermission(STRATEGY, "perm-everyone")).toBe("applied");
    expect(delays).toEqual([5000, 5000]);
    expect(writes(server)).toHaveLength(3);
    expect(await strategyPermissions(server)).toEqual(["perm-org", "perm-all"]);
  });

  it("refuses to restrict a link without a call: Graph's PATCH changes roles only", async () => {
    const server = await start();
    const writer = writerFor(server);
    expect(await rejection(writer.restrictLink?.(STRATEGY, "perm-org") ?? Promise.resolve())).toMatchObject({
      status: 400,
      code: "unsupported",
      message: `Microsoft 365: ${NO_RESTRICT_REASON}`,
    });
    expect(writer.reversibility("restrict_org_wide_link")).toEqual({
      reversible: false,
      reason: NO_RESTRICT_REASON,
    });
    expect(writes(server)).toHaveLength(0);
  });
});
