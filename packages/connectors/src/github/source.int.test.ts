import { beforeEach, describe, expect, it } from "vitest";
import { createSourceAdapter, createSourceWriter } from "../factory";
import { collect } from "../../../fakes/src/adapter-harness";
import { buildGithubFixture, generateGithubApp } from "../../../fakes/src/fake-github-fixture";
import { createTestClock, useFakeGithub, type TTestClock } from "../../../fakes/src/fake-github-harness";
import { type TFakeGithub } from "../../../fakes/src/fake-github";
import { matchOperation, type TGithubPermissions } from "../../../fakes/src/fake-github-schema";
import { SourceWriteError } from "../write";
import { GITHUB_WRITE_REQUIREMENTS } from "./write";

// A real GitHub connector (`type: "github"`, `mode: "real"`) as the scan and remediation make it,
// through the factory, against the fake GitHub: the organization read as the product's source
// model (repositories as resources, outside collaborators as outside shares, installations as
// agents), and remediation's writes (remove an outside collaborator, invite them back, make a
// repository private), each a call the description allows (the harness fails on any refusal).

const APP = generateGithubApp();
let clock: TTestClock;
beforeEach(() => {
  clock = createTestClock();
});
const start = useFakeGithub(APP, () => clock);

const input = (fake: TFakeGithub) => ({
  type: "github" as const,
  mode: "real" as const,
  connectorId: "con_github",
  credentials: { appId: APP.appId, privateKey: APP.privateKey, installationId: 88 },
  config: { organization: "acme" },
  endpoints: { github: { baseUrl: fake.url } },
  http: clock.http,
});

/** The scanning app's permissions and administration: write, which remediation's writes need. */
const WRITER: TGithubPermissions = {
  metadata: "read",
  members: "read",
  administration: "write",
  organization_administration: "read",
};

const writes = (fake: TFakeGithub) =>
  fake.requests
    .filter((r) => r.method !== "GET" && !r.path.startsWith("/app/"))
    .map((r) => `${r.method} ${r.path}${r.body ? ` ${r.body}` : ""}`);

