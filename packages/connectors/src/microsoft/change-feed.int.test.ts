import { afterEach, describe, expect, it } from "vitest";
import { type THttpOptions } from "../http/client";
import { collect, recordingSleep } from "../../../fakes/src/adapter-harness";
import {
  ALL_GRAPH_ROLES,
  startFakeGraph,
  type TFakeGraph,
  type TGraphFixture,
} from "../../../fakes/src/fake-graph";
import { type TFakeDriveItem } from "../../../fakes/src/fake-graph-delta";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../../../fakes/src/graph-fixture";
import {
  ChangeCursorExpiredError,
  type TChangeCursor,
  type TChangeFeed,
  type TFileChange,
  type TSourceFile,
} from "../types";
import { createMicrosoft365Adapter } from "./adapter";
import { DELTA_PREFER } from "./change-feed";

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";
const LABEL_GENERAL = "5b1a6d0e-0000-4000-8000-000000000001";
const ALICE = { id: "m-alice", displayName: "Alice Able" };
const ADMIN = { id: "m-admin", displayName: "Ada Admin" };
const ANONYMOUS_LINK = { roles: ["read"], link: { scope: "anonymous" as const, type: "view" } };

let fake: TFakeGraph | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function start(opts: { pageSize?: number; grantedRoles?: string[] } = {}) {
  const fixture: TGraphFixture = {
    ...buildGraphFixture({ extraFiles: 3 }),
    ...(opts.grantedRoles ? { grantedRoles: opts.grantedRoles } : {}),
  };
  fake = await startFakeGraph({
    fixture,
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    pageSize: opts.pageSize,
  });
  return fake;
}

/** A fresh adapter, as each scan makes one. */
function adapterFor(server: TFakeGraph, http: THttpOptions = {}) {
  return createMicrosoft365Adapter({
    credentials: { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET },
    endpoints: { graphBaseUrl: server.url, loginBaseUrl: server.url, manageBaseUrl: server.url },
    http,
  });
}

function feedOf(server: TFakeGraph, http?: THttpOptions): TChangeFeed {
  const feed = adapterFor(server, http).changeFeed;
  if (!feed) throw new Error("the Microsoft 365 adapter has a change feed");
  return feed;
}

function file(id: string, name: string, parent?: string, permissions = [ANONYMOUS_LINK]): TFakeDriveItem {
  return {
    id,
    name,
    size: 100,
    lastModifiedDateTime: "2025-06-01T00:00:00Z",
    file: { mimeType: "text/plain" },
    createdBy: { user: ALICE },
    ...(parent ? { parentReference: { id: parent } } : {}),
    permissions: permissions.map((p, i) => ({ id: `${id}-perm-${i}`, ...p })),
  };
}

/**
 * What a store does with one read's changes (types.ts `TFileChange`): the last report of a file
 * wins; a gone drive or owner drops every stored file of it this read did not report.
 */
function apply(stored: Map<string, TSourceFile>, changes: TFileChange[]): Map<string, TSourceFile> {
  const out = new Map(stored);
  const reported = new Set(changes.flatMap((c) => (c.kind === "file" ? [c.file.id] : [])));
  for (const change of changes) {
    if (change.kind === "file") out.set(change.file.id, change.file);
    if (change.kind === "removed") out.delete(change.fileId);
    for (const [id, f] of out) {
      if (reported.has(id)) continue;
      if (change.kind === "driveGone" && f.driveId === change.driveId) out.delete(id);
      if (change.kind === "ownerGone" && f.driveId === null && f.ownerEmail === change.ownerEmail)
        out.delete(id);
    }
  }
  return out;
}

const byId = (files: Iterable<TSourceFile>) => [...files].sort((a, b) => a.id.localeCompare(b.id));

/** The start of a full scan: the cursor first, then the full read. */
async function fullScan(
  server: TFakeGraph,
): Promise<{ cursor: TChangeCursor; stored: Map<string, TSourceFile> }> {
  const adapter = adapterFor(server);
  const cursor = await (adapter.changeFeed as TChangeFeed).start();
  const stored = new Map((await collect(adapter.files())).map((f) => [f.id, f]));
  return { cursor, stored };
}

