import { beforeEach, describe, expect, it } from "vitest";
import { signAppJwt } from "@posture/connectors/wire";
import { buildGithubFixture, generateGithubApp } from "./fake-github-fixture";
import { createTestClock, useFakeGithub, type TTestClock } from "./fake-github-harness";
import { GITHUB_OPERATIONS, schemaProblems } from "./fake-github-schema";

// The fake refuses what GitHub's description does not allow, and answers only what it declares.

const APP = generateGithubApp();
let clock: TTestClock;
beforeEach(() => {
  clock = createTestClock();
});
const start = useFakeGithub(APP, () => clock);

const HEADERS = { accept: "application/vnd.github+json", "user-agent": "fake-github-test" };

async function token(url: string, body?: unknown) {
  const response = await fetch(`${url}/app/installations/88/access_tokens`, {
    method: "POST",
    headers: { ...HEADERS, authorization: `Bearer ${signAppJwt(APP, clock.now())}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function call(url: string, path: string, auth: string, method = "GET", body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...HEADERS, authorization: `Bearer ${auth}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text === "" ? null : JSON.parse(text)) as unknown,
  };
}

describe("the fake GitHub", () => {
  it("refuses paths, methods, query parameters and body keys the description does not declare", async () => {
    const fake = await start();
    fake.expectRefusals();
    const minted = await token(fake.url);
    const ghs = String(minted.body.token);
    const unknownPath = await call(fake.url, "/orgs/acme/secrets-everywhere", ghs);
    expect(unknownPath).toMatchObject({
      status: 404,
      body: { message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" },
    });
    expect((await call(fake.url, "/orgs/acme/repos", ghs, "DELETE")).status).toBe(404);
    const undocumented = await call(fake.url, "/orgs/acme/repos?visibility=public", ghs);
    expect(undocumented).toMatchObject({
      status: 422,
      body: {
        message: "Validation Failed",
        documentation_url: "https://docs.github.com/rest/repos/repos#list-organization-repositories",
        errors: [{ field: "visibility", code: "not_permitted", value: "public" }],
      },
    });
    // The invitations list takes only GitHub's paging parameters.
    const invitationFilter = await call(
      fake.url,
      "/repos/acme/website/invitations?invitee=contractor-carl",
      ghs,
    );
    expect(invitationFilter.body).toMatchObject({
      errors: [{ field: "invitee", code: "not_permitted", value: "contractor-carl" }],
    });
    const badEnum = await call(fake.url, "/orgs/acme/members?role=billing_manager", ghs);
    expect(badEnum.body).toMatchObject({ errors: [{ field: "role", code: "invalid" }] });
    const oldVersion = await fetch(`${fake.url}/orgs/acme`, {
      headers: { ...HEADERS, authorization: `Bearer ${ghs}`, "x-github-api-version": "2021-01-01" },
    });
    expect(oldVersion.status).toBe(400);
    expect(await oldVersion.json()).toMatchObject({ message: "API version 2021-01-01 is not supported." });
    const badBody = await token(fake.url, { permissions: { members: "read" }, scope: "everything" });
    expect(badBody).toMatchObject({
      status: 422,
      body: { message: 'Invalid request.\n\n"scope" is not a permitted key.' },
    });
    const notJson = await fetch(`${fake.url}/app/installations/88/access_tokens`, {
      method: "POST",
      headers: { ...HEADERS, authorization: `Bearer ${signAppJwt(APP, clock.now())}` },
      body: "permissions=members",
    });
    expect(await notJson.json()).toMatchObject({ message: "Problems parsing JSON", status: "400" });
    expect(fake.refused.map((r) => `${r.status} ${r.method} ${r.url}`)).toEqual([
      "404 GET /orgs/acme/secrets-everywhere",
      "404 DELETE /orgs/acme/repos",
      "422 GET /orgs/acme/repos?visibility=public",
      "422 GET /repos/acme/website/invitations?invitee=contractor-carl",
      "422 GET /orgs/acme/members?role=billing_manager",
      "400 GET /orgs/acme",
      "422 POST /app/installations/88/access_tokens",
      "400 POST /app/installations/88/access_tokens",
    ]);
  });

  it("pages at most 100 a page with GitHub's Link header", async () => {
    const fake = await start({ fixture: buildGithubFixture({ repositories: 250 }) });
    const ghs = String((await token(fake.url)).body.token);
    const first = await call(fake.url, "/orgs/acme/repos?per_page=500", ghs);
    expect((first.body as unknown[]).length).toBe(100);
    expect(first.headers.get("link")).toBe(
      `<${fake.url}/orgs/acme/repos?per_page=100&page=2>; rel="next", <${fake.url}/orgs/acme/repos?per_page=100&page=3>; rel="last"`,
    );
    const last = await call(fake.url, "/orgs/acme/repos?per_page=100&page=3", ghs);
    expect((last.body as unknown[]).length).toBe(50);
    // Invitations page the same way.
    const invited = buildGithubFixture();
    invited.invitations = Array.from({ length: 101 }, (_, i) => ({
      id: 9000 + i,
      repo: "website",
      login: "contractor-carl",
      permission: "pull" as const,
    }));
    const other = await start({
      fixture: invited,
      permissions: { 88: { metadata: "read", administration: "read" } },
    });
    const ghs2 = String((await token(other.url)).body.token);
    const invitations = await call(other.url, "/repos/acme/website/invitations?per_page=100&page=2", ghs2);
    expect(invitations.body).toMatchObject([
      { id: 9100, permissions: "read", invitee: { login: "contractor-carl" } },
    ]);
    expect(invitations.headers.get("link")).toContain('rel="prev"');
    expect(last.headers.get("link")).toBe(
      `<${fake.url}/orgs/acme/repos?per_page=100&page=2>; rel="prev", <${fake.url}/orgs/acme/repos?per_page=100&page=1>; rel="first"`,
    );
  });

  it("refuses a JWT that expires more than 10 minutes ahead, and an expired installation token", async () => {
    const fake = await start({ tokenTtlSec: 3600 });
    const head = Buffer.from(JSON.stringify({ alg: "RS256", typ: "JWT" })).toString("base64url");
    const now = Math.floor(clock.now() / 1000);
    const claims = Buffer.from(
      JSON.stringify({ iat: now - 60, exp: now + 660, iss: String(APP.appId) }),
    ).toString("base64url");
    const { createSign } = await import("node:crypto");
    const sig = createSign("RSA-SHA256")
      .update(`${head}.${claims}`)
      .sign(APP.privateKey)
      .toString("base64url");
    const tooLong = await call(
      fake.url,
      "/app/installations/88/access_tokens",
      `${head}.${claims}.${sig}`,
      "POST",
    );
    expect(tooLong).toMatchObject({
      status: 401,
      body: { message: "'Expiration time' claim ('exp') is too far in the future" },
    });

    const minted = await token(fake.url);
    expect(minted.body.expires_at).toBe(
      new Date(clock.now() + 3_600_000).toISOString().replace(".000Z", "Z"),
    );
    clock.advance(3_600_000);
    const expired = await call(fake.url, "/orgs/acme", String(minted.body.token));
    expect(expired).toMatchObject({
      status: 401,
      body: { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" },
    });
  });

  it("answers each operation only with properties its response schema declares", async () => {
    // Remediation's writes need administration: write, which the scanning app does not hold.
    const fake = await start({
      permissions: {
        88: {
          metadata: "read",
          members: "read",
          administration: "write",
          organization_administration: "read",
        },
      },
    });
    const ghs = String((await token(fake.url)).body.token);
    const paths: Record<string, string> = {
      "orgs/get": "/orgs/acme",
      "repos/list-for-org": "/orgs/acme/repos",
      "orgs/list-members": "/orgs/acme/members",
      "orgs/list-outside-collaborators": "/orgs/acme/outside_collaborators",
      "teams/list": "/orgs/acme/teams",
      "repos/list-collaborators": "/repos/acme/payments-api/collaborators",
      "repos/list-deploy-keys": "/repos/acme/website/keys",
      "orgs/list-app-installations": "/orgs/acme/installations",
      "actions/get-github-actions-permissions-organization": "/orgs/acme/actions/permissions",
      "copilot/list-copilot-seats": "/orgs/acme/copilot/billing/seats",
      // Remediation's, in an order that works (removed, then invited back):
      "repos/get": "/repos/acme/website",
      "repos/get-collaborator-permission-level":
        "/repos/acme/website/collaborators/contractor-carl/permission",
      "repos/remove-collaborator": "/repos/acme/website/collaborators/contractor-carl",
      "repos/add-collaborator": "/repos/acme/website/collaborators/contractor-carl",
      "repos/list-invitations": "/repos/acme/website/invitations",
      "repos/update-invitation": "/repos/acme/website/invitations/8000",
      "repos/update": "/repos/acme/website",
      "repos/get-deploy-key": "/repos/acme/website/keys/7001",
      "repos/delete-deploy-key": "/repos/acme/website/keys/7001",
      "repos/create-deploy-key": "/repos/acme/website/keys",
    };
    const bodies: Record<string, unknown> = {
      "repos/add-collaborator": { permission: "push" },
      "repos/update-invitation": { permissions: "read" },
      "repos/create-deploy-key": { title: "netlify deploy", key: "ssh-ed25519 AAAAnew", read_only: false },
      "repos/update": { visibility: "private" },
    };
    // GitHub's answer to each write: 204 without a body, 201 with the invitation it sent.
    const statuses: Record<string, number> = {
      "repos/remove-collaborator": 204,
      "repos/add-collaborator": 201,
      "repos/delete-deploy-key": 204,
      "repos/create-deploy-key": 201,
    };
    const installationOps = GITHUB_OPERATIONS.filter((op) => op.auth === "installation");
    expect(installationOps.map((op) => op.operationId).sort()).toEqual(Object.keys(paths).sort());
    const order = Object.keys(paths);
    for (const op of [...installationOps].sort(
      (a, b) => order.indexOf(a.operationId) - order.indexOf(b.operationId),
    )) {
      const answer = await call(
        fake.url,
        paths[op.operationId] ?? "",
        ghs,
        op.method,
        bodies[op.operationId],
      );
      const status = statuses[op.operationId] ?? 200;
      expect(answer.status, op.operationId).toBe(status);
      const schema = op.responses[String(status)]?.schema;
      if (status === 204) expect(answer.body, op.operationId).toBeNull();
      else expect(schemaProblems(schema ?? {}, answer.body), op.operationId).toEqual([]);
    }
  });
});
