import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GOOGLE_SCOPE, GOOGLE_WRITE_SCOPE } from "@posture/connectors/wire";
import { googleTokens } from "@posture/connectors/wire";
import { ALL_CONNECTOR_SCOPES, startFakeGoogle, type TFakeGoogle } from "./fake-google";
import { WRITE_METHODS } from "./fake-google-drive-write";
import { buildGoogleFixture, generateServiceAccount } from "./google-fixture";

// The fake's write endpoints refuse what Google refuses, with Google's error bodies, and take
// exactly the parameters and scopes the Discovery documents declare.

const VENDOR_DIR = process.env.VENDOR_APIS_DIR ?? "/work/shared/reference/vendor-apis";
const haveDiscovery = existsSync(join(VENDOR_DIR, "drive.v3.json"));

type TDiscovery = {
  resources: Record<
    string,
    { methods: Record<string, { parameters: Record<string, unknown>; scopes: string[] }> }
  >;
};
const load = (file: string) => JSON.parse(readFileSync(join(VENDOR_DIR, file), "utf8")) as TDiscovery;
const sorted = (list: Iterable<string>) => [...list].sort();

describe.skipIf(!haveDiscovery)("the fake's write methods against the Discovery documents", () => {
  it("takes each method's parameters and scopes", () => {
    const drive = load("drive.v3.json").resources;
    const directory = load("admin.directory_v1.json").resources;
    const documented = {
      "drive.permissions.get": drive.permissions?.methods.get,
      "drive.permissions.create": drive.permissions?.methods.create,
      "drive.permissions.update": drive.permissions?.methods.update,
      "drive.permissions.delete": drive.permissions?.methods.delete,
      "drive.files.get": drive.files?.methods.get,
      "directory.tokens.get": directory.tokens?.methods.get,
      "directory.tokens.delete": directory.tokens?.methods.delete,
    };
    for (const [id, method] of Object.entries(documented)) {
      const spec = WRITE_METHODS[id as keyof typeof WRITE_METHODS];
      expect(sorted(spec.parameters), id).toEqual(sorted(Object.keys(method?.parameters ?? {})));
      expect(sorted(spec.scopes), id).toEqual(sorted(method?.scopes ?? []));
    }
  });
});

const ACCOUNT = generateServiceAccount("admin@acme.test");
let fake: TFakeGoogle;

beforeAll(async () => {
  fake = await startFakeGoogle({
    fixture: buildGoogleFixture(),
    serviceAccounts: [{ clientEmail: ACCOUNT.credentials.clientEmail, publicKey: ACCOUNT.publicKey }],
    authorizedScopes: [...ALL_CONNECTOR_SCOPES, GOOGLE_WRITE_SCOPE.drive],
  });
});
afterAll(async () => {
  await fake.close();
});

type TAnswer = {
  error?: { code: number; message: string; status: string; errors: Array<Record<string, string>> };
} & Record<string, unknown>;

