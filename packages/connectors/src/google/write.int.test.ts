import { describe, expect, it } from "vitest";
import { type THttpOptions } from "../http/client";
import { collect, recordingSleep, useFakeGoogle } from "../../../fakes/src/adapter-harness";
import { ALL_CONNECTOR_SCOPES, type TFakeGoogle } from "../../../fakes/src/fake-google";
import { generateServiceAccount } from "../../../fakes/src/google-fixture";
import { SourceAuthError, SourceUnavailableError } from "../types";
import { SourceWriteError, type TWriteFile } from "../write";
import { GOOGLE_SCOPE, GOOGLE_WRITE_ACCESS, GOOGLE_WRITE_SCOPE } from "./access";
import { createGoogleWorkspaceAdapter } from "./adapter";
import { type TGoogleCredentials } from "./auth";
import { createGoogleWorkspaceWriter } from "./write";

// The Google writer against the fake tenant: each change is made by Drive's or the Directory's
// documented call, as the right user, and seen by the adapter's next read.

const ACCOUNT = generateServiceAccount("admin@acme.test");
const WRITE_SCOPES = [...new Set([...ALL_CONNECTOR_SCOPES, ...GOOGLE_WRITE_ACCESS.map((r) => r.permission)])];
const start = useFakeGoogle(ACCOUNT, { authorizedScopes: WRITE_SCOPES });

function writerFor(
  fake: TFakeGoogle,
  http: THttpOptions = {},
  credentials: TGoogleCredentials = ACCOUNT.credentials,
) {
  return createGoogleWorkspaceWriter({ credentials, endpoints: fake.endpoints, http });
}

async function fileOf(fake: TFakeGoogle, id: string) {
  const adapter = createGoogleWorkspaceAdapter({
    credentials: ACCOUNT.credentials,
    endpoints: fake.endpoints,
  });
  return (await collect(adapter.files())).find((f) => f.id === id);
}

const writeRequests = (fake: TFakeGoogle) =>
  fake.requests.filter((r) => r.method !== "GET" && r.path !== "/token");

/** The subject each token the fake issued with the full Drive scope acted as. */
const driveSubjects = (fake: TFakeGoogle) =>
  fake.grants.filter((g) => g.scopes.includes(GOOGLE_WRITE_SCOPE.drive)).map((g) => g.subject);

const PUBLIC: TWriteFile = { id: "f-public", driveId: null, ownerEmail: "alice@acme.test" };
const EXTERNAL: TWriteFile = { id: "f-external", driveId: null, ownerEmail: "admin@acme.test" };
const PRIVATE: TWriteFile = { id: "f-private", driveId: null, ownerEmail: "alice@acme.test" };
const ENG: TWriteFile = { id: "f-drive", driveId: "d-eng", ownerEmail: "admin@acme.test" };
// The admin is not a member of Legal: the scan read this file through Alice, its organizer.
const LEGAL: TWriteFile = { id: "f-legal", driveId: "d-legal", ownerEmail: "alice@acme.test" };
const CHATGPT = {
  id: "u-alice:1234-chatgpt.apps.googleusercontent.com",
  clientId: "1234-chatgpt.apps.googleusercontent.com",
  userEmail: "alice@acme.test",
};

