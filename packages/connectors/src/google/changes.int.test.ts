import { describe, expect, it } from "vitest";
import { type THttpOptions } from "../http/client";
import { collect, recordingSleep, useFakeGoogle } from "../../../fakes/src/adapter-harness";
import { type TFakeGoogle } from "../../../fakes/src/fake-google";
import { type TFakeGoogleTenant } from "../../../fakes/src/fake-google-changes";
import { buildGoogleFixture, generateServiceAccount } from "../../../fakes/src/google-fixture";
import {
  ChangeCursorExpiredError,
  type TChangeCursor,
  type TChangeFeed,
  type TFileChange,
  type TSourceFile,
} from "../types";
import { createGoogleWorkspaceAdapter } from "./adapter";

// The change feed against the fake Drive: whatever the tenant does between two scans, the full
// read at the first scan with the changes applied must equal a full read at the second.

const ACCOUNT = generateServiceAccount("admin@acme.test");

// Small pages: every feed and listing pages.
const start = useFakeGoogle(ACCOUNT, { pageSize: 2 });

/** A fresh adapter, as each scan makes one. */
const adapterFor = (server: TFakeGoogle, http: THttpOptions = {}) =>
  createGoogleWorkspaceAdapter({
    credentials: ACCOUNT.credentials,
    endpoints: server.endpoints,
    http: { retry: { maxAttempts: 5 }, ...http },
  });

function feedOf(server: TFakeGoogle, http?: THttpOptions): TChangeFeed {
  const feed = adapterFor(server, http).changeFeed;
  if (!feed) throw new Error("a delegated Google adapter has a change feed");
  return feed;
}

const byId = (files: TSourceFile[]) => new Map(files.map((f) => [f.id, f]));
const sorted = (files: Map<string, TSourceFile>) =>
  [...files.values()].sort((a, b) => a.id.localeCompare(b.id));

/** The changes applied to a snapshot the way the store applies them (types.ts `TFileChange`). */
function apply(snapshot: Map<string, TSourceFile>, changes: TFileChange[]): Map<string, TSourceFile> {
  const out = new Map(snapshot);
  const reported = new Set<string>();
  for (const change of changes) {
    if (change.kind === "file") {
      out.set(change.file.id, change.file);
      reported.add(change.file.id);
    } else if (change.kind === "removed") out.delete(change.fileId);
  }
  for (const change of changes) {
    for (const [id, file] of out) {
      if (reported.has(id)) continue;
      if (change.kind === "ownerGone" && file.driveId === null && file.ownerEmail === change.ownerEmail)
        out.delete(id);
      if (change.kind === "driveGone" && file.driveId === change.driveId) out.delete(id);
    }
  }
  return out;
}

async function readAll(feed: TChangeFeed, since: TChangeCursor) {
  const read = feed.read(since);
  const changes = await collect(read.changes);
  return { changes, cursor: read.cursor() };
}

const owner = (email: string, id = `p-${email}`) => ({
  id,
  type: "user" as const,
  role: "owner" as const,
  emailAddress: email,
});

/** A file as the fixture holds it. */
function file(id: string, ownerEmail: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name: `${id}.txt`,
    mimeType: "text/plain",
    owners: [{ emailAddress: ownerEmail }],
    modifiedTime: "2025-06-01T00:00:00.000Z",
    size: "10",
    permissions: [owner(ownerEmail)],
    ...extra,
  };
}

const user = (id: string, email: string) => ({
  id,
  primaryEmail: email,
  name: { fullName: id },
  isAdmin: false,
  isEnrolledIn2Sv: true,
  suspended: false,
  lastLoginTime: "2025-05-03T00:00:00.000Z",
  creationTime: "2023-01-01T00:00:00.000Z",
});

/** Users and a drive that exist before the first scan, so the second can lose them. */
function prepare(tenant: TFakeGoogleTenant) {
  tenant.addUser(user("u-erin", "erin@acme.test"));
  tenant.addFile(file("f-erin", "erin@acme.test", { permissions: [owner("erin@acme.test"), anyone()] }));
  tenant.addUser(user("u-frank", "frank@acme.test"));
  tenant.addFile(file("f-frank", "frank@acme.test"));
  tenant.addFile(file("f-frank-gift", "frank@acme.test"));
  tenant.addFile(file("f-move", "alice@acme.test"));
}

const anyone = () => ({ id: "anyoneWithLink", type: "anyone" as const, role: "reader" as const });

