import { describe, expect, it } from "vitest";
import { collect, recordingSleep, useFakeGoogle } from "../../../fakes/src/adapter-harness";
import { ALL_CONNECTOR_SCOPES, type TFakeGoogle } from "../../../fakes/src/fake-google";
import { generateServiceAccount } from "../../../fakes/src/google-fixture";
import { type TWriteFile } from "../write";
import { GOOGLE_WRITE_ACCESS, GOOGLE_WRITE_SCOPE } from "./access";
import { createGoogleWorkspaceAdapter } from "./adapter";
import { googleTokens } from "./auth";
import { createGoogleWorkspaceWriter } from "./write";

// Internal exposure at the source (issue 30): the Google writer removes an organization-wide link
// (a `domain` permission on the tenant's own domain, searchable or link-only), a grant to everyone
// in the domain and a broad group's grant, each with Drive's permissions.delete, and undo puts each
// back with permissions.create from its pre-image (discoverability, a group's expiry).

const ACCOUNT = generateServiceAccount("admin@acme.test");
const WRITE_SCOPES = [...new Set([...ALL_CONNECTOR_SCOPES, ...GOOGLE_WRITE_ACCESS.map((r) => r.permission)])];
const start = useFakeGoogle(ACCOUNT, { authorizedScopes: WRITE_SCOPES });

const writerFor = (fake: TFakeGoogle, http = {}) =>
  createGoogleWorkspaceWriter({ credentials: ACCOUNT.credentials, endpoints: fake.endpoints, http });

async function permissionsOf(fake: TFakeGoogle, id: string) {
  const adapter = createGoogleWorkspaceAdapter({
    credentials: ACCOUNT.credentials,
    endpoints: fake.endpoints,
  });
  return (await collect(adapter.files())).find((f) => f.id === id)?.permissions.map((p) => p.id);
}

/** The reason of Drive's error body. */
const reasonOf = async (response: Response) =>
  ((await response.json()) as { error: { errors: Array<{ reason: string }> } }).error.errors[0]?.reason;

const writeRequests = (fake: TFakeGoogle) =>
  fake.requests.filter((r) => r.method !== "GET" && r.path !== "/token");

const PRIVATE: TWriteFile = { id: "f-private", driveId: null, ownerEmail: "alice@acme.test" };
const ORG_LINK = "perm-domain-acme.test";
/** A year's expiry is Drive's limit; a month from now is within it. */
const IN_A_MONTH = new Date(Date.now() + 30 * 86_400_000).toISOString();

function shareOrgWide(fake: TFakeGoogle, discoverable: boolean, role = "reader") {
  fake.tenant.share("f-private", {
    id: ORG_LINK,
    type: "domain",
    role,
    domain: "acme.test",
    allowFileDiscovery: discoverable,
  } as never);
}