describe("Google writer: sharing", () => {
  it("removes a public link as the file's owner, once, and puts it back on undo", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    const image = await writer.readPermission(PUBLIC, "anyoneWithLink");
    expect(image).toMatchObject({
      id: "anyoneWithLink",
      type: "anyone",
      role: "reader",
      extra: { role: "reader" },
    });

    expect(await writer.deletePermission(PUBLIC, "anyoneWithLink")).toBe("applied");
    expect((await fileOf(fake, "f-public"))?.permissions.map((p) => p.type)).toEqual(["user"]);
    expect(await writer.deletePermission(PUBLIC, "anyoneWithLink")).toBe("already_gone");
    expect(await writer.readPermission(PUBLIC, "anyoneWithLink")).toBeNull();
    expect(fake.writes).toHaveLength(1);
    const [del] = writeRequests(fake);
    expect(del).toMatchObject({
      method: "DELETE",
      path: "/drive/v3/files/f-public/permissions/anyoneWithLink",
    });
    expect(del?.query.get("supportsAllDrives")).toBe("true");
    expect(del?.query.has("useDomainAdminAccess")).toBe(false);
    expect(new Set(driveSubjects(fake))).toEqual(new Set(["alice@acme.test"]));

    if (!image) throw new Error("no image");
    expect(await writer.restorePermission(PUBLIC, image)).toEqual({ id: "anyoneWithLink" });
    const create = writeRequests(fake).at(-1);
    // Drive allows sendNotificationEmail only for users and groups.
    expect(create?.query.has("sendNotificationEmail")).toBe(false);
    expect(create?.json).toEqual({ type: "anyone", role: "reader" });
    const restored = await fileOf(fake, "f-public");
    expect(restored?.permissions).toContainEqual({
      id: "anyoneWithLink",
      type: "anyone",
      role: "reader",
      link: { expiresAt: null, discoverable: false },
    });
  });

  it("removes an external user and an external domain, and re-creates them silently on undo", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    const user = await writer.readPermission(EXTERNAL, "p-ext");
    const domain = await writer.readPermission(EXTERNAL, "p-partner");
    expect(user).toMatchObject({ type: "user", role: "writer", emailAddress: "ext@partner.example" });
    expect(domain).toMatchObject({ type: "domain", role: "reader", domain: "partner.example" });
    expect(await writer.deletePermission(EXTERNAL, "p-ext")).toBe("applied");
    expect(await writer.deletePermission(EXTERNAL, "p-partner")).toBe("applied");
    expect((await fileOf(fake, "f-external"))?.permissions.map((p) => p.id)).toEqual(["p-admin"]);

    if (!user || !domain) throw new Error("no image");
    const back = await writer.restorePermission(EXTERNAL, user);
    expect(writeRequests(fake).at(-1)?.query.get("sendNotificationEmail")).toBe("false");
    await writer.restorePermission(EXTERNAL, domain);
    const restored = await fileOf(fake, "f-external");
    expect(restored?.permissions).toEqual(
      expect.arrayContaining([
        { id: back.id, type: "user", role: "writer", emailAddress: "ext@partner.example" },
        expect.objectContaining({ type: "domain", role: "reader", domain: "partner.example" }),
      ]),
    );
  });

  it("puts a discoverable public link and a discoverable domain link back as they were", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    // On the web / findable in the domain: Drive's `allowFileDiscovery`, the id naming it.
    // A file has one anyone permission: this one is findable on the web.
    fake.tenant.unshare("f-public", "anyoneWithLink");
    fake.tenant.share("f-public", {
      id: "anyone",
      type: "anyone",
      role: "reader",
      allowFileDiscovery: true,
    } as never);
    fake.tenant.share("f-external", {
      id: "perm-domain-acme.test",
      type: "domain",
      role: "reader",
      domain: "acme.test",
      allowFileDiscovery: true,
    } as never);
    for (const [file, id, type] of [
      [PUBLIC, "anyone", "anyone"],
      [EXTERNAL, "perm-domain-acme.test", "domain"],
    ] as const) {
      const image = await writer.readPermission(file, id);
      expect(image).toMatchObject({ id, type, extra: { role: "reader", allowFileDiscovery: true } });
      expect(await writer.deletePermission(file, id)).toBe("applied");
      if (!image) throw new Error("no image");
      expect(await writer.restorePermission(file, image)).toEqual({ id });
      expect(writeRequests(fake).at(-1)?.json).toMatchObject({
        type,
        role: "reader",
        allowFileDiscovery: true,
      });
      expect(await writer.readPermission(file, id)).toEqual(image);
    }
  });

  it("puts a group's permission back silently, as the same group and role", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    // The Engineering group, the reader of Alice's file (its id is the group's, on every file).
    fake.tenant.share("f-private", {
      id: "p-eng-group",
      type: "group",
      role: "reader",
      emailAddress: "eng@acme.test",
    });
    const image = await writer.readPermission(PRIVATE, "p-eng-group");
    expect(image).toMatchObject({
      id: "p-eng-group",
      type: "group",
      role: "reader",
      emailAddress: "eng@acme.test",
    });
    expect(await writer.deletePermission(PRIVATE, "p-eng-group")).toBe("applied");
    if (!image) throw new Error("no image");
    expect(await writer.restorePermission(PRIVATE, image)).toEqual({ id: "p-eng-group" });
    const create = writeRequests(fake).at(-1);
    expect(create?.json).toEqual({ type: "group", role: "reader", emailAddress: "eng@acme.test" });
    expect(create?.query.get("sendNotificationEmail")).toBe("false");
    expect(await writer.readPermission(PRIVATE, "p-eng-group")).toEqual(image);
  });

  it("downgrades a permission once: the same role again is already so, without a call", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    expect(await writer.updatePermissionRole(EXTERNAL, "p-ext", "reader")).toBe("applied");
    expect(await writer.updatePermissionRole(EXTERNAL, "p-ext", "reader")).toBe("already_gone");
    // A downgrade to a role above the one it has now is no raise: compared by rank, not equality.
    expect(await writer.updatePermissionRole(EXTERNAL, "p-ext", "commenter")).toBe("already_gone");
    expect(await writer.updatePermissionRole(EXTERNAL, "p-ext", "writer", "lower")).toBe("already_gone");
    const patches = fake.requests.filter((r) => r.method === "PATCH");
    expect(patches).toHaveLength(1);
    expect(patches[0]?.json).toEqual({ role: "reader" });
    expect((await fileOf(fake, "f-external"))?.permissions.find((p) => p.id === "p-ext")?.role).toBe(
      "reader",
    );
    // Undo raises it back, and only undo does.
    expect(await writer.updatePermissionRole(EXTERNAL, "p-ext", "writer", "restore")).toBe("applied");
    expect(fake.requests.filter((r) => r.method === "PATCH").map((r) => r.json)).toEqual([
      { role: "reader" },
      { role: "writer" },
    ]);
    expect((await fileOf(fake, "f-external"))?.permissions.find((p) => p.id === "p-ext")?.role).toBe(
      "writer",
    );
    expect(await writer.updatePermissionRole(EXTERNAL, "p-gone", "reader")).toBe("already_gone");
  });

  it("changes a shared drive's file as the admin with domain administrator access", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    expect(await writer.deletePermission(ENG, "p-eve")).toBe("applied");
    const del = writeRequests(fake).at(-1);
    expect(del?.query.get("useDomainAdminAccess")).toBe("true");
    expect(del?.query.get("supportsAllDrives")).toBe("true");
    expect(driveSubjects(fake)).toEqual(["admin@acme.test"]);
    expect((await fileOf(fake, "f-drive"))?.permissions.map((p) => p.id)).not.toContain("p-eve");
    const back = await writer.restorePermission(ENG, {
      id: "p-eve",
      type: "user",
      role: "commenter",
      emailAddress: "eve@gmail.example",
      extra: { role: "commenter" },
    });
    expect((await fileOf(fake, "f-drive"))?.permissions).toContainEqual({
      id: back.id,
      type: "user",
      role: "commenter",
      emailAddress: "eve@gmail.example",
    });
    // A drive member's permission is inherited: Drive refuses to touch it on the file.
    await expect(writer.deletePermission(ENG, "p-eng-org")).rejects.toMatchObject({
      status: 403,
      code: "cannotModifyInheritedTeamDrivePermission",
    });
  });

  it("falls back to the file's organizer when the admin is not a member of its shared drive", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    expect(await writer.deletePermission(LEGAL, "anyoneWithLink")).toBe("applied");
    expect(driveSubjects(fake)).toEqual(["admin@acme.test", "alice@acme.test"]);
    const legal = await fileOf(fake, "f-legal");
    expect(legal?.permissions.map((p) => p.type)).toEqual(["user"]);
    expect(await writer.deletePermission(LEGAL, "anyoneWithLink")).toBe("already_gone");
    // Legal now keeps its items to its members: Drive refuses to bring the link back.
    const image = {
      id: "anyoneWithLink",
      type: "anyone" as const,
      role: "reader" as const,
      extra: { role: "reader" },
    };
    await expect(writer.restorePermission(LEGAL, image)).rejects.toMatchObject({
      status: 403,
      code: "teamDriveTeamMembersOnlyRestriction",
    });
    expect(fake.writes.map((w) => w.method)).toEqual(["DELETE"]);
  });

  it("reports a permission as gone when the file is (404), and never a file someone saw", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    fake.tenant.deleteFile("f-public");
    expect(await writer.deletePermission(PUBLIC, "anyoneWithLink")).toBe("already_gone");
    expect(await writer.readPermission(PUBLIC, "anyoneWithLink")).toBeNull();
    // Legal as seen by someone who cannot be impersonated: not "gone", an error.
    const stranger = { ...LEGAL, ownerEmail: "counsel@lawfirm.example" };
    await expect(writer.deletePermission(stranger, "anyoneWithLink")).rejects.toMatchObject({
      status: 404,
      code: "notFound",
    });
    expect(fake.writes).toHaveLength(0);
  });

  it("passes Drive's refusals on with its reason: the owner, a mere reader, a past expiry", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    await expect(writer.deletePermission(PUBLIC, "p-alice")).rejects.toMatchObject({
      name: "SourceWriteError",
      status: 403,
      code: "cannotRemoveOwner",
    });
    fake.tenant.addFile({
      id: "f-viewed",
      name: "Viewed",
      mimeType: "text/plain",
      owners: [{ emailAddress: "admin@acme.test" }],
      permissions: [
        { id: "p-admin", type: "user", role: "owner", emailAddress: "admin@acme.test" },
        { id: "p-alice", type: "user", role: "reader", emailAddress: "alice@acme.test" },
        { id: "anyoneWithLink", type: "anyone", role: "reader" },
      ],
    });
    // A stale owner in the store: Alice may see the file but not share it.
    const viewed = { id: "f-viewed", driveId: null, ownerEmail: "alice@acme.test" };
    await expect(writer.deletePermission(viewed, "anyoneWithLink")).rejects.toMatchObject({
      status: 403,
      code: "insufficientFilePermissions",
      message: expect.stringContaining("The user does not have sufficient permissions for this file."),
    });
    await expect(
      writer.restorePermission(EXTERNAL, {
        id: "p-x",
        type: "user",
        role: "reader",
        emailAddress: "x@partner.example",
        extra: { role: "reader", expirationTime: "2020-01-01T00:00:00.000Z" },
      }),
    ).rejects.toMatchObject({ status: 400, code: "expirationDatesMustBeInTheFuture" });
    expect(fake.writes).toHaveLength(0);
  });
});