describe("Microsoft 365 change feed (drive delta) against the fake Graph", () => {
  it("starts from token=latest on every drive the full read covers", async () => {
    const server = await start();
    const cursor = await feedOf(server).start();
    expect(cursor.source).toBe("microsoft_365");
    expect(Object.keys(cursor.feeds).sort()).toEqual([
      "drive:drv-alice",
      "drive:drv-projects",
      "drive:drv-team",
      "format",
      "onedrive:m-alice",
      "owner:drv-alice",
    ]);
    expect(cursor.feeds["owner:drv-alice"]).toBe("alice@contoso.test");
    expect(cursor.feeds["onedrive:m-alice"]).toBe("drv-alice");
    const latest = server.requests.filter((r) => r.path.endsWith("/root/delta"));
    expect(latest.map((r) => r.query.get("token"))).toEqual(["latest", "latest", "latest"]);
    expect(latest.every((r) => r.headers.prefer === DELTA_PREFER)).toBe(true);
    // Nothing changed: nothing to report. A user whose OneDrive the cursor knows is not asked again.
    const asked = server.requests.length;
    const read = feedOf(server).read(cursor);
    expect(await collect(read.changes)).toEqual([]);
    const probed = server.requests.slice(asked).filter((r) => /^\/v1\.0\/users\/[^/]+\/drives$/.test(r.path));
    expect(probed.map((r) => r.path).sort()).toEqual(
      ["/v1.0/users/m-admin/drives", "/v1.0/users/m-bob/drives", "/v1.0/users/m-dave/drives"].sort(),
    );
    expect(read.cursor()).toEqual(cursor);
  });

  it("reports added, changed, relabelled and deleted files and sharing changes, as the full read maps them", async () => {
    const server = await start({ pageSize: 2 });
    const { cursor, stored } = await fullScan(server);
    const { tenant } = server;
    tenant.putItem("drv-team", { ...file("t-new", "Minutes.txt"), createdBy: { user: ADMIN } });
    // A sharing link added to one file, another removed from a second: permission-only changes.
    tenant.setPermissions("drv-alice", "a-extra-1", [{ id: "x1-anon", ...ANONYMOUS_LINK }]);
    tenant.setPermissions("drv-alice", "a-budget", [
      { id: "perm-owner", roles: ["owner"], grantedToV2: { user: ALICE } },
    ]);
    tenant.setLabels("drv-team", "t-strategy", [LABEL_GENERAL]);
    tenant.deleteItem("drv-alice", "a-extra-0");
    // A folder added: folders are no files.
    tenant.putItem("drv-alice", { id: "a-new-folder", name: "New", folder: { childCount: 0 } });

    const read = feedOf(server).read(cursor);
    const changes = await collect(read.changes);
    const summary = changes.map((c) =>
      c.kind === "file" ? `file ${c.file.id}` : `${c.kind} ${JSON.stringify(c)}`,
    );
    expect(summary.sort()).toEqual(
      [
        "file a-budget",
        "file a-extra-1",
        "file t-new",
        "file t-strategy",
        `removed ${JSON.stringify({ kind: "removed", fileId: "a-extra-0" })}`,
      ].sort(),
    );
    const files = new Map(changes.flatMap((c) => (c.kind === "file" ? [[c.file.id, c.file] as const] : [])));
    expect(files.get("a-budget")?.permissions).toEqual([
      { id: "perm-owner", type: "user", role: "owner", emailAddress: "alice@contoso.test" },
    ]);
    expect(files.get("a-extra-1")?.permissions).toEqual([
      { id: "x1-anon", type: "anyone", role: "reader", link: { expiresAt: null, discoverable: false } },
    ]);
    expect(files.get("t-strategy")?.label).toBe("General");
    expect(files.get("t-new")).toMatchObject({ driveId: "drv-team", ownerEmail: "admin@contoso.test" });

    const end = byId(await collect(adapterFor(server).files()));
    expect(byId(apply(stored, changes).values())).toEqual(end);
    // The next read starts where this one ended: nothing new.
    expect(await collect(feedOf(server).read(read.cursor()).changes)).toEqual([]);
  });

  it("re-reads a drive whose folder was deleted, and reports new and deleted drives and owners", async () => {
    const server = await start();
    const { tenant } = server;
    tenant.putItem("drv-alice", { id: "a-folder", name: "Shared", folder: { childCount: 2 } });
    tenant.putItem("drv-alice", file("a-in-1", "In 1.txt", "a-folder"));
    tenant.putItem("drv-alice", file("a-in-2", "In 2.txt", "a-folder"));
    const { cursor, stored } = await fullScan(server);
    expect(stored.has("a-in-1")).toBe(true);

    tenant.deleteItem("drv-alice", "a-folder");
    tenant.deleteDrive("drv-projects");
    tenant.addDrive({
      id: "drv-legal",
      name: "Legal",
      driveType: "documentLibrary",
      owner: { group: { id: "grp-legal", displayName: "Legal" } },
      items: [
        { id: "l-root", name: "root", root: {}, folder: { childCount: 1 } },
        { ...file("l-nda", "NDA.txt"), createdBy: { user: ADMIN } },
      ],
    });

    const changes = await collect(feedOf(server).read(cursor).changes);
    const gone = changes.filter((c) => c.kind !== "file" && c.kind !== "removed");
    expect(gone).toEqual([
      // A drive new to the cursor is read whole; so is Alice's OneDrive, where Graph reported the
      // deleted folder alone; a library no longer listed is gone.
      { kind: "driveGone", driveId: "drv-legal" },
      { kind: "ownerGone", ownerEmail: "alice@contoso.test" },
      { kind: "driveGone", driveId: "drv-projects" },
    ]);
    const end = byId(await collect(adapterFor(server).files()));
    expect(end.map((f) => f.id)).toContain("l-nda");
    expect(end.map((f) => f.id)).not.toContain("a-in-1");
    expect(byId(apply(stored, changes).values())).toEqual(end);
  });

  it("reports a deleted user's OneDrive as its owner gone", async () => {
    const server = await start();
    const { cursor, stored } = await fullScan(server);
    server.tenant.deleteUser("m-alice");
    const changes = await collect(feedOf(server).read(cursor).changes);
    expect(changes).toEqual([{ kind: "ownerGone", ownerEmail: "alice@contoso.test" }]);
    const end = byId(await collect(adapterFor(server).files()));
    expect(byId(apply(stored, changes).values())).toEqual(end);
  });

  it("re-reads a OneDrive whose owner was renamed, so its files carry the new email", async () => {
    const server = await start();
    const { cursor, stored } = await fullScan(server);
    server.tenant.updateUser("m-alice", { mail: "alice.able@contoso.test" });
    const changes = await collect(feedOf(server).read(cursor).changes);
    expect(changes.filter((c) => c.kind === "ownerGone")).toEqual([
      { kind: "ownerGone", ownerEmail: "alice@contoso.test" },
      { kind: "ownerGone", ownerEmail: "alice.able@contoso.test" },
    ]);
    const end = byId(await collect(adapterFor(server).files()));
    expect(end.find((f) => f.id === "a-budget")?.ownerEmail).toBe("alice.able@contoso.test");
    expect(byId(apply(stored, changes).values())).toEqual(end);
  });

  it("gives the same changes when the same cursor is read twice, and loses none made while reading", async () => {
    const server = await start({ pageSize: 1 });
    const { cursor, stored } = await fullScan(server);
    server.tenant.putItem("drv-alice", file("a-one", "One.txt"));
    server.tenant.putItem("drv-alice", file("a-two", "Two.txt"));
    server.tenant.deleteItem("drv-alice", "a-plan");

    const first = await collect(feedOf(server).read(cursor).changes);
    const second = await collect(feedOf(server).read(cursor).changes);
    expect(second).toEqual(first);

    // A change made while the read is paging is reported now or by the next read, never lost.
    const read = feedOf(server).read(cursor);
    const seen: TFileChange[] = [];
    for await (const change of read.changes) {
      if (seen.length === 0) server.tenant.putItem("drv-alice", file("a-during", "During.txt"));
      seen.push(change);
    }
    const later = await collect(feedOf(server).read(read.cursor()).changes);
    const end = byId(await collect(adapterFor(server).files()));
    expect(byId(apply(apply(stored, seen), later).values())).toEqual(end);
    expect(end.map((f) => f.id)).toContain("a-during");
  });

  it("survives 429 with Retry-After and 503 on delta pages without losing a change", async () => {
    const server = await start({ pageSize: 1 });
    const { cursor } = await fullScan(server);
    server.tenant.putItem("drv-alice", file("a-one", "One.txt"));
    server.tenant.putItem("drv-alice", file("a-two", "Two.txt"));
    const calm = await collect(feedOf(server).read(cursor).changes);

    server.injectFault({
      status: 429,
      count: 2,
      retryAfter: 3,
      pathPrefix: "/v1.0/drives/drv-alice/root/delta",
    });
    const { delays, http } = recordingSleep();
    const throttled = feedOf(server, http).read(cursor);
    const changes: TFileChange[] = [];
    for await (const change of throttled.changes) {
      changes.push(change);
      // Mid-way, Graph is briefly unavailable too.
      if (changes.length === 1) {
        server.injectFault({ status: 503, count: 1, pathPrefix: "/v1.0/drives/drv-alice/root/delta" });
      }
    }
    expect(changes).toEqual(calm);
    expect(delays.slice(0, 2)).toEqual([3000, 3000]);
    expect(delays).toHaveLength(3);
    expect(throttled.cursor().feeds["drive:drv-alice"]).toBeTruthy();
  });

  it("throws ChangeCursorExpiredError for a token Graph no longer serves (410 resyncRequired)", async () => {
    const server = await start();
    const { cursor } = await fullScan(server);
    server.tenant.expireDeltaTokens("drv-team");
    const error = await collect(feedOf(server).read(cursor).changes).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChangeCursorExpiredError);
    expect((error as ChangeCursorExpiredError).feed).toBe("drive:drv-team");
    expect((error as Error).message).toContain("resyncRequired");
    // A fresh start works again.
    const fresh = await feedOf(server).start();
    expect(await collect(feedOf(server).read(fresh).changes)).toEqual([]);
  });

  it("expires a cursor of another source or format", async () => {
    const server = await start();
    const cursors: TChangeCursor[] = [
      { source: "google_workspace", feeds: {} },
      { source: "microsoft_365", feeds: { format: "graph-drive-delta/0" } },
    ];
    for (const cursor of cursors) {
      await expect(collect(feedOf(server).read(cursor).changes)).rejects.toThrow(ChangeCursorExpiredError);
    }
  });

  it("without Sites.FullControl.All reads in full every time, and says why", async () => {
    const server = await start({
      grantedRoles: ALL_GRAPH_ROLES.filter((r) => r !== "Sites.FullControl.All"),
    });
    const cursor = await feedOf(server).start();
    expect(server.requests.some((r) => r.path.endsWith("/root/delta"))).toBe(false);
    const error = await collect(feedOf(server).read(cursor).changes).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChangeCursorExpiredError);
    expect((error as Error).message).toContain("Sites.FullControl.All");
  });
});