describe("Google writer: internal exposure", () => {
  it("removes an organization-wide link and re-creates it as it was, searchable or link-only", async () => {
    for (const discoverable of [true, false]) {
      const fake = await start();
      const writer = writerFor(fake);
      shareOrgWide(fake, discoverable, "writer");
      const image = await writer.readPermission(PRIVATE, ORG_LINK);
      expect(image).toEqual({
        id: ORG_LINK,
        type: "domain",
        role: "writer",
        domain: "acme.test",
        link: { expiresAt: null, discoverable },
        extra: { role: "writer", allowFileDiscovery: discoverable },
      });
      expect(await writer.deletePermission(PRIVATE, ORG_LINK)).toBe("applied");
      expect(await permissionsOf(fake, "f-private")).not.toContain(ORG_LINK);
      expect(await writer.deletePermission(PRIVATE, ORG_LINK)).toBe("already_gone");
      expect(fake.writes).toEqual([
        { method: "DELETE", path: `/drive/v3/files/f-private/permissions/${ORG_LINK}`, status: 204 },
      ]);
      if (!image) throw new Error("no image");
      expect(await writer.restorePermission(PRIVATE, image)).toEqual({ id: ORG_LINK });
      const create = writeRequests(fake).at(-1);
      expect(create?.json).toEqual({
        type: "domain",
        role: "writer",
        domain: "acme.test",
        allowFileDiscovery: discoverable,
      });
      // Drive takes sendNotificationEmail only for users and groups.
      expect(create?.query.has("sendNotificationEmail")).toBe(false);
      expect(await writer.readPermission(PRIVATE, ORG_LINK)).toEqual(image);
    }
  });

  it("removes a broad group's grant and puts it back with its expiry, silently", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    fake.tenant.share("f-private", {
      id: "p-all-staff",
      type: "group",
      role: "commenter",
      emailAddress: "all-staff@acme.test",
      expirationTime: IN_A_MONTH,
    } as never);
    const image = await writer.readPermission(PRIVATE, "p-all-staff");
    expect(image).toEqual({
      id: "p-all-staff",
      type: "group",
      role: "commenter",
      emailAddress: "all-staff@acme.test",
      extra: { role: "commenter", expirationTime: IN_A_MONTH },
    });
    expect(await writer.deletePermission(PRIVATE, "p-all-staff")).toBe("applied");
    expect(await permissionsOf(fake, "f-private")).toEqual(["p-alice"]);
    if (!image) throw new Error("no image");
    expect(await writer.restorePermission(PRIVATE, image)).toEqual({ id: "p-all-staff" });
    const create = writeRequests(fake).at(-1);
    expect(create?.json).toEqual({
      type: "group",
      role: "commenter",
      emailAddress: "all-staff@acme.test",
      expirationTime: IN_A_MONTH,
    });
    expect(create?.query.get("sendNotificationEmail")).toBe("false");
    expect(await writer.readPermission(PRIVATE, "p-all-staff")).toEqual(image);
  });

  it("says every removal can be undone on Google (the same id comes back)", async () => {
    const writer = writerFor(await start());
    for (const action of ["remove_org_wide_link", "remove_everyone_grant", "remove_group_grant"] as const)
      expect(writer.reversibility(action)).toEqual({ reversible: true });
  });

  it("rides out a 429 with Retry-After on an organization-wide link's delete, deleting it once", async () => {
    const fake = await start();
    const { delays, http } = recordingSleep();
    const writer = writerFor(fake, http);
    shareOrgWide(fake, true);
    fake.failWrites({ status: 429, retryAfter: 4, count: 2 });
    expect(await writer.deletePermission(PRIVATE, ORG_LINK)).toBe("applied");
    expect(delays).toEqual([4000, 4000]);
    expect(writeRequests(fake)).toHaveLength(3);
    expect(fake.writes).toEqual([
      { method: "DELETE", path: `/drive/v3/files/f-private/permissions/${ORG_LINK}`, status: 204 },
    ]);
  });

  it("makes a searchable organization-wide link link-only with permissions.create, and back on undo", async () => {
    const fake = await start();
    const writer = writerFor(fake);
    shareOrgWide(fake, true);
    const image = await writer.readPermission(PRIVATE, ORG_LINK);
    expect(image?.link).toEqual({ expiresAt: null, discoverable: true });
    expect(await writer.restrictLink?.(PRIVATE, ORG_LINK)).toBe("applied");
    // Drive's update writes role and expirationTime only: the link is shared again, link-only.
    expect(writeRequests(fake).map((r) => [r.method, r.path, r.json])).toEqual([
      [
        "POST",
        "/drive/v3/files/f-private/permissions",
        { type: "domain", role: "reader", allowFileDiscovery: false, domain: "acme.test" },
      ],
    ]);
    expect(await writer.readPermission(PRIVATE, ORG_LINK)).toEqual({
      ...image,
      link: { expiresAt: null, discoverable: false },
      extra: { role: "reader", allowFileDiscovery: false },
    });
    // Link-only already: no second change.
    expect(await writer.restrictLink?.(PRIVATE, ORG_LINK)).toBe("already_gone");
    expect(fake.writes).toHaveLength(1);
    if (!image) throw new Error("no image");
    expect(await writer.restorePermission(PRIVATE, image)).toEqual({ id: ORG_LINK });
    expect(await writer.readPermission(PRIVATE, ORG_LINK)).toEqual(image);
    // A person's grant is no link: refused without a call.
    await expect(writer.restrictLink?.(PRIVATE, "p-alice")).rejects.toMatchObject({
      status: 400,
      code: "unsupported",
    });
    expect(fake.writes).toHaveLength(2);
  });

  it("refuses an expiry on a domain link as Drive does; a group's expiry is Drive's own rules", async () => {
    const fake = await start();
    shareOrgWide(fake, true);
    fake.tenant.share("f-private", {
      id: "p-all-staff",
      type: "group",
      role: "reader",
      emailAddress: "all-staff@acme.test",
    } as never);
    const token = await googleTokens(ACCOUNT.credentials, { tokenUrl: fake.tokenUrl })
      .as("alice@acme.test", [GOOGLE_WRITE_SCOPE.drive])
      .getToken();
    const patch = (id: string, body: unknown) =>
      fetch(
        `${fake.endpoints.driveBaseUrl}/drive/v3/files/f-private/permissions/${id}?supportsAllDrives=true`,
        {
          method: "PATCH",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        },
      );
    const onLink = await patch(ORG_LINK, { expirationTime: IN_A_MONTH });
    expect(onLink.status).toBe(400);
    expect(await onLink.json()).toMatchObject({
      error: {
        code: 400,
        message: "Expiration dates cannot be set on anyone or domain permissions.",
        errors: [expect.objectContaining({ reason: "cannotSetExpirationOnAnyoneOrDomain" })],
      },
    });
    const tooFar = await patch("p-all-staff", {
      expirationTime: new Date(Date.now() + 400 * 86_400_000).toISOString(),
    });
    expect(tooFar.status).toBe(400);
    expect(await reasonOf(tooFar)).toBe("expirationDateTooFarInFuture");
    const ok = await patch("p-all-staff", { expirationTime: IN_A_MONTH });
    expect(ok.status).toBe(200);
    // allowFileDiscovery is no field update writes.
    const discover = await patch(ORG_LINK, { allowFileDiscovery: false });
    expect(discover.status).toBe(403);
    expect(await reasonOf(discover)).toBe("fieldNotWritable");
    expect(fake.writes.map((w) => w.status)).toEqual([200]);
  });

  it("rides out a 429 with Retry-After on making a link link-only, sharing it once", async () => {
    const fake = await start();
    const { delays, http } = recordingSleep();
    const writer = writerFor(fake, http);
    shareOrgWide(fake, true);
    fake.failWrites({ status: 429, retryAfter: 6, count: 1 });
    expect(await writer.restrictLink?.(PRIVATE, ORG_LINK)).toBe("applied");
    expect(delays).toEqual([6000]);
    expect(fake.writes).toEqual([
      { method: "POST", path: "/drive/v3/files/f-private/permissions", status: 200 },
    ]);
    expect((await writer.readPermission(PRIVATE, ORG_LINK))?.link).toEqual({
      expiresAt: null,
      discoverable: false,
    });
  });
});
