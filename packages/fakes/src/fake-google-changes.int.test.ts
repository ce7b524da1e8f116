import { describe, expect, it } from "vitest";
import { GOOGLE_SCOPE } from "@posture/connectors/wire";
import { googleTokens } from "@posture/connectors/wire";
import { useFakeGoogle } from "./adapter-harness";
import { type TFakeGoogle } from "./fake-google";
import { generateServiceAccount } from "./google-fixture";

// The fake's Drive changes API answers as the Discovery document and Drive's guides say: strict
// parameters and fields, pages ending in newStartPageToken, one entry per file at its latest
// change, `removed` once the caller lost the file, and old tokens refused.

const ACCOUNT = generateServiceAccount("admin@acme.test");
const start = useFakeGoogle(ACCOUNT);

type TAnswer = {
  error?: { code: number; message: string; errors: Array<{ reason?: string; location?: string }> };
  startPageToken?: string;
  nextPageToken?: string;
  newStartPageToken?: string;
  changes?: Array<{ fileId: string; removed: boolean; file?: Record<string, unknown>; driveId?: string }>;
};

async function get(
  server: TFakeGoogle,
  subject: string,
  path: string,
  query: Record<string, string> = {},
  scope: string = GOOGLE_SCOPE.drive,
) {
  const tokens = googleTokens(ACCOUNT.credentials, { tokenUrl: server.tokenUrl });
  const token = await tokens.as(subject, [scope]).getToken();
  const url = `${server.url}${path}?${new URLSearchParams(query).toString()}`;
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as TAnswer };
}

const START = "/drive/v3/changes/startPageToken";
const LIST = "/drive/v3/changes";
const alice = "alice@acme.test";

async function startToken(server: TFakeGoogle, subject = alice, query: Record<string, string> = {}) {
  const answer = await get(server, subject, START, query);
  expect(answer.status).toBe(200);
  return answer.body.startPageToken ?? "";
}