describe("Google writer: ownership", () => {
  it("transfers a My Drive file's ownership as its owner, who keeps writer, and back on undo", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    expect(await writer.transferOwnership(PRIVATE, "admin@acme.test")).toBe("applied");
    const create = writeRequests(fake).at(-1);
    expect(create?.query.get("transferOwnership")).toBe("true");
    expect(create?.query.has("sendNotificationEmail")).toBe(false);
    expect(create?.json).toEqual({ type: "user", role: "owner", emailAddress: "admin@acme.test" });
    const moved = await fileOf(fake, "f-private");
    expect(moved?.ownerEmail).toBe("admin@acme.test");
    expect(moved?.permissions).toContainEqual(
      expect.objectContaining({ emailAddress: "alice@acme.test", role: "writer" }),
    );
    expect(await writer.transferOwnership(PRIVATE, "admin@acme.test")).toBe("already_gone");
    // Undo names the original file: the writer acts as whoever owns it today.
    expect(await writer.transferOwnership(PRIVATE, "alice@acme.test")).toBe("applied");
    expect((await fileOf(fake, "f-private"))?.ownerEmail).toBe("alice@acme.test");
    expect(fake.writes).toHaveLength(2);
  });

  it("refuses shared-drive files (they have no owner) without a call, and a transfer out of the domain", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    const refused = await writer.transferOwnership(ENG, "alice@acme.test").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SourceWriteError);
    expect(refused).toMatchObject({ status: 400, code: "unsupported" });
    expect(fake.requests.filter((r) => r.path !== "/token")).toHaveLength(0);
    await expect(writer.transferOwnership(PRIVATE, "ext@partner.example")).rejects.toMatchObject({
      status: 403,
      code: "ownershipChangeAcrossDomainNotPermitted",
    });
  });
});