/** Everything a tenant does between two scans. */
function mutate(tenant: TFakeGoogleTenant) {
  tenant.addFile(file("f-new", "alice@acme.test", { permissions: [owner("alice@acme.test"), anyone()] }));
  tenant.share("f-internal", { id: "p-x", type: "user", role: "reader", emailAddress: "x@outside.example" });
  tenant.unshare("f-external", "p-ext");
  tenant.updateFile("f-shared", { name: "Board deck v2.pptx", modifiedTime: "2025-06-02T00:00:00.000Z" });
  tenant.trashFile("f-public");
  tenant.deleteFile("f-private");
  // Given away: from the admin's Drive to Alice's, and from Frank (deleted below) to Alice.
  tenant.transferOwnership("f-external", "alice@acme.test");
  tenant.transferOwnership("f-frank-gift", "alice@acme.test");
  // Moved out of Alice's My Drive into the Engineering shared drive.
  tenant.updateFile("f-move", { driveId: "d-eng", owners: undefined });
  tenant.share("f-drive", anyone());
  tenant.addFile({
    id: "f-eng-new",
    name: "Design.doc",
    mimeType: "application/vnd.google-apps.document",
    driveId: "d-eng",
    modifiedTime: "2025-06-03T00:00:00.000Z",
    permissions: [{ id: "p-eng-org", type: "user", role: "organizer", emailAddress: "admin@acme.test" }],
  });
  tenant.addUser(user("u-carol", "carol@acme.test"));
  tenant.addFile(file("f-carol", "carol@acme.test", { permissions: [owner("carol@acme.test"), anyone()] }));
  tenant.suspendUser("erin@acme.test");
  tenant.deleteUser("frank@acme.test");
  tenant.addDrive({
    id: "d-new",
    name: "New team",
    restrictions: { domainUsersOnly: true, driveMembersOnly: false, copyRequiresWriterPermission: false },
    permissions: [{ id: "p-new-alice", type: "user", role: "organizer", emailAddress: "alice@acme.test" }],
  });
  tenant.addFile({
    id: "f-new-drive",
    name: "Kick-off.pdf",
    mimeType: "application/pdf",
    driveId: "d-new",
    modifiedTime: "2025-06-04T00:00:00.000Z",
    size: "300",
    permissions: [{ id: "p-new-alice", type: "user", role: "organizer", emailAddress: "alice@acme.test" }],
  });
  tenant.deleteDrive("d-legal");
}