describe("a real GitHub connector", () => {
  it("reads the organization as repositories, people, apps and settings", async () => {
    const fake = await start();
    const adapter = createSourceAdapter(input(fake));
    expect(await adapter.workspace()).toEqual({ domain: "acme.github", internalDomains: ["acme.github"] });
    expect(await collect(adapter.files())).toEqual([
      {
        id: "acme/handbook",
        name: "acme/handbook",
        mimeType: "application/vnd.github.repository",
        ownerEmail: "owners@acme.github",
        driveId: null,
        permissions: [
          { id: "~visibility", type: "domain", role: "reader", domain: "acme.github", everyone: "members" },
        ],
        modifiedAt: "2025-01-07T00:00:00Z",
        sizeBytes: 0,
        label: null,
        repository: { visibility: "internal", fork: false, archived: true, deployKeys: [] },
      },
      {
        id: "acme/payments-api",
        name: "acme/payments-api",
        mimeType: "application/vnd.github.repository",
        ownerEmail: "owners@acme.github",
        driveId: null,
        permissions: [
          {
            id: "contractor-carl",
            type: "user",
            role: "organizer",
            emailAddress: "contractor-carl@users.noreply.github.com",
          },
          {
            id: "auditor-ann",
            type: "user",
            role: "reader",
            emailAddress: "auditor-ann@users.noreply.github.com",
          },
        ],
        modifiedAt: "2025-02-11T00:00:00Z",
        sizeBytes: 0,
        label: null,
        repository: {
          visibility: "private",
          fork: false,
          archived: false,
          deployKeys: [{ id: "7002", title: "ci read", readOnly: true }],
        },
      },
      {
        id: "acme/website",
        name: "acme/website",
        mimeType: "application/vnd.github.repository",
        ownerEmail: "owners@acme.github",
        driveId: null,
        permissions: [
          { id: "~visibility", type: "anyone", role: "reader" },
          {
            id: "contractor-carl",
            type: "user",
            role: "writer",
            emailAddress: "contractor-carl@users.noreply.github.com",
          },
        ],
        modifiedAt: "2025-02-10T00:00:00Z",
        sizeBytes: 0,
        label: null,
        repository: {
          visibility: "public",
          fork: false,
          archived: false,
          deployKeys: [{ id: "7001", title: "netlify deploy", readOnly: false }],
        },
      },
    ]);
    const users = await collect(adapter.users());
    expect(users.map((u) => [u.email, u.isAdmin, u.mfaEnabled, u.assistants ?? [], u.unknown])).toEqual([
      ["olivia-owner@acme.github", true, true, [], ["lastLogin"]],
      ["dev-dan@acme.github", false, true, ["github_copilot"], ["lastLogin"]],
      ["lax-lee@acme.github", false, false, ["github_copilot"], ["lastLogin"]],
    ]);
    expect(
      (await collect(adapter.appGrants())).map((g) => [g.id, g.clientId, g.kind, g.access, g.scopes]),
    ).toEqual([
      [
        "installation-88",
        "posture-scanner",
        "oauth_app",
        "application",
        ["administration:read", "members:read", "metadata:read", "organization_administration:read"],
      ],
      [
        "installation-89",
        "ai-code-reviewer",
        "oauth_app",
        "application",
        ["contents:write", "metadata:read", "pull_requests:write"],
      ],
    ]);
    const settings = await adapter.tenantSettings();
    expect(settings.filter((s) => s.key.startsWith("org."))).toEqual([
      { key: "org.two_factor_requirement_enabled", value: false, source: "GET /orgs/{org}" },
      { key: "org.default_repository_permission", value: "write", source: "GET /orgs/{org}" },
      { key: "org.members_can_create_public_repositories", value: true, source: "GET /orgs/{org}" },
      { key: "org.members_can_fork_private_repositories", value: false, source: "GET /orgs/{org}" },
      { key: "org.secret_scanning_enabled_for_new_repositories", value: true, source: "GET /orgs/{org}" },
      {
        key: "org.secret_scanning_push_protection_enabled_for_new_repositories",
        value: false,
        source: "GET /orgs/{org}",
      },
    ]);
    expect(adapter.coverageGaps()).toEqual([]);
  });

  it("removes an outside collaborator, invites them back on undo, and makes a repository private", async () => {
    const fixture = buildGithubFixture();
    const fake = await start({ fixture, permissions: { 88: WRITER } });
    const writer = createSourceWriter(input(fake));
    const payments = { id: "acme/payments-api", driveId: null, ownerEmail: "owners@acme.github" };
    const before = await writer.readPermission(payments, "contractor-carl");
    expect(before).toEqual({
      id: "contractor-carl",
      type: "user",
      role: "organizer",
      emailAddress: "contractor-carl@users.noreply.github.com",
      extra: { githubRole: "admin" },
    });
    expect(writer.reversibility("remove_external_user", before ?? undefined)).toEqual({ reversible: true });

    expect(await writer.deletePermission(payments, "contractor-carl")).toBe("applied");
    expect(fixture.repositories.find((r) => r.name === "payments-api")?.collaborators).toEqual([
      { login: "auditor-ann", permission: "pull" },
      { login: "dev-dan", permission: "maintain" },
    ]);
    expect(await writer.readPermission(payments, "contractor-carl")).toBeNull();
    // Removed already: nothing is sent twice.
    expect(await writer.deletePermission(payments, "contractor-carl")).toBe("already_gone");

    // Undo: GitHub invites them back with the role they had; access returns when they accept.
    expect(
      await writer.restorePermission(payments, before ?? { id: "", type: "user", role: "reader" }),
    ).toEqual({
      id: "contractor-carl",
    });
    expect(fixture.invitations).toEqual([
      { id: 8000, repo: "payments-api", login: "contractor-carl", permission: "admin" },
    ]);
    // The undo retried after a crash (its outcome not recorded): the permission endpoint does not
    // show a pending invitation, so the engine's re-read finds nothing and restores again; the
    // writer finds the invitation it sent and sends no second one.
    expect(await writer.readPermission(payments, "contractor-carl")).toBeNull();
    expect(
      await writer.restorePermission(payments, before ?? { id: "", type: "user", role: "reader" }),
    ).toEqual({ id: "contractor-carl" });
    expect(fixture.invitations).toHaveLength(1);
    // An invitation at another role meanwhile (someone edited it): set back to theirs, still one.
    const sent = fixture.invitations?.[0];
    if (sent) sent.permission = "pull";
    await writer.restorePermission(payments, before ?? { id: "", type: "user", role: "reader" });
    expect(fixture.invitations).toEqual([
      { id: 8000, repo: "payments-api", login: "contractor-carl", permission: "admin" },
    ]);

    // A public repository made private: one-way (forks detached, outside stars dropped).
    const website = { id: "acme/website", driveId: null, ownerEmail: "owners@acme.github" };
    expect(writer.reversibility("remove_public_link").reversible).toBe(false);
    expect(await writer.deletePermission(website, "~visibility")).toBe("applied");
    expect(fixture.repositories.find((r) => r.name === "website")?.visibility).toBe("private");
    expect(await writer.deletePermission(website, "~visibility")).toBe("already_gone");

    // Every operation remediation's requirements list was made, each allowed by the description.
    const used = new Set(fake.requests.map((r) => matchOperation(r.method, r.path)?.op));
    expect(
      GITHUB_WRITE_REQUIREMENTS.flatMap((r) => r.operations).filter(
        (key) => ![...used].some((op) => op && `${op.method} ${op.path}` === key),
      ),
    ).toEqual([]);
    expect(writes(fake)).toEqual([
      "DELETE /repos/acme/payments-api/collaborators/contractor-carl",
      'PUT /repos/acme/payments-api/collaborators/contractor-carl {"permission":"admin"}',
      'PATCH /repos/acme/payments-api/invitations/8000 {"permissions":"admin"}',
      'PATCH /repos/acme/website {"visibility":"private"}',
    ]);
  });

  it("finds a pending invitation on a later page before inviting again", async () => {
    const fixture = buildGithubFixture();
    // 150 pending invitations to the repository, the removed collaborator's the last: page 2 of 100.
    fixture.invitations = Array.from({ length: 150 }, (_, i) => ({
      id: 9000 + i,
      repo: "payments-api",
      login: i === 149 ? "contractor-carl" : `invitee-${i}`,
      permission: i === 149 ? ("admin" as const) : ("pull" as const),
    }));
    fixture.repositories = fixture.repositories.map((r) =>
      r.name === "payments-api"
        ? { ...r, collaborators: r.collaborators.filter((c) => c.login !== "contractor-carl") }
        : r,
    );
    const fake = await start({ fixture, permissions: { 88: WRITER } });
    const writer = createSourceWriter(input(fake));
    const payments = { id: "acme/payments-api", driveId: null, ownerEmail: "owners@acme.github" };
    const image = {
      id: "contractor-carl",
      type: "user" as const,
      role: "organizer" as const,
      extra: { githubRole: "admin" },
    };
    expect(await writer.restorePermission(payments, image)).toEqual({ id: "contractor-carl" });
    expect(writes(fake)).toEqual([]);
    expect(
      fake.requests.filter((r) => r.path.endsWith("/invitations")).map((r) => r.url.replace(/^.*\?/, "")),
    ).toEqual(["per_page=100", "per_page=100&page=2"]);
    expect(fixture.invitations).toHaveLength(150);
  });

  it("lowers an outside collaborator's role, and puts back exactly GitHub's role on undo", async () => {
    const fixture = buildGithubFixture();
    const fake = await start({ fixture, permissions: { 88: WRITER } });
    const writer = createSourceWriter(input(fake));
    const payments = { id: "acme/payments-api", driveId: null, ownerEmail: "owners@acme.github" };
    const carl = () =>
      fixture.repositories
        .find((r) => r.name === "payments-api")
        ?.collaborators.find((c) => c.login === "contractor-carl");
    const before = await writer.readPermission(payments, "contractor-carl");
    expect(await writer.updatePermissionRole(payments, "contractor-carl", "reader")).toBe("applied");
    expect(carl()).toEqual({ login: "contractor-carl", permission: "pull" });
    // Never raised by a "lower": already at or below the role is left alone.
    expect(await writer.updatePermissionRole(payments, "contractor-carl", "writer")).toBe("already_gone");
    // Undo of a lowering: a collaborator still, so the role changes at once (no invitation).
    expect(
      await writer.restorePermission(payments, before ?? { id: "", type: "user", role: "reader" }),
    ).toEqual({
      id: "contractor-carl",
    });
    expect(carl()).toEqual({ login: "contractor-carl", permission: "admin" });
    expect(fixture.invitations).toBeUndefined();
    expect(writes(fake)).toEqual([
      'PUT /repos/acme/payments-api/collaborators/contractor-carl {"permission":"pull"}',
      'PUT /repos/acme/payments-api/collaborators/contractor-carl {"permission":"admin"}',
    ]);
  });

  it("is refused without administration: write, with GitHub's own answer", async () => {
    const fake = await start();
    const writer = createSourceWriter(input(fake));
    const payments = { id: "acme/payments-api", driveId: null, ownerEmail: "owners@acme.github" };
    const refusal = await writer.deletePermission(payments, "contractor-carl").catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(SourceWriteError);
    expect(refusal).toMatchObject({
      status: 403,
      message: "GitHub: Resource not accessible by integration (HTTP 403)",
    });
    expect(writer.requirements().map((r) => r.permission)).toEqual([
      "metadata: read",
      "administration: read",
      "administration: write",
    ]);
  });
});
