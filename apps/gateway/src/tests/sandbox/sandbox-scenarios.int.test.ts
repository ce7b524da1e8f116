import { describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { errorCode } from "../helpers";
import { call, makeSandbox, settled, startScenario, subscribe, waitForEvents } from "./harness";

// Issue 16's "done when": sandbox scenarios deliver their events, signed, to a local receiver. Each
// scenario changes the synthetic tenant through the demo overlay and runs the scan a change feed
// would; the events are the pipeline's own, received by a webhook subscription and verified with
// both signatures (X-Service-Signature and Standard Webhooks).

const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });

const EVENTS = ["finding.new", "alert.grouped", "anomaly.detected", "finding.resolved", "scan.completed"];

describe("sandbox scenarios over HTTP", () => {
  it("each scenario of a sandbox's tenant delivers its events, signed; reset resolves them", async () => {
    const { sandbox, key, cookie } = await makeSandbox(gw);
    expect(sandbox).toMatchObject({ isSandbox: true, isPartner: false });

    // Its sources are demo sources.
    const real = await call(
      gw,
      "POST",
      "/api/connectors",
      { cookie },
      {
        type: "google_workspace",
        displayName: "Real",
        mode: "real",
        credentials: { serviceAccountKey: "{}", adminEmail: "a@b.example" },
      },
    );
    expect(real.status, JSON.stringify(real.body)).toBe(409);
    expect(errorCode(real)).toBe("sandbox_demo_only");

    // A demo source scanned once before anyone listens: the scenarios' scans read only their change.
    const connector = await call(
      gw,
      "POST",
      "/api/connectors",
      { cookie },
      {
        type: "google_workspace",
        displayName: "Sandbox",
        mode: "demo",
        demo: { files: 1000 },
      },
    );
    expect(connector.status).toBe(201);
    const connectorId = (connector.body as { id: string }).id;
    const baseline = await call(gw, "POST", `/api/connectors/${connectorId}/sync`, { cookie });
    expect(baseline.status, JSON.stringify(baseline.body)).toBe(200);
    const { receiver, secret } = await subscribe(gw, cookie, EVENTS);

    // A public link.
    const link = await startScenario(gw, key, "public_link_created");
    expect(link).toMatchObject({ kind: "public_link_created", status: "QUEUED", connectorId });
    const linkRun = await settled(gw, key, link.id);
    expect(linkRun.scans).toMatchObject([{ connectorId, kind: "incremental", status: "COMPLETE" }]);
    const fileName = String(linkRun.change?.fileName);
    const [publicFinding] = await waitForEvents(
      receiver,
      secret,
      (e) =>
        e.event === "finding.new" &&
        e.data.resource === fileName &&
        /anyone who has the link/.test(String(e.data.title)),
    );
    expect(publicFinding?.data.severity).toMatch(/^(HIGH|CRITICAL)$/);

    // An AI agent granted broad scopes.
    const agentRun = await settled(gw, key, (await startScenario(gw, key, "agent_granted")).id);
    const [agent] = await waitForEvents(
      receiver,
      secret,
      (e) => e.event === "finding.new" && e.data.resource === agentRun.change?.label,
    );
    expect(agent?.data).toMatchObject({
      severity: "CRITICAL",
      title: "AI agent from an unverified publisher has broad access",
    });

    // A sharing spike: a finding per file shared outside, grouped, then behaviour analytics.
    const spikeRun = await settled(gw, key, (await startScenario(gw, key, "sharing_spike")).id);
    const actor = String(spikeRun.change?.actor);
    const files = Number(spikeRun.change?.files);
    expect(files).toBeGreaterThanOrEqual(10);
    expect(spikeRun.scans[0]?.findingsNew).toBeGreaterThanOrEqual(files);
    await waitForEvents(receiver, secret, (e) => e.event === "alert.grouped");
    // The actor's sharing is a spike; the same burst may also read as bulk access, in either
    // order (which the behaviour refresh finds first depends on the load), so wait for the spike.
    const [anomaly] = await waitForEvents(
      receiver,
      secret,
      (e) => e.event === "anomaly.detected" && e.data.principal === actor && e.data.type === "sharing_spike",
      1,
      120_000,
    );
    expect(anomaly?.data).toMatchObject({ principal: actor, type: "sharing_spike" });

    // Reset: the tenant as generated, read in full; what the scenarios opened is resolved.
    const reset = await call(gw, "POST", "/api/sandbox/reset", { key });
    expect(reset.status, JSON.stringify(reset.body)).toBe(202);
    const resetRun = await settled(gw, key, (reset.body as { id: string }).id);
    expect(resetRun).toMatchObject({
      kind: "reset",
      scans: [{ connectorId, kind: "full", status: "COMPLETE" }],
    });
    const publicFindingId = String(publicFinding?.data.findingId);
    await waitForEvents(
      receiver,
      secret,
      (e) => e.event === "finding.resolved" && e.data.findingId === publicFindingId,
    );
    const after = await call(gw, "GET", `/api/findings/${publicFindingId}`, { key });
    expect((after.body as { status: string }).status).toBe("RESOLVED");
    await receiver.close();
  }, 300_000);

  it("client_unhealthy: a sandbox partner's client loses its source, and the partner hears of it", async () => {
    const { sandbox, key, cookie } = await makeSandbox(gw, true);
    expect(sandbox.isPartner).toBe(true);
    const { receiver, secret } = await subscribe(gw, cookie, ["client.unhealthy"]);

    const run = await startScenario(gw, key, "client_unhealthy");
    expect(run.orgId).not.toBe(sandbox.id);
    const done = await settled(gw, key, run.id);
    // The client's first scan (its source was connected on first use), then the refused one.
    expect(done.scans.map((s) => s.status)).toEqual(["COMPLETE", "FAILED"]);
    const [event] = await waitForEvents(receiver, secret, (e) => e.event === "client.unhealthy");
    expect(event?.data).toMatchObject({
      orgId: run.orgId,
      reason: "source_unhealthy",
      sources: [{ connectorId: run.connectorId, healthStatus: "unhealthy" }],
    });
    const portfolio = await call(gw, "GET", "/api/partner/reports/portfolio", { key });
    expect(JSON.stringify(portfolio.body)).toContain(run.orgId);

    // Reset gives the client its access back: the rescan succeeds and the source is healthy.
    const reset = await call(gw, "POST", "/api/sandbox/reset", { key });
    const resetRun = await settled(gw, key, (reset.body as { id: string }).id);
    expect(resetRun.scans).toMatchObject([{ connectorId: run.connectorId, status: "COMPLETE" }]);
    await receiver.close();
  }, 120_000);

  it("refuses scenarios and resets outside a sandbox, and client_unhealthy outside a partner's reach", async () => {
    const real = await gw.createActor({ plan: "business" });
    for (const [path, body] of [
      ["/api/sandbox/scenarios", { kind: "public_link_created" }],
      ["/api/sandbox/reset", undefined],
    ] as const) {
      const res = await call(gw, "POST", path, { key: real.key }, body);
      expect(res.status, path).toBe(403);
      expect(errorCode(res)).toBe("sandbox_required");
    }
    const { key } = await makeSandbox(gw);
    const lone = await call(gw, "POST", "/api/sandbox/scenarios", { key }, { kind: "client_unhealthy" });
    expect(lone.status).toBe(409);
    expect(errorCode(lone)).toBe("conflict");
    const unknown = await call(gw, "POST", "/api/sandbox/scenarios", { key }, { kind: "meteor_strike" });
    expect(unknown.status).toBe(400);
    expect(errorCode(unknown)).toBe("invalid_input");
    const missing = await call(gw, "GET", "/api/sandbox/scenarios/sbr_nope", { key });
    expect(missing.status).toBe(404);
  });
});