describe("Google Drive change feed against the fake", () => {
  it("yields exactly the difference between two full reads", async () => {
    const server = await start();
    prepare(server.tenant);
    const feed = feedOf(server);
    const cursor = await feed.start();
    expect(Object.keys(cursor.feeds).sort()).toEqual([
      "drive:d-eng",
      "drive:d-legal",
      // Bob is suspended, Dave's Drive is off, Finance has no member to read it as.
      "user:admin@acme.test",
      "user:alice@acme.test",
      "user:erin@acme.test",
      "user:frank@acme.test",
    ]);
    const before = byId(await collect(adapterFor(server).files()));
    expect(before.has("f-erin") && before.has("f-frank") && before.has("f-legal")).toBe(true);

    mutate(server.tenant);
    const { changes, cursor: next } = await readAll(feedOf(server), cursor);
    const after = byId(await collect(adapterFor(server).files()));
    expect(sorted(apply(before, changes))).toEqual(sorted(after));

    // The changes say what happened, each kind once where it should.
    expect(changes).toContainEqual({ kind: "ownerGone", ownerEmail: "erin@acme.test" });
    expect(changes).toContainEqual({ kind: "ownerGone", ownerEmail: "frank@acme.test" });
    expect(changes).toContainEqual({ kind: "driveGone", driveId: "d-legal" });
    const removed = changes.flatMap((c) => (c.kind === "removed" ? [c.fileId] : []));
    expect(removed).toEqual(expect.arrayContaining(["f-public", "f-private"]));
    // Given away or moved, never also removed.
    for (const id of ["f-external", "f-frank-gift", "f-move"]) expect(removed).not.toContain(id);
    const reported = changes.flatMap((c) => (c.kind === "file" ? [c.file.id] : []));
    expect(reported).toEqual(
      expect.arrayContaining([
        "f-new",
        "f-internal",
        "f-external",
        "f-carol",
        "f-move",
        "f-new-drive",
        "f-drive",
      ]),
    );
    expect(after.get("f-external")?.ownerEmail).toBe("alice@acme.test");
    expect(after.get("f-move")?.driveId).toBe("d-eng");
    expect(Object.keys(next.feeds)).toEqual(
      expect.arrayContaining(["user:carol@acme.test", "drive:d-new", "drive:d-eng"]),
    );
    expect(Object.keys(next.feeds)).not.toEqual(
      expect.arrayContaining(["user:erin@acme.test", "user:frank@acme.test", "drive:d-legal"]),
    );

    // Nothing changed since: nothing to apply, and the feeds stand still.
    const quiet = await readAll(feedOf(server), next);
    expect(quiet.changes).toEqual([]);
    expect(quiet.cursor).toEqual(next);
  });

  it("gives the same changes and cursor when a read is repeated from the same cursor", async () => {
    const server = await start();
    prepare(server.tenant);
    const feed = feedOf(server);
    const cursor = await feed.start();
    const before = byId(await collect(adapterFor(server).files()));
    mutate(server.tenant);
    // The first read dies halfway: its cursor is never stored.
    const dying = feedOf(server).read(cursor).changes[Symbol.asyncIterator]();
    await dying.next();
    await dying.return?.();
    const first = await readAll(feedOf(server), cursor);
    const second = await readAll(feedOf(server), cursor);
    expect(sorted(apply(before, second.changes))).toEqual(sorted(apply(before, first.changes)));
    expect(second.cursor).toEqual(first.cursor);
    // Applying the same changes twice is harmless.
    expect(sorted(apply(apply(before, first.changes), first.changes))).toEqual(
      sorted(apply(before, first.changes)),
    );
  });

  it("never loses a change made while the full read runs", async () => {
    const server = await start();
    const cursor = await feedOf(server).start();
    // Made after the start token, before the full read lists Alice: seen by both; harmless.
    server.tenant.addFile(file("f-during", "alice@acme.test"));
    const before = byId(await collect(adapterFor(server).files()));
    server.tenant.share("f-during", anyone());
    const { changes } = await readAll(feedOf(server), cursor);
    const after = byId(await collect(adapterFor(server).files()));
    expect(sorted(apply(before, changes))).toEqual(sorted(after));
    expect(after.get("f-during")?.permissions).toContainEqual({
      id: "anyoneWithLink",
      type: "anyone",
      role: "reader",
      link: { expiresAt: null, discoverable: false },
    });
  });

  it("lists a user back whole once they can be read, and drops one whose Drive is turned off", async () => {
    const server = await start();
    const cursor = await feedOf(server).start();
    expect(cursor.feeds["user:bob@acme.test"]).toBeUndefined();
    const before = byId(await collect(adapterFor(server).files()));
    // Bob is back: his files (and one made while he was away) are listed whole.
    server.tenant.unsuspendUser("bob@acme.test");
    server.tenant.addFile(file("f-bob", "bob@acme.test"));
    // Alice's Drive is turned off: her files leave the snapshot, as in a full read.
    server.tenant.setDriveEnabled("alice@acme.test", false);
    const first = await readAll(feedOf(server), cursor);
    const after = byId(await collect(adapterFor(server).files()));
    expect(sorted(apply(before, first.changes))).toEqual(sorted(after));
    expect(first.changes).toContainEqual({ kind: "ownerGone", ownerEmail: "alice@acme.test" });
    expect(after.has("f-bob") && !after.has("f-public")).toBe(true);
    expect(Object.keys(first.cursor.feeds)).toContain("user:bob@acme.test");
    expect(Object.keys(first.cursor.feeds)).not.toContain("user:alice@acme.test");
    // Turned back on: listed whole again.
    server.tenant.setDriveEnabled("alice@acme.test", true);
    const second = await readAll(feedOf(server), first.cursor);
    const end = byId(await collect(adapterFor(server).files()));
    expect(sorted(apply(after, second.changes))).toEqual(sorted(end));
    expect(end.has("f-public")).toBe(true);
  });

  it("costs one changes.list per feed when nothing changed, however large the tenant", async () => {
    const server = await start({
      fixture: buildGoogleFixture({ extraFiles: 2000, extraUsers: 6 }),
      pageSize: 50,
    });
    const cursor = await feedOf(server).start();
    const fullFrom = server.requests.length;
    const files = await collect(adapterFor(server).files());
    const fullRequests = server.requests.length - fullFrom;
    const readFrom = server.requests.length;
    const { changes, cursor: next } = await readAll(feedOf(server), cursor);
    const reads = server.requests.slice(readFrom).filter((r) => r.path.startsWith("/drive/v3/"));
    expect(changes).toEqual([]);
    expect(next).toEqual(cursor);
    const lists = reads.filter((r) => r.path === "/drive/v3/changes");
    expect(lists).toHaveLength(Object.keys(cursor.feeds).length);
    // Besides the feeds: the shared drives and their members, as every scan reads them.
    expect(reads.filter((r) => r.path === "/drive/v3/files")).toHaveLength(0);
    expect(files.length).toBeGreaterThan(2000);
    expect(fullRequests).toBeGreaterThan(3 * reads.length);
  });

  it.each([410, 400] as const)(
    "throws ChangeCursorExpiredError when Drive answers an old token with %i",
    async (status) => {
      const server = await start({ changes: { expiredStatus: status } });
      const cursor = await feedOf(server).start();
      server.tenant.addFile(file("f-late", "alice@acme.test"));
      server.tenant.expireChangeTokens();
      const error = await collect(feedOf(server).read(cursor).changes).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChangeCursorExpiredError);
      expect((error as ChangeCursorExpiredError).feed).toMatch(/^(user|drive):/);
      expect((error as Error).message).toContain(`HTTP ${status}`);
      // A token taken now works again.
      const fresh = await feedOf(server).start();
      await expect(readAll(feedOf(server), fresh)).resolves.toMatchObject({ changes: [] });
    },
  );

  it("refuses a cursor of another source or shape", async () => {
    const server = await start();
    const cursors: TChangeCursor[] = [
      { source: "microsoft_365", feeds: {} },
      { source: "google_workspace", feeds: { "alice@acme.test": "1" } },
    ];
    for (const cursor of cursors) {
      await expect(collect(feedOf(server).read(cursor).changes)).rejects.toBeInstanceOf(
        ChangeCursorExpiredError,
      );
    }
  });

  it("survives throttled change pages (429 and 403 rate limits) without losing a change", async () => {
    const server = await start();
    prepare(server.tenant);
    const cursor = await feedOf(server).start();
    const before = byId(await collect(adapterFor(server).files()));
    mutate(server.tenant);
    server.injectFault({ status: 429, count: 3, retryAfter: 2, pathPrefix: "/drive/v3/changes" });
    const rateLimit = {
      error: {
        code: 403,
        message: "User rate limit exceeded.",
        errors: [
          { domain: "usageLimits", reason: "userRateLimitExceeded", message: "User rate limit exceeded." },
        ],
      },
    };
    server.injectFault({ status: 403, count: 2, pathPrefix: "/drive/v3/changes", body: rateLimit });
    const { delays, http } = recordingSleep();
    const { changes } = await readAll(feedOf(server, http), cursor);
    const after = byId(await collect(adapterFor(server).files()));
    expect(sorted(apply(before, changes))).toEqual(sorted(after));
    // Retry-After honoured for the 429s, backed off (with jitter) for the 403s.
    expect(delays.filter((ms) => ms === 2000)).toHaveLength(3);
    expect(delays.length).toBe(5);
    const throttled = server.requests.filter((r) => r.path === "/drive/v3/changes");
    expect(throttled.length).toBeGreaterThan(5);
  });

  it("asks Drive exactly what the full read reads, as each user and as a drive member", async () => {
    const server = await start();
    const cursor = await feedOf(server).start();
    server.tenant.share("f-drive", anyone());
    await readAll(feedOf(server), cursor);
    const starts = server.requests.filter((r) => r.path === "/drive/v3/changes/startPageToken");
    expect(
      starts.some((r) => r.query.get("driveId") === "d-eng" && r.query.get("supportsAllDrives") === "true"),
    ).toBe(true);
    const lists = server.requests.filter((r) => r.path === "/drive/v3/changes");
    const driveList = lists.find((r) => r.query.get("driveId") === "d-eng");
    expect(Object.fromEntries(driveList?.query ?? [])).toMatchObject({
      includeItemsFromAllDrives: "true",
      supportsAllDrives: "true",
      includeRemoved: "true",
      spaces: "drive",
      pageSize: "1000",
    });
    const userList = lists.find((r) => !r.query.get("driveId"));
    expect(userList?.query.get("restrictToMyDrive")).toBe("true");
    expect(userList?.query.get("fields")).toContain("newStartPageToken");
    // A shared-drive item's permissions come from permissions.list, as in the full read.
    expect(server.requests.some((r) => r.path === "/drive/v3/files/f-drive/permissions")).toBe(true);
  });

  it("has no change feed with a bare access token (scanned in full every time)", async () => {
    const server = await start({ accessToken: "static-token" });
    const adapter = createGoogleWorkspaceAdapter({
      credentials: { accessToken: "static-token" },
      endpoints: server.endpoints,
    });
    expect(adapter.changeFeed).toBeUndefined();
  });
});