describe("Google writer: app grants", () => {
  it("revokes a grant with tokens.delete: the next read no longer lists it, and cannot undo", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    expect(writer.restoreGrant).toBeUndefined();
    expect(writer.reversibility("revoke_oauth_grant")).toEqual({
      reversible: false,
      reason: "Google cannot re-issue a revoked OAuth token; the user must consent again",
    });
    expect(writer.reversibility("remove_public_link")).toEqual({ reversible: true });
    const image = await writer.readGrant(CHATGPT);
    expect(image).toMatchObject({
      id: CHATGPT.id,
      extra: { clientId: CHATGPT.clientId, displayText: "ChatGPT", userKey: "u-alice" },
    });
    expect(await writer.revokeGrant(CHATGPT)).toBe("applied");
    const del = writeRequests(fake).at(-1);
    expect(del).toMatchObject({
      method: "DELETE",
      path: "/admin/directory/v1/users/u-alice/tokens/1234-chatgpt.apps.googleusercontent.com",
    });
    const adapter = createGoogleWorkspaceAdapter({
      credentials: ACCOUNT.credentials,
      endpoints: fake.endpoints,
    });
    const grants = await collect(adapter.appGrants());
    expect(grants.map((g) => g.clientId)).not.toContain(CHATGPT.clientId);
    expect(grants.length).toBeGreaterThan(0);
    expect(await writer.revokeGrant(CHATGPT)).toBe("already_gone");
    // A grant id of another form: the user's email is the key.
    const bob = {
      id: "bob-grant",
      clientId: "999-anon.apps.googleusercontent.com",
      userEmail: "bob@acme.test",
    };
    expect(await writer.revokeGrant(bob)).toBe("applied");
    expect(writeRequests(fake).at(-1)?.path).toBe(
      "/admin/directory/v1/users/bob%40acme.test/tokens/999-anon.apps.googleusercontent.com",
    );
    expect(await writer.readGrant(CHATGPT)).toBeNull();
    expect(fake.writes).toHaveLength(2);
  });

  it("names its scopes: the full Drive scope and the Directory's user security scope", () => {
    const fake = { endpoints: {} } as TFakeGoogle;
    const requirements = writerFor(fake).requirements();
    expect(requirements.map((r) => r.permission)).toEqual([
      GOOGLE_WRITE_SCOPE.drive,
      GOOGLE_WRITE_SCOPE.drive,
      GOOGLE_WRITE_SCOPE.tokens,
    ]);
    expect(requirements.every((r) => r.feature.startsWith("Remediation: ") && r.impact.length > 40)).toBe(
      true,
    );
  });
});

