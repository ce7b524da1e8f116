import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GOOGLE_SCOPE } from "@posture/connectors/wire";
import { googleTokens } from "@posture/connectors/wire";
import { ALL_CONNECTOR_SCOPES, startFakeGoogle, type TFakeGoogle } from "./fake-google";
import { UNAUTHORIZED_CLIENT } from "./fake-google-token";
import { buildGoogleFixture, generateServiceAccount } from "./google-fixture";

// The fake refuses what Google refuses: these are the answers a real tenant gives the requests the
// connector once made, or could make by mistake.

const ACCOUNT = generateServiceAccount("admin@acme.test");
let fake: TFakeGoogle;

beforeAll(async () => {
  fake = await startFakeGoogle({
    fixture: buildGoogleFixture(),
    serviceAccounts: [{ clientEmail: ACCOUNT.credentials.clientEmail, publicKey: ACCOUNT.publicKey }],
    authorizedScopes: ALL_CONNECTOR_SCOPES.filter((s) => s !== GOOGLE_SCOPE.reports),
  });
});
afterAll(async () => {
  await fake.close();
});

const tokens = () => googleTokens(ACCOUNT.credentials, { tokenUrl: fake.tokenUrl });

/** A Drive list or a Google error, read loosely. */
type TAnswer = {
  error: { message: string; errors: Array<{ reason?: string }> };
  files: Array<Record<string, unknown>>;
};

async function get(subject: string, scope: string, path: string, query: Record<string, string> = {}) {
  const token = await tokens().as(subject, [scope]).getToken();
  const url = `${fake.url}${path}?${new URLSearchParams(query).toString()}`;
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as TAnswer };
}

async function grant(subject: string, scopes: string[]) {
  const refused = await tokens()
    .probe(subject, scopes)
    .then(() => null)
    .catch((e: unknown) => (e as Error).message);
  return { refused };
}

const drive = GOOGLE_SCOPE.drive;

describe("the fake's fields masks", () => {
  it("refuses a field Drive does not declare, with Google's 400", async () => {
    const answer = await get("alice@acme.test", drive, "/drive/v3/files", { fields: "files(id,colour)" });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 400,
      message: "Invalid field selection colour",
      errors: [{ reason: "invalidParameter", location: "fields", locationType: "parameter" }],
    });
    const nested = await get("alice@acme.test", drive, "/drive/v3/files", {
      fields: "files(id,permissions(id,email))",
    });
    expect(nested.body.error.message).toBe("Invalid field selection email");
    const top = await get("admin@acme.test", drive, "/drive/v3/drives", {
      fields: "nextPageToken,drives(id),total",
    });
    expect(top.body.error.message).toBe("Invalid field selection total");
  });

  it("returns only the fields the mask selects, at both levels", async () => {
    const answer = await get("alice@acme.test", drive, "/drive/v3/files", {
      q: "'me' in owners and trashed = false",
      fields: "files(id,permissions(id,type))",
    });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(["files"]);
    const file = answer.body.files.find((f) => f.id === "f-public");
    expect(file).toEqual({
      id: "f-public",
      permissions: [
        { id: "p-alice", type: "user" },
        { id: "anyoneWithLink", type: "anyone" },
      ],
    });
  });
});

describe("the fake's parameters and visibility", () => {
  it("refuses a query parameter the method does not take (useDomainAdminAccess on files.list)", async () => {
    for (const [path, name] of [
      ["/drive/v3/files", "useDomainAdminAccess"],
      ["/drive/v3/drives", "corpora"],
      ["/drive/v3/files/f-public/permissions", "includeItemsFromAllDrives"],
    ] as const) {
      const answer = await get("alice@acme.test", drive, path, { [name]: "true" });
      expect(answer.status, path).toBe(400);
      expect(answer.body.error.message, path).toContain(`Unknown name "${name}"`);
    }
  });

  it("shows an impersonated user only what they can see", async () => {
    const mine = await get("alice@acme.test", drive, "/drive/v3/files", { fields: "files(id)" });
    expect(mine.body.files.map((f) => f.id).sort()).toEqual(
      ["f-internal", "f-private", "f-public", "f-shared", "f-trashed"].sort(),
    );
    const admins = await get("admin@acme.test", drive, "/drive/v3/files", { fields: "files(id)" });
    expect(admins.body.files.map((f) => f.id)).not.toContain("f-private");
  });

  it("answers 404 for a shared drive the caller is not a member of, admin or not", async () => {
    const answer = await get("admin@acme.test", drive, "/drive/v3/files", {
      corpora: "drive",
      driveId: "d-legal",
      includeItemsFromAllDrives: "true",
      supportsAllDrives: "true",
    });
    expect(answer.status).toBe(404);
    expect(answer.body.error).toMatchObject({
      message: "Shared drive not found: d-legal",
      errors: [{ reason: "notFound" }],
    });
  });

  it("answers a user whose Drive is off with 403 domainPolicy, and a non-admin on the Directory with 403", async () => {
    const off = await get("dave@acme.test", drive, "/drive/v3/files");
    expect(off.status).toBe(403);
    expect(off.body.error.errors[0]?.reason).toBe("domainPolicy");
    const directory = await get("alice@acme.test", GOOGLE_SCOPE.users, "/admin/directory/v1/users", {
      customer: "my_customer",
    });
    expect(directory.status).toBe(403);
    expect(directory.body.error.message).toBe("Not Authorized to access this resource/api");
  });

  it("answers a token without the method's scope with Google's insufficient-scopes 403", async () => {
    const answer = await get("admin@acme.test", GOOGLE_SCOPE.users, "/drive/v3/files");
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({
      message: "Request had insufficient authentication scopes.",
      status: "PERMISSION_DENIED",
      details: [{ reason: "ACCESS_TOKEN_SCOPE_INSUFFICIENT" }],
    });
  });
});

