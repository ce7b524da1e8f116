import { describe, expect, it } from "vitest";
import { waitFor } from "@posture/webhooks/testing";
import { useTestGateway } from "../../testing";
import { call, makeSandbox, settled, startScenario, subscribe, waitForEvents } from "./harness";

// Issue 31, deliverable 5: the sandbox's GitHub scenarios. `repository_made_public` and
// `outside_collaborator_added` change a demo GitHub organization through the same overlay the
// GitHub demo writer uses (connected on first use), the scan that follows reads it, and the
// findings (connectorType "github") leave as signed finding.new events; reset resolves them.

const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });

type TFinding = {
  id: string;
  ruleId: string;
  severity: string;
  title: string;
  resourceName: string;
  connectorType: string;
  status: string;
};
type TRepoRow = { name: string; visibility: string; outsideCollaborators: number };

describe("sandbox GitHub scenarios over HTTP", () => {
  it("a repository made public and an outside collaborator added open GitHub findings; reset resolves them", async () => {
    const { key, cookie } = await makeSandbox(gw);
    const { receiver, secret } = await subscribe(gw, cookie, ["finding.new", "finding.resolved"]);

    // No GitHub organization yet: the first GitHub scenario connects one and scans it in full first.
    const started = await startScenario(gw, key, "repository_made_public");
    expect(started).toMatchObject({ kind: "repository_made_public", status: "QUEUED" });
    const connectorId = started.connectorId;
    const { connectors } = (await call(gw, "GET", "/api/connectors", { key })).body as {
      connectors: Array<{ id: string; type: string; mode: string; displayName: string }>;
    };
    expect(connectors.find((c) => c.id === connectorId)).toMatchObject({
      type: "github",
      mode: "demo",
      displayName: "Sandbox GitHub organization",
    });
    const made = await settled(gw, key, started.id);
    expect(made.scans.map((s) => [s.connectorId, s.status])).toEqual([
      [connectorId, "COMPLETE"],
      [connectorId, "COMPLETE"],
    ]);
    // The baseline's findings are the demo organization's own (24 at its default size).
    expect(made.scans[0]?.findingsNew).toBe(24);
    expect(made.scans[1]?.findingsNew).toBe(1);
    const repository = String(made.change?.repository);
    expect(made.change).toMatchObject({ visibility: "public", previousVisibility: "private" });
    expect(repository).toMatch(/^northwind-labs\//);

    const [madePublic] = await waitForEvents(
      receiver,
      secret,
      (e) =>
        e.event === "finding.new" &&
        e.data.resource === repository &&
        /^Public repository/.test(String(e.data.title)),
    );
    const publicId = String(madePublic?.data.findingId);
    const publicFinding = (await call(gw, "GET", `/api/findings/${publicId}`, { key })).body as TFinding;
    expect(publicFinding).toMatchObject({
      ruleId: "public_link",
      connectorType: "github",
      status: "OPEN",
      resourceName: repository,
    });

    // The inventory reads the repository as public now.
    const search = encodeURIComponent(repository.split("/")[1] ?? "");
    const listed = await call(gw, "GET", `/api/inventory?type=repositories&search=${search}`, { cookie });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    const inventory = listed.body as { rows: TRepoRow[] };
    expect(inventory.rows.find((r) => r.name === repository)).toMatchObject({ visibility: "public" });

    // An outside collaborator given write, on the same organization (no second one is connected).
    const added = await startScenario(gw, key, "outside_collaborator_added");
    expect(added.connectorId).toBe(connectorId);
    const addedRun = await settled(gw, key, added.id);
    expect(addedRun.scans).toMatchObject([{ connectorId, status: "COMPLETE" }]);
    const collaborator = String(addedRun.change?.collaborator);
    const target = String(addedRun.change?.repository);
    expect(collaborator).toMatch(/^contractor-[0-9a-f]{6}$/);
    expect(addedRun.change).toMatchObject({ permission: "write", permissionId: collaborator });
    const [shared] = await waitForEvents(
      receiver,
      secret,
      (e) =>
        e.event === "finding.new" &&
        e.data.resource === target &&
        e.data.title === "Outside collaborator with write access or more",
    );
    const sharedId = String(shared?.data.findingId);
    const sharedFinding = (await call(gw, "GET", `/api/findings/${sharedId}`, { key })).body as TFinding;
    expect(sharedFinding).toMatchObject({
      ruleId: "external_share",
      connectorType: "github",
      status: "OPEN",
      severity: "HIGH",
    });
    // The sharing view names the collaborator at GitHub's own user domain, writing.
    const shares = await call(gw, "GET", `/api/sharing/items?type=external_user&limit=200`, { cookie });
    expect(shares.status, JSON.stringify(shares.body)).toBe(200);
    const share = (shares.body as { rows: Array<{ target: string; resourceName: string }> }).rows.find(
      (r) => r.resourceName === target,
    );
    expect(share?.target).toBe(`${collaborator}@users.noreply.github.com`);

    // What a scenario did is remediated like the organization's own exposure: the collaborator
    // removed (reversible: re-invited) and the repository made private (one-way, as on GitHub);
    // the sandbox's rescan agrees.
    const plan = await call(
      gw,
      "POST",
      "/api/remediations",
      { cookie },
      { findingIds: [sharedId, publicId] },
    );
    expect(plan.status, JSON.stringify(plan.body)).toBe(201);
    const planned = plan.body as { id: string; steps: Array<{ action: string; reversible: boolean }> };
    expect(planned.steps.map((s) => `${s.action} ${s.reversible}`).sort()).toEqual([
      "remove_external_user true",
      "remove_public_link false",
    ]);
    expect((await call(gw, "POST", `/api/remediations/${planned.id}/approve`, { cookie })).status).toBe(200);
    expect((await call(gw, "POST", `/api/remediations/${planned.id}/apply`, { cookie })).status).toBe(202);
    const applied = await waitFor(async () => {
      const r = (await call(gw, "GET", `/api/remediations/${planned.id}`, { cookie })).body as {
        status: string;
        steps: Array<{ status: string }>;
      };
      return r.status === "APPLIED" ? r : null;
    }, 60_000);
    expect(applied.steps.map((s) => s.status)).toEqual(["APPLIED", "APPLIED"]);
    for (const id of [publicId, sharedId]) {
      const after = (await call(gw, "GET", `/api/findings/${id}`, { key })).body as TFinding;
      expect(after.status).toBe("RESOLVED");
    }
    const rescan = await call(gw, "POST", `/api/connectors/${connectorId}/sync`, { cookie });
    expect(rescan.body).toMatchObject({ status: "COMPLETE", findingsNew: 0, findingsResolved: 0 });
    const privateAgain = await call(gw, "GET", `/api/inventory?type=repositories&search=${search}`, {
      cookie,
    });
    expect((privateAgain.body as { rows: TRepoRow[] }).rows.find((r) => r.name === repository)).toMatchObject(
      {
        visibility: "private",
      },
    );

    // A second public repository, for the reset to resolve.
    const again = await settled(gw, key, (await startScenario(gw, key, "repository_made_public")).id);
    const second = String(again.change?.repository);
    // (Read from the findings, not the events: a repository made public again reopens its finding.)
    const open = (await call(gw, "GET", "/api/findings?limit=500", { key })).body as { findings: TFinding[] };
    const secondFinding = open.findings.find((f) => f.ruleId === "public_link" && f.resourceName === second);
    expect(secondFinding).toMatchObject({ connectorType: "github", status: "OPEN" });
    const secondId = String(secondFinding?.id);

    // Reset: the organization as generated, read in full; the second public repository resolved.
    const reset = await call(gw, "POST", "/api/sandbox/reset", { key });
    expect(reset.status, JSON.stringify(reset.body)).toBe(202);
    const resetRun = await settled(gw, key, (reset.body as { id: string }).id);
    expect(resetRun.scans).toMatchObject([{ connectorId, kind: "full", status: "COMPLETE" }]);
    await waitForEvents(
      receiver,
      secret,
      (e) => e.event === "finding.resolved" && e.data.findingId === secondId,
    );
    expect(((await call(gw, "GET", `/api/findings/${secondId}`, { key })).body as TFinding).status).toBe(
      "RESOLVED",
    );
    await receiver.close();
  }, 240_000);

  it("the suites' scenarios keep to a suite's tenant when a GitHub organization is the first demo source", async () => {
    const { key, cookie } = await makeSandbox(gw);
    const github = await call(
      gw,
      "POST",
      "/api/connectors",
      { cookie },
      { type: "github", displayName: "GitHub", mode: "demo", demo: { repositories: 20 } },
    );
    expect(github.status, JSON.stringify(github.body)).toBe(201);
    const githubId = (github.body as { id: string }).id;
    const agent = await startScenario(gw, key, "agent_granted");
    expect(agent.connectorId).not.toBe(githubId);
    const run = await settled(gw, key, agent.id);
    expect(run.change).toMatchObject({ label: "Autopilot Inbox Agent" });
    const { connectors } = (await call(gw, "GET", "/api/connectors", { key })).body as {
      connectors: Array<{ id: string; type: string; displayName: string }>;
    };
    expect(connectors.find((c) => c.id === agent.connectorId)).toMatchObject({
      type: "google_workspace",
      displayName: "Sandbox tenant",
    });
    // And a GitHub kind uses the organization already there.
    const onGithub = await startScenario(gw, key, "outside_collaborator_added");
    expect(onGithub.connectorId).toBe(githubId);
    await settled(gw, key, onGithub.id);
  }, 240_000);
});
