import { describe, expect, it } from "vitest";
import { waitFor } from "@posture/webhooks/testing";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// Issue 31's "done when", from outside over HTTP on the embedded default: a demo GitHub connector
// is created and scanned; its findings carry connectorType "github" (a public repository rated by
// its name and by its content signal, outside collaborators with write and admin, deploy keys that
// can push, two-factor not required, the broad base permission); the inventory lists its
// repositories; the agent inventory shows its app installations; a remediation removes an outside
// collaborator (plan → approve → apply), the rescan sees them gone, and undo brings them back.

type TFinding = {
  id: string;
  ruleId: string;
  severity: string;
  resourceName: string;
  title: string;
  connectorType: string;
  status: string;
  benchmark?: { name: string; version: string; id: string };
};
type TStep = {
  id: string;
  action: string;
  status: string;
  reversible: boolean;
  findingIds: string[];
  resource: unknown;
  before: Record<string, unknown>;
};
type TRemediation = { id: string; status: string; steps: TStep[] };
type TRepoRow = {
  name: string;
  visibility: string;
  outsideCollaborators: number;
  sensitivity: string;
  signal: string | null;
};

const gw = useTestGateway();

describe("GitHub demo connector over HTTP", () => {
  it("connects, scans, lists repositories and apps, and removes an outside collaborator and undoes it", async () => {
    const owner = await gw.createActor({ plan: "business" });
    const call = async (method: string, path: string, body?: unknown, status = 200) => {
      // A client address per request: the walk polls, and a session's budget is 60 requests a minute.
      const res = await gw.request(method, path, {
        cookie: owner.cookie,
        ip: freshIp(),
        ...(body === undefined ? {} : { body }),
      });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
      return res.body;
    };

    // A GitHub demo organization is sized in repositories; files are refused for it.
    const wrongSize = await gw.request("POST", "/api/connectors", {
      cookie: owner.cookie,
      ip: freshIp(),
      body: { type: "github", displayName: "GitHub", mode: "demo", demo: { files: 10 } },
    });
    expect(wrongSize.status).toBe(400);
    expect(wrongSize.body).toMatchObject({
      error: "invalid_input",
      details: [
        {
          path: "demo.files",
          message: "a GitHub demo organization is sized by demo.repositories, not demo.files",
        },
      ],
    });

    const connector = (await call(
      "POST",
      "/api/connectors",
      { type: "github", displayName: "Northwind GitHub", mode: "demo", demo: { repositories: 40 } },
      201,
    )) as {
      id: string;
      type: string;
      writeAccess: boolean;
      demo: unknown;
      access: { granted: unknown[]; missing: unknown[] };
    };
    expect(connector).toMatchObject({
      type: "github",
      writeAccess: true,
      demo: { files: 40, users: 12, repositories: 40, revision: 0 },
    });
    expect(connector.access.granted.map((g) => (g as { permission: string }).permission)).toEqual([
      "metadata: read",
      "members: read",
      "administration: read",
      "organization_administration: read",
      "organization_copilot_seat_management: read",
    ]);
    expect(connector.access.missing).toEqual([]);

    const sync = async () =>
      (await call("POST", `/api/connectors/${connector.id}/sync`)) as {
        status: string;
        kind: string;
        resources: number;
        findingsNew: number;
        findingsResolved: number;
        postureScore: number;
      };
    const first = await sync();
    // 40 repositories, 12 members, 4 installations (the suspended fifth is not an agent).
    expect(first).toMatchObject({
      status: "COMPLETE",
      kind: "full",
      resources: 56,
      findingsNew: 24,
      findingsResolved: 0,
    });

    const findings = ((await call("GET", "/api/findings?limit=200")) as { findings: TFinding[] }).findings;
    expect(new Set(findings.map((f) => f.connectorType))).toEqual(new Set(["github"]));
    const summary = findings
      .map((f) => `${f.ruleId} ${f.severity} ${f.resourceName}`)
      .sort((a, b) => a.localeCompare(b));
    expect(summary).toEqual([
      "admin_without_mfa CRITICAL devon-lee@northwind-labs.github",
      "app_unverified_publisher LOW codecov",
      "app_unverified_publisher LOW coderabbitai",
      "app_unverified_publisher LOW renovate",
      "app_unverified_publisher LOW slack",
      "deploy_key_write HIGH northwind-labs/deploy-scripts",
      "deploy_key_write HIGH northwind-labs/payments-api",
      "deploy_key_write HIGH northwind-labs/terraform-modules",
      "external_share HIGH northwind-labs/deploy-scripts",
      "external_share HIGH northwind-labs/payments-api",
      "external_share MEDIUM northwind-labs/design-system",
      "external_share MEDIUM northwind-labs/mobile-app",
      "external_share MEDIUM northwind-labs/old-monolith",
      "gh_base_permission_strict HIGH Members' base permission on the organization's repositories is read or none",
      "gh_org_2fa_required HIGH The organization requires its members to use two-factor authentication",
      "gh_public_repo_creation_limited MEDIUM Members cannot create public repositories",
      "org_wide_grant MEDIUM northwind-labs/design-system",
      "org_wide_grant MEDIUM northwind-labs/handbook",
      "public_link CRITICAL northwind-labs/infra-credentials",
      "public_link CRITICAL northwind-labs/sdk-js",
      "public_link HIGH northwind-labs/docs",
      "public_link HIGH northwind-labs/website",
      "user_without_mfa HIGH farid-haddad@northwind-labs.github",
      "user_without_mfa HIGH ines-costa@northwind-labs.github",
    ]);
    const byKey = (ruleId: string, resourceName: string) => {
      const found = findings.find((f) => f.ruleId === ruleId && f.resourceName === resourceName);
      expect(found, `${ruleId} on ${resourceName}`).toBeDefined();
      return found as TFinding;
    };
    // Rated by name (infra-credentials) and by content (sdk-js: open secret scanning alerts).
    expect(byKey("public_link", "northwind-labs/infra-credentials").title).toBe(
      "Public repository with a sensitive name",
    );
    expect(byKey("public_link", "northwind-labs/sdk-js").title).toBe(
      "Public repository with secret scanning alerts open",
    );
    expect(byKey("external_share", "northwind-labs/deploy-scripts").title).toBe(
      "Outside collaborator with write access or more",
    );
    expect(
      byKey("gh_org_2fa_required", "The organization requires its members to use two-factor authentication")
        .benchmark,
    ).toEqual({ name: "CIS Software Supply Chain Security Guide", version: "1.0.0", id: "1.3.5" });

    // The inventory's repositories, most recently pushed first.
    const inventory = (await call("GET", "/api/inventory?type=repositories&limit=7")) as {
      type: string;
      total: number;
      rows: TRepoRow[];
      metrics: Record<string, number>;
    };
    expect(inventory.type).toBe("repositories");
    expect(inventory.total).toBe(40);
    expect(inventory.metrics).toEqual({
      total: 40,
      public: 4,
      internal: 2,
      withOutsideCollaborators: 5,
      sensitive: 2,
    });
    expect(
      inventory.rows.map(({ name, visibility, outsideCollaborators, sensitivity, signal }) => ({
        name,
        visibility,
        outsideCollaborators,
        sensitivity,
        signal,
      })),
    ).toEqual([
      {
        name: "northwind-labs/payments-api",
        visibility: "private",
        outsideCollaborators: 1,
        sensitivity: "low",
        signal: null,
      },
      {
        name: "northwind-labs/website",
        visibility: "public",
        outsideCollaborators: 0,
        sensitivity: "low",
        signal: null,
      },
      {
        name: "northwind-labs/infra-credentials",
        visibility: "public",
        outsideCollaborators: 0,
        sensitivity: "high",
        signal: null,
      },
      {
        name: "northwind-labs/mobile-app",
        visibility: "private",
        outsideCollaborators: 1,
        sensitivity: "low",
        signal: null,
      },
      {
        name: "northwind-labs/deploy-scripts",
        visibility: "private",
        outsideCollaborators: 1,
        sensitivity: "low",
        signal: null,
      },
      {
        name: "northwind-labs/sdk-js",
        visibility: "public",
        outsideCollaborators: 0,
        sensitivity: "high",
        signal: "Secret scanning alerts open",
      },
      {
        name: "northwind-labs/design-system",
        visibility: "internal",
        outsideCollaborators: 1,
        sensitivity: "low",
        signal: null,
      },
    ]);

    // The app installations are the agent inventory's apps, each with its permissions as scopes.
    const agents = (await call("GET", "/api/agent-guard/inventory")) as {
      agents: Array<{ label: string; kind: string; access: string; scopes: string[]; connectorId: string }>;
      metrics: Record<string, number>;
    };
    expect(
      agents.agents
        .map(({ label, kind, access, scopes, connectorId }) => ({
          label,
          kind,
          access,
          scopes,
          mine: connectorId === connector.id,
        }))
        .sort((a, b) => a.label.localeCompare(b.label)),
    ).toEqual([
      {
        label: "codecov",
        kind: "oauth_app",
        access: "application",
        scopes: ["checks:write", "metadata:read", "statuses:write"],
        mine: true,
      },
      {
        label: "coderabbitai",
        kind: "oauth_app",
        access: "application",
        scopes: ["contents:read", "metadata:read", "pull_requests:write"],
        mine: true,
      },
      {
        label: "renovate",
        kind: "oauth_app",
        access: "application",
        scopes: ["contents:write", "metadata:read", "pull_requests:write", "workflows:write"],
        mine: true,
      },
      {
        label: "slack",
        kind: "oauth_app",
        access: "application",
        scopes: ["issues:read", "metadata:read", "pull_requests:read"],
        mine: true,
      },
    ]);
    expect(agents.metrics.total).toBe(4);

    // The Copilot seats are GitHub Copilot's users: an assistant of its own, reaching repositories.
    const ai = (await call("GET", "/api/exposure/ai")) as {
      assistants: Array<{ id: string; kind: string; label: string; users: number; reachableFiles: number }>;
    };
    // (Members reach the repositories open to the organization and their own; the base permission is not modelled.)
    expect(
      ai.assistants.map(({ id, kind, label, users, reachableFiles }) => ({
        id,
        kind,
        label,
        users,
        reachableFiles,
      })),
    ).toEqual([
      { id: "github_copilot", kind: "copilot", label: "GitHub Copilot", users: 4, reachableFiles: 6 },
    ]);

    // Remove the outside collaborator with admin on deploy-scripts: plan, approve, apply.
    const share = byKey("external_share", "northwind-labs/deploy-scripts");
    const plan = (await call("POST", "/api/remediations", { findingIds: [share.id] }, 201)) as TRemediation;
    expect(plan.status).toBe("PLANNED");
    expect(plan.steps.map((s) => ({ action: s.action, status: s.status, reversible: s.reversible }))).toEqual(
      [{ action: "remove_external_user", status: "PENDING", reversible: true }],
    );
    expect((await call("POST", `/api/remediations/${plan.id}/approve`)) as TRemediation).toMatchObject({
      status: "APPROVED",
    });
    await call("POST", `/api/remediations/${plan.id}/apply`, undefined, 202);
    const settle = (want: string) =>
      waitFor(async () => {
        const r = (await call("GET", `/api/remediations/${plan.id}`)) as TRemediation;
        return r.status === want ? r : null;
      }, 60_000);
    const applied = await settle("APPLIED");
    expect(applied.steps.map((s) => s.status)).toEqual(["APPLIED"]);
    const status = async (id: string) => ((await call("GET", `/api/findings/${id}`)) as TFinding).status;
    expect(await status(share.id)).toBe("RESOLVED");
    const repoRow = async () =>
      (
        (await call("GET", "/api/inventory?type=repositories&search=deploy-scripts")) as { rows: TRepoRow[] }
      ).rows.map((r) => r.outsideCollaborators);
    expect(await repoRow()).toEqual([0]);

    // The source agrees: the rescan finds the collaborator gone and reopens nothing.
    const rescan = await sync();
    expect(rescan).toMatchObject({ status: "COMPLETE", findingsNew: 0, findingsResolved: 0 });
    expect(await status(share.id)).toBe("RESOLVED");
    expect(await status(byKey("deploy_key_write", "northwind-labs/deploy-scripts").id)).toBe("OPEN");

    // Undo puts the collaborator back; the next scan sees them and reopens the finding.
    const undoing = (await call("POST", `/api/remediations/${plan.id}/undo`, undefined, 202)) as TRemediation;
    expect(undoing.status).toBe("REVERTING");
    const reverted = await settle("REVERTED");
    expect(reverted.steps.map((s) => s.status)).toEqual(["REVERTED"]);
    const afterUndo = await sync();
    expect(afterUndo).toMatchObject({ status: "COMPLETE", findingsNew: 0 });
    expect(await status(share.id)).toBe("OPEN");
    expect(await repoRow()).toEqual([1]);
    expect(afterUndo.postureScore).toBe(first.postureScore);

    // Delete the writable deploy key of payments-api; undo adds its public key back, under a new id.
    const key = byKey("deploy_key_write", "northwind-labs/payments-api");
    const keyPlan = (await call("POST", "/api/remediations", { findingIds: [key.id] }, 201)) as TRemediation;
    expect(keyPlan.steps.map((s) => [s.action, s.reversible, s.findingIds, s.resource])).toEqual([
      [
        "delete_deploy_key",
        true,
        [key.id],
        {
          kind: "deploy_key",
          fileId: "northwind-labs/payments-api",
          driveId: null,
          name: "northwind-labs/payments-api",
          ownerEmail: "owners@northwind-labs.github",
          keyId: "101",
          title: "ci-deploy",
        },
      ],
    ]);
    expect(keyPlan.steps[0]?.before.undoNote).toContain("GitHub gives it a new id");
    await call("POST", `/api/remediations/${keyPlan.id}/approve`);
    await call("POST", `/api/remediations/${keyPlan.id}/apply`, undefined, 202);
    const settleKey = (want: string) =>
      waitFor(async () => {
        const r = (await call("GET", `/api/remediations/${keyPlan.id}`)) as TRemediation;
        return r.status === want ? r : null;
      }, 60_000);
    expect((await settleKey("APPLIED")).steps.map((s) => s.status)).toEqual(["APPLIED"]);
    expect(await status(key.id)).toBe("RESOLVED");
    expect(await sync()).toMatchObject({ status: "COMPLETE", findingsNew: 0, findingsResolved: 0 });
    expect(await status(key.id)).toBe("RESOLVED");
    await call("POST", `/api/remediations/${keyPlan.id}/undo`, undefined, 202);
    expect((await settleKey("REVERTED")).steps.map((s) => s.status)).toEqual(["REVERTED"]);
    expect(await sync()).toMatchObject({ status: "COMPLETE", findingsNew: 0 });
    // The key is back (the rescan finds it writable again), so the finding reopens.
    expect(await status(key.id)).toBe("OPEN");
  }, 120_000);
});