describe("the fake's Drive changes API", () => {
  it("pages the changes since a start token, each file once, and ends with newStartPageToken", async () => {
    const server = await start({ pageSize: 2 });
    const token = await startToken(server);
    server.tenant.updateFile("f-public", { name: "Budget v2.xlsx" });
    server.tenant.updateFile("f-internal", { name: "Notes v2" });
    server.tenant.updateFile("f-public", { name: "Budget v3.xlsx" });
    server.tenant.updateFile("f-private", { name: "Salary v2.xlsx" });
    // Not Alice's: not in her feed.
    server.tenant.updateFile("f-external", { name: "Roadmap v2.pdf" });
    const fields = "nextPageToken,newStartPageToken,changes(fileId,removed,file(id,name))";
    const seen: TAnswer[] = [];
    let pageToken: string | undefined = token;
    while (pageToken) {
      const page = await get(server, alice, LIST, { pageToken, fields, restrictToMyDrive: "true" });
      expect(page.status).toBe(200);
      seen.push(page.body);
      pageToken = page.body.nextPageToken;
    }
    expect(seen.length).toBe(2);
    expect(seen[0]?.newStartPageToken).toBeUndefined();
    expect(seen[1]?.newStartPageToken).toBe(String(Number(token) + 5));
    expect(seen.flatMap((p) => p.changes ?? [])).toEqual([
      { fileId: "f-internal", removed: false, file: { id: "f-internal", name: "Notes v2" } },
      { fileId: "f-public", removed: false, file: { id: "f-public", name: "Budget v3.xlsx" } },
      { fileId: "f-private", removed: false, file: { id: "f-private", name: "Salary v2.xlsx" } },
    ]);
    // From the new start token: nothing yet.
    const after = await get(server, alice, LIST, { pageToken: seen[1]?.newStartPageToken ?? "" });
    expect(after.body.changes).toEqual([]);
  });

  it("reports a file removed for whoever lost it, and as it is now for whoever still sees it", async () => {
    const server = await start();
    const token = await startToken(server);
    server.tenant.unshare("f-shared", "p-alice");
    server.tenant.deleteFile("f-private");
    const list = await get(server, alice, LIST, { pageToken: token, fields: "changes(fileId,removed)" });
    expect(list.body.changes).toEqual([
      { fileId: "f-shared", removed: true },
      { fileId: "f-private", removed: true },
    ]);
    const admin = await get(server, "admin@acme.test", LIST, {
      pageToken: token,
      fields: "changes(fileId,removed,file(permissions(id)))",
    });
    expect(admin.body.changes).toEqual([
      { fileId: "f-shared", removed: false, file: { permissions: [{ id: "p-admin" }] } },
    ]);
    const hidden = await get(server, alice, LIST, { pageToken: token, includeRemoved: "false" });
    expect(hidden.body.changes).toEqual([]);
  });

  it("serves a shared drive's feed to its members only, with both all-drives flags", async () => {
    const server = await start();
    const both = { driveId: "d-eng", supportsAllDrives: "true", includeItemsFromAllDrives: "true" };
    const token = await startToken(server, "admin@acme.test", {
      driveId: "d-eng",
      supportsAllDrives: "true",
    });
    server.tenant.share("f-drive", { id: "anyoneWithLink", type: "anyone", role: "reader" });
    const list = await get(server, "admin@acme.test", LIST, { ...both, pageToken: token });
    expect(list.status).toBe(200);
    // A shared-drive item comes without its permissions, as in files.list.
    expect(list.body.changes).toEqual([
      expect.objectContaining({ fileId: "f-drive", removed: false, driveId: "d-eng" }),
    ]);
    const missingFlag = await get(server, "admin@acme.test", LIST, {
      driveId: "d-eng",
      supportsAllDrives: "true",
      pageToken: token,
    });
    expect(missingFlag.status).toBe(400);
    const outsider = await get(server, "admin@acme.test", START, {
      driveId: "d-legal",
      supportsAllDrives: "true",
    });
    expect(outsider.status).toBe(404);
    expect(outsider.body.error?.errors[0]).toMatchObject({ reason: "notFound", location: "driveId" });
  });

  it("refuses what Drive refuses: unknown parameters, fields, missing or bad tokens, other scopes", async () => {
    const server = await start();
    const token = await startToken(server);
    const unknown = await get(server, alice, LIST, { pageToken: token, since: "yesterday" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.message).toContain('Unknown name "since"');
    expect(unknown.body.error?.errors[0]).toMatchObject({ reason: "badRequest", location: "since" });
    const fields = await get(server, alice, LIST, { pageToken: token, fields: "changes(fileId,colour)" });
    expect(fields.status).toBe(400);
    expect(fields.body.error?.message).toBe("Invalid field selection colour");
    const missing = await get(server, alice, LIST);
    expect(missing.status).toBe(400);
    expect(missing.body.error?.errors[0]).toMatchObject({ reason: "required", location: "pageToken" });
    const garbled = await get(server, alice, LIST, { pageToken: "not-a-token" });
    expect(garbled.status).toBe(400);
    expect(garbled.body.error?.errors[0]).toMatchObject({ reason: "invalid", location: "pageToken" });
    const spaces = await get(server, alice, LIST, { pageToken: token, spaces: "photos" });
    expect(spaces.status).toBe(400);
    const scope = await get(server, "admin@acme.test", START, {}, GOOGLE_SCOPE.users);
    expect(scope.status).toBe(403);
  });

  it("expires tokens older than the log's retention with 410 (or 400 on pageToken when asked)", async () => {
    const server = await start({ changes: { retainChanges: 2 } });
    const token = await startToken(server);
    for (const name of ["a", "b", "c"]) server.tenant.updateFile("f-public", { name });
    const gone = await get(server, alice, LIST, { pageToken: token });
    expect(gone.status).toBe(410);
    expect(gone.body.error?.code).toBe(410);
    const other = await start({ changes: { expiredStatus: 400 } });
    const old = await startToken(other);
    other.tenant.updateFile("f-public", { name: "d" });
    other.tenant.expireChangeTokens();
    const refused = await get(other, alice, LIST, { pageToken: old });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.errors[0]).toMatchObject({ reason: "invalid", location: "pageToken" });
    // A token taken after the expiry is good.
    const fresh = await get(other, alice, LIST, { pageToken: await startToken(other) });
    expect(fresh.status).toBe(200);
  });
});
