import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GOOGLE_SCOPE } from "../google/access";
import { googleTokens } from "../google/auth";
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