describe("Google writer: errors", () => {
  it("names the missing scope when the token lacks Drive's full scope (403 insufficientPermissions)", async () => {
    const fake = await start({
      accessToken: "read-only-token",
      accessTokenSubject: "alice@acme.test",
      accessTokenScopes: ALL_CONNECTOR_SCOPES,
    });
    const writer = writerFor(fake, {}, { accessToken: "read-only-token" });
    const refused = await writer.deletePermission(PUBLIC, "anyoneWithLink").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SourceWriteError);
    expect(refused).toMatchObject({ status: 403, code: "insufficientPermissions" });
    expect((refused as Error).message).toContain("Request had insufficient authentication scopes.");
    expect((refused as Error).message).toContain("https://www.googleapis.com/auth/drive scope");
    // Reading the pre-image needs no more than the scan's scope.
    expect(await writer.readPermission(PUBLIC, "anyoneWithLink")).toMatchObject({ type: "anyone" });
  });

  it("names the missing scope when the delegation does not grant it (the token endpoint refuses)", async () => {
    const fake = await start({ authorizedScopes: ALL_CONNECTOR_SCOPES });
    const refused = await writerFor(fake)
      .deletePermission(PUBLIC, "anyoneWithLink")
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 403, code: "insufficientPermissions" });
    expect((refused as Error).message).toContain(`${GOOGLE_WRITE_SCOPE.drive} scope`);
    expect(fake.requests.filter((r) => r.path.startsWith("/drive"))).toHaveLength(0);
    // The Directory's token scope is the scan's own: revoking works without anything new.
    expect(GOOGLE_WRITE_SCOPE.tokens).toBe(GOOGLE_SCOPE.tokens);
  });

  it("reports a refused access token as SourceAuthError", async () => {
    const fake = await start({ accessToken: "good-token" });
    const writer = writerFor(fake, {}, { accessToken: "revoked-token" });
    await expect(writer.deletePermission(PUBLIC, "anyoneWithLink")).rejects.toBeInstanceOf(SourceAuthError);
  });

  it("rides out 429 with Retry-After and a 403 rate limit, making the change exactly once", async () => {
    const fake = await start();
    const { delays, http } = recordingSleep();
    const writer = writerFor(fake, http);
    fake.failWrites({ status: 429, retryAfter: 7, count: 2 });
    fake.failWrites({ status: 403, retryAfter: 2 });
    expect(await writer.deletePermission(PUBLIC, "anyoneWithLink")).toBe("applied");
    expect(delays).toEqual([7000, 7000, 2000]);
    expect(writeRequests(fake)).toHaveLength(4);
    expect(fake.writes).toEqual([
      { method: "DELETE", path: "/drive/v3/files/f-public/permissions/anyoneWithLink", status: 204 },
    ]);
  });

  it("never changes twice when an applied change's answer is lost to a 500", async () => {
    const fake = await start();
    const { http } = recordingSleep();
    fake.failWrites({ status: 500, afterApply: true });
    expect(await writerFor(fake, http).deletePermission(PUBLIC, "anyoneWithLink")).toBe("already_gone");
    expect(fake.writes).toHaveLength(1);
    expect((await fileOf(fake, "f-public"))?.permissions.map((p) => p.type)).toEqual(["user"]);
  });

  it("gives up on a throttle its retries cannot ride out with SourceWriteError 429 and Retry-After", async () => {
    const fake = await start();
    const { http } = recordingSleep({ retry: { maxAttempts: 3 } });
    fake.failWrites({ status: 429, retryAfter: 30, count: 3 });
    const refused = await writerFor(fake, http)
      .revokeGrant(CHATGPT)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SourceWriteError);
    expect(refused).toMatchObject({ status: 429, code: "rateLimitExceeded", retryAfterMs: 30_000 });
    expect(fake.writes).toHaveLength(0);
  });

  it("gives up on a 503 with Retry-After as SourceWriteError 503, so the caller can wait", async () => {
    const fake = await start();
    const { http } = recordingSleep({ retry: { maxAttempts: 2 } });
    fake.failWrites({ status: 503, retryAfter: 120, count: 2 });
    const refused = await writerFor(fake, http)
      .deletePermission(EXTERNAL, "p-ext")
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: "SourceWriteError", status: 503, retryAfterMs: 120_000 });
    expect(fake.writes).toHaveLength(0);
  });

  it("reports a source still failing after the retries (5xx) as SourceUnavailableError", async () => {
    const fake = await start();
    const { http } = recordingSleep({ retry: { maxAttempts: 3 } });
    fake.failWrites({ status: 500, count: 3 });
    const failed = await writerFor(fake, http)
      .updatePermissionRole(EXTERNAL, "p-ext", "reader")
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(SourceUnavailableError);
    expect(failed).not.toBeInstanceOf(SourceWriteError);
    expect(fake.writes).toHaveLength(0);
  });
});
