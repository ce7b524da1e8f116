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

/** The operations the writer tests below made (each allowed by the description: the harness checks). */
const made = new Set<string>();
const madeBy = (fake: TFakeGithub) => {
  for (const r of fake.requests) {
    const op = matchOperation(r.method, r.path)?.op;
    if (op) made.add(`${op.method} ${op.path}`);
  }
};

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

    madeBy(fake);
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

  it("deletes a writable deploy key and, on undo, adds its public key back under a new id", async () => {
    const fixture = buildGithubFixture();
    const fake = await start({ fixture, permissions: { 88: WRITER } });
    const writer = createSourceWriter(input(fake));
    const website = { id: "acme/website", driveId: null, ownerEmail: "owners@acme.github" };
    const keys = () => fixture.repositories.find((r) => r.name === "website")?.deployKeys.map((k) => k.id);
    expect(writer.reversibility("delete_deploy_key")).toEqual({
      reversible: true,
      caveat:
        "Undo adds the same public key back to the repository, so whoever holds its private key can push again; GitHub gives it a new id and creation date, and its last-used date starts over.",
    });
    const before = await writer.readDeployKey?.(website, "7001");
    expect(before).toEqual({
      id: "7001",
      title: "netlify deploy",
      key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA7001",
      readOnly: false,
    });
    expect(await writer.deleteDeployKey?.(website, "7001")).toBe("applied");
    expect(keys()).toEqual([]);
    expect(await writer.readDeployKey?.(website, "7001")).toBeNull();
    expect(await writer.deleteDeployKey?.(website, "7001")).toBe("already_gone");
    if (!before) throw new Error("no pre-image");
    // Undo: the same public key, a new id (the highest of the organization's plus one).
    expect(await writer.restoreDeployKey?.(website, before)).toEqual({ id: "7003" });
    // Retried (the first undo's outcome not recorded): found in the list, not added twice.
    expect(await writer.restoreDeployKey?.(website, before)).toEqual({ id: "7003" });
    expect(fixture.repositories.find((r) => r.name === "website")?.deployKeys).toMatchObject([
      { id: 7003, title: "netlify deploy", key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA7001", readOnly: false },
    ]);
    expect(writes(fake)).toEqual([
      "DELETE /repos/acme/website/keys/7001",
      'POST /repos/acme/website/keys {"title":"netlify deploy","key":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA7001","read_only":false}',
    ]);
    madeBy(fake);
  });

  it("adds a deploy key back once when GitHub carried out a POST it answered with a 502", async () => {
    const fixture = buildGithubFixture();
    const fake = await start({ fixture, permissions: { 88: WRITER } });
    // The first POST reaches GitHub, which adds the key; its answer is lost to a 502 on the way back.
    let lost = false;
    const fetchLosingOne: typeof fetch = async (url, init) => {
      const response = await fetch(url, init);
      if (init?.method !== "POST" || String(url).includes("/access_tokens") || lost) return response;
      lost = true;
      await response.body?.cancel();
      return new Response(JSON.stringify({ message: "Server Error" }), { status: 502 });
    };
    const writer = createSourceWriter({ ...input(fake), http: { ...clock.http, fetch: fetchLosingOne } });
    const website = { id: "acme/website", driveId: null, ownerEmail: "owners@acme.github" };
    const image = { id: "6999", title: "old deploy", key: "ssh-ed25519 AAAAold", readOnly: false };
    expect(await writer.restoreDeployKey?.(website, image)).toEqual({ id: "7003" });
    // Retried after the 502, refused as "key is already in use": the key found, added once.
    expect(fake.requests.filter((r) => r.method === "POST" && r.path.endsWith("/keys"))).toHaveLength(2);
    expect(fixture.repositories.find((r) => r.name === "website")?.deployKeys.map((k) => k.id)).toEqual([
      7001, 7003,
    ]);
  });

  it("made every operation remediation's requirements list", () => {
    expect(GITHUB_WRITE_REQUIREMENTS.flatMap((r) => r.operations).filter((key) => !made.has(key))).toEqual(
      [],
    );
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