/** A delta request to the fake as Graph sees it, with a token the fake issued and optional headers. */
async function deltaGet(server: TFakeGraph, pathAndQuery: string, headers: Record<string, string> = {}) {
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: CLIENT_ID,
    client_secret: SECRET,
    scope: "https://graph.microsoft.com/.default",
  });
  const token = (await (
    await fetch(`${server.url}/${GRAPH_TENANT_ID}/oauth2/v2.0/token`, { method: "POST", body: form })
  ).json()) as { access_token: string };
  const response = await fetch(
    pathAndQuery.startsWith("http") ? pathAndQuery : `${server.url}${pathAndQuery}`,
    {
      headers: { authorization: `Bearer ${token.access_token}`, ...headers },
    },
  );
  return {
    status: response.status,
    location: response.headers.get("location"),
    body: (await response.json()) as {
      value?: Array<Record<string, unknown>>;
      "@odata.deltaLink"?: string;
      "@odata.nextLink"?: string;
      error?: { code: string; message: string };
    },
  };
}

describe("the fake's drive delta behaves as Graph documents it", () => {
  it("answers token=latest with no item, reports a deleted file without its name, and refuses unknown options", async () => {
    const server = await start();
    const latest = await deltaGet(server, "/v1.0/drives/drv-alice/root/delta?token=latest");
    expect(latest.body.value).toEqual([]);
    server.tenant.deleteItem("drv-alice", "a-plan");
    const link = latest.body["@odata.deltaLink"] ?? "";
    const next = await deltaGet(server, link);
    expect(next.body.value).toEqual([
      {
        id: "a-plan",
        parentReference: { driveId: "drv-alice", driveType: "business" },
        file: {},
        deleted: { state: "deleted" },
      },
    ]);
    const refused = await deltaGet(server, "/v1.0/drives/drv-alice/root/delta?$skip=2");
    expect(refused.status).toBe(400);
  });

  it("answers an expired or unknown token with 410 resyncRequired and a Location that starts over", async () => {
    const server = await start();
    const latest = await deltaGet(server, "/v1.0/drives/drv-alice/root/delta?token=latest");
    server.tenant.expireDeltaTokens();
    for (const url of [
      latest.body["@odata.deltaLink"] ?? "",
      "/v1.0/drives/drv-alice/root/delta?token=bogus",
    ]) {
      const gone = await deltaGet(server, url);
      expect(gone.status).toBe(410);
      expect(gone.body.error?.code).toBe("resyncRequired");
      expect(gone.location).toBe(`${server.url}/v1.0/drives/drv-alice/root/delta`);
    }
  });

  it("reports a permission-only change only with Sites.FullControl.All and the sharing preferences", async () => {
    const server = await start();
    const latest = await deltaGet(server, "/v1.0/drives/drv-alice/root/delta?token=latest");
    server.tenant.setPermissions("drv-alice", "a-plan", []);
    const link = latest.body["@odata.deltaLink"] ?? "";
    expect((await deltaGet(server, link)).body.value).toEqual([]);
    const shown = await deltaGet(server, link, { prefer: DELTA_PREFER });
    expect(shown.body.value).toEqual([
      expect.objectContaining({ id: "a-plan", "@microsoft.graph.sharedChanged": "True" }),
    ]);
  });
});