describe("the fake's domain-wide delegation", () => {
  it("refuses a scope the delegation does not list with unauthorized_client", async () => {
    const { refused } = await grant("admin@acme.test", [drive, GOOGLE_SCOPE.reports]);
    expect(refused).toContain(UNAUTHORIZED_CLIENT);
    expect(fake.grants.some((g) => g.scopes.includes(GOOGLE_SCOPE.reports))).toBe(false);
  });

  it("refuses to impersonate someone outside the tenant or a suspended user", async () => {
    expect((await grant("mallory@evil.example", [drive])).refused).toContain("Invalid email or User ID");
    expect((await grant("bob@acme.test", [drive])).refused).toContain("Invalid email or User ID");
    expect((await grant("alice@acme.test", [drive])).refused).toBeNull();
  });
});

describe("the fake's Admin SDK and Labels as strict as Google's", () => {
  let full: TFakeGoogle;
  beforeAll(async () => {
    full = await startFakeGoogle({
      fixture: buildGoogleFixture(),
      serviceAccounts: [{ clientEmail: ACCOUNT.credentials.clientEmail, publicKey: ACCOUNT.publicKey }],
    });
  });
  afterAll(async () => {
    await full.close();
  });

  async function admin(scope: string, path: string, query: Record<string, string> = {}) {
    const token = await googleTokens(ACCOUNT.credentials, { tokenUrl: full.tokenUrl })
      .as("admin@acme.test", [scope])
      .getToken();
    const url = `${full.url}${path}?${new URLSearchParams(query).toString()}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  const LISTS = [
    ["users", GOOGLE_SCOPE.users, "/admin/directory/v1/users", { customer: "my_customer" }],
    ["domains", GOOGLE_SCOPE.domains, "/admin/directory/v1/customer/my_customer/domains", {}],
    ["tokens", GOOGLE_SCOPE.tokens, "/admin/directory/v1/users/alice@acme.test/tokens", {}],
    ["activities", GOOGLE_SCOPE.reports, "/admin/reports/v1/activity/users/all/applications/token", {}],
  ] as const;

  it.each(LISTS)(
    "refuses a %s `fields` property the Discovery schema does not declare",
    async (_, scope, path, q) => {
      const top = await admin(scope, path, { ...q, fields: "kind,colour" });
      expect(top).toEqual({
        status: 400,
        body: {
          error: {
            code: 400,
            message: "Invalid field selection colour",
            errors: [
              {
                message: "Invalid field selection colour",
                domain: "global",
                reason: "invalidParameter",
                location: "fields",
                locationType: "parameter",
              },
            ],
            status: "INVALID_ARGUMENT",
          },
        },
      });
    },
  );

  it("refuses undeclared nested properties and selects declared ones, at every level", async () => {
    const users = await admin(GOOGLE_SCOPE.users, "/admin/directory/v1/users", {
      customer: "my_customer",
      fields: "users(primaryEmail,name(fullName,nickname))",
    });
    expect(users.status).toBe(400);
    expect((users.body.error as { message: string }).message).toBe("Invalid field selection nickname");
    const picked = await admin(GOOGLE_SCOPE.users, "/admin/directory/v1/users", {
      customer: "my_customer",
      fields: "users(primaryEmail)",
    });
    expect(picked.status).toBe(200);
    expect((picked.body.users as unknown[])[0]).toEqual({ primaryEmail: "admin@acme.test" });
    const events = await admin(
      GOOGLE_SCOPE.reports,
      "/admin/reports/v1/activity/users/all/applications/token",
      {
        fields: "items(id(time),events(name,parameters(name,value,colour)))",
      },
    );
    expect((events.body.error as { message: string }).message).toBe("Invalid field selection colour");
    const tokensPicked = await admin(
      GOOGLE_SCOPE.tokens,
      "/admin/directory/v1/users/alice@acme.test/tokens",
      {
        fields: "items(clientId)",
      },
    );
    expect(tokensPicked.status).toBe(200);
    expect(Object.keys(tokensPicked.body)).toEqual(["items"]);
  });

  it("refuses an applicationName Reports does not know, with its pattern", async () => {
    const answer = await admin(
      GOOGLE_SCOPE.reports,
      "/admin/reports/v1/activity/users/all/applications/photos",
    );
    expect(answer.status).toBe(400);
    const error = answer.body.error as { message: string; errors: Array<Record<string, string>> };
    expect(error.message).toMatch(
      /^Invalid value 'photos'\. Values must match the following regular expression: '\(access_evaluation\)\|/,
    );
    expect(error.errors[0]).toMatchObject({ reason: "invalidParameter", location: "applicationName" });
    const known = await admin(
      GOOGLE_SCOPE.reports,
      "/admin/reports/v1/activity/users/all/applications/drive",
    );
    expect(known.status).toBe(200);
  });

  it("refuses a labels.list `fields` property Drive Labels does not declare, as a gRPC status", async () => {
    const answer = await admin(GOOGLE_SCOPE.labels, "/v2/labels", { fields: "labels(id,colour)" });
    expect(answer).toEqual({
      status: 400,
      body: { error: { code: 400, message: "Invalid field selection colour", status: "INVALID_ARGUMENT" } },
    });
    const picked = await admin(GOOGLE_SCOPE.labels, "/v2/labels", { fields: "labels(id)" });
    expect(picked.status).toBe(200);
  });
});