async function call(
  subject: string,
  scope: string,
  method: string,
  path: string,
  query: Record<string, string> = {},
  body?: unknown,
) {
  const token = await googleTokens(ACCOUNT.credentials, { tokenUrl: fake.tokenUrl })
    .as(subject, [scope])
    .getToken();
  const response = await fetch(`${fake.url}${path}?${new URLSearchParams(query).toString()}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as TAnswer };
}

const drive = GOOGLE_WRITE_SCOPE.drive;
const ALL = { supportsAllDrives: "true" };

describe("the fake's Drive writes", () => {
  it("answers a user who cannot see the file 404, as if it did not exist", async () => {
    const answer = await call(
      "admin@acme.test",
      drive,
      "DELETE",
      "/drive/v3/files/f-private/permissions/p-alice",
      ALL,
    );
    expect(answer).toEqual({
      status: 404,
      body: {
        error: {
          code: 404,
          message: "File not found: f-private.",
          errors: [
            {
              message: "File not found: f-private.",
              domain: "global",
              reason: "notFound",
              location: "fileId",
              locationType: "parameter",
            },
          ],
          status: "NOT_FOUND",
        },
      },
    });
  });

  it("refuses a write to a token without a Drive write scope (403 insufficientPermissions)", async () => {
    const answer = await call(
      "alice@acme.test",
      GOOGLE_SCOPE.drive,
      "DELETE",
      "/drive/v3/files/f-public/permissions/anyoneWithLink",
      ALL,
    );
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({
      message: "Request had insufficient authentication scopes.",
      status: "PERMISSION_DENIED",
      errors: [{ reason: "insufficientPermissions" }],
    });
    // permissions.get is a read: the scan's read-only scope will do.
    const read = await call(
      "alice@acme.test",
      GOOGLE_SCOPE.drive,
      "GET",
      "/drive/v3/files/f-public/permissions/anyoneWithLink",
      { ...ALL, fields: "id,type,role,allowFileDiscovery" },
    );
    expect(read).toEqual({ status: 200, body: { id: "anyoneWithLink", type: "anyone", role: "reader" } });
  });

  it("refuses unknown fields and parameters like the read endpoints", async () => {
    const path = "/drive/v3/files/f-public/permissions/anyoneWithLink";
    const fields = await call("alice@acme.test", drive, "GET", path, { ...ALL, fields: "id,colour" });
    expect(fields.status).toBe(400);
    expect(fields.body.error?.message).toBe("Invalid field selection colour");
    const param = await call("alice@acme.test", drive, "DELETE", path, { ...ALL, notify: "false" });
    expect(param.status).toBe(400);
    expect(param.body.error?.errors[0]).toMatchObject({ reason: "badRequest", location: "notify" });
  });

  it("needs transferOwnership for an owner, and no sendNotificationEmail for a link", async () => {
    const path = "/drive/v3/files/f-private/permissions";
    const owner = await call("alice@acme.test", drive, "POST", path, ALL, {
      type: "user",
      role: "owner",
      emailAddress: "admin@acme.test",
    });
    expect(owner.status).toBe(403);
    expect(owner.body.error?.message).toBe(
      "The transferOwnership parameter must be enabled when the permission role is 'owner'.",
    );
    const link = await call(
      "alice@acme.test",
      drive,
      "POST",
      path,
      { ...ALL, sendNotificationEmail: "false" },
      {
        type: "anyone",
        role: "reader",
      },
    );
    expect(link.status).toBe(400);
    expect(fake.writes).toHaveLength(0);
  });

  it("changes the tenant: a created permission is listed, with a stable id per grantee", async () => {
    const created = await call(
      "alice@acme.test",
      drive,
      "POST",
      "/drive/v3/files/f-private/permissions",
      { ...ALL, sendNotificationEmail: "false", fields: "id,role" },
      { type: "user", role: "commenter", emailAddress: "admin@acme.test" },
    );
    expect(created).toEqual({ status: 200, body: { id: "p-admin", role: "commenter" } });
    const listed = await call("alice@acme.test", drive, "GET", "/drive/v3/files/f-private/permissions", {
      ...ALL,
      fields: "permissions(id,role)",
    });
    expect(listed.body.permissions).toEqual([
      { id: "p-alice", role: "owner" },
      { id: "p-admin", role: "commenter" },
    ]);
    expect(fake.writes).toHaveLength(1);
  });
});

describe("the fake's Directory tokens", () => {
  it("gets and deletes a user's token; an unknown one is 404; only an admin may", async () => {
    const scope = GOOGLE_SCOPE.tokens;
    const path = "/admin/directory/v1/users/bob%40acme.test/tokens/999-anon.apps.googleusercontent.com";
    expect((await call("alice@acme.test", scope, "GET", path)).status).toBe(403);
    const token = await call("admin@acme.test", scope, "GET", path);
    expect(token.body).toMatchObject({
      kind: "admin#directory#token",
      userKey: "u-bob",
      displayText: "Cool PDF Tool",
    });
    expect((await call("admin@acme.test", scope, "DELETE", path)).status).toBe(204);
    const gone = await call("admin@acme.test", scope, "DELETE", path);
    expect(gone.status).toBe(404);
    expect(gone.body.error?.errors[0]?.reason).toBe("notFound");
    const list = await call("admin@acme.test", scope, "GET", "/admin/directory/v1/users/u-bob/tokens");
    expect(list.body.items).toEqual([]);
  });
});

describe("the fake's permission bodies", () => {
  it("refuses a body field Permission does not declare, before looking the file up, and takes declared ones", async () => {
    const message = 'Invalid JSON payload received. Unknown name "notify": Cannot find field.';
    const refused = {
      status: 400,
      body: { error: expect.objectContaining({ code: 400, message }) as unknown },
    };
    const body = { type: "user", role: "reader", emailAddress: "bob@acme.test", notify: false };
    expect(
      await call("alice@acme.test", drive, "POST", "/drive/v3/files/f-private/permissions", ALL, body),
    ).toEqual(refused);
    // Even where the caller could see nothing: the body fails to parse first.
    expect(
      await call("admin@acme.test", drive, "POST", "/drive/v3/files/f-private/permissions", ALL, body),
    ).toEqual(refused);
    const patch = await call(
      "alice@acme.test",
      drive,
      "PATCH",
      "/drive/v3/files/f-public/permissions/anyoneWithLink",
      ALL,
      {
        role: "reader",
        notify: true,
      },
    );
    expect(patch).toEqual(refused);
    const discoverable = await call(
      "alice@acme.test",
      drive,
      "POST",
      "/drive/v3/files/f-private/permissions",
      ALL,
      {
        type: "anyone",
        role: "reader",
        allowFileDiscovery: true,
      },
    );
    expect(discoverable).toMatchObject({ status: 200, body: { id: "anyone" } });
  });
});
