import { describe, expect, it } from "vitest";
import { startReceiver, verifyServiceSignature, waitFor } from "@posture/webhooks/testing";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// Issue 19's "done when", from outside over HTTP on the embedded default: connect a demo source,
// scan, plan the best quick win, the four-eyes refusal of a self-approval, a second admin
// approves, apply, the findings resolved and the score risen exactly as predicted, undo (asked by
// two people), and a rescan that agrees at every step; the events delivered and signed.

type TQuickWin = { action: string; title: string; findingIds: string[]; scoreDelta: number; plan?: unknown };
type TBreakdown = { score: number; grade: string; quickWins: TQuickWin[] };
type TStep = { id: string; action: string; status: string; findingIds: string[]; reversible: boolean };
type TRemediation = {
  id: string;
  status: string;
  predicted: { score: number; grade: string; scoreDelta: number; before: { score: number } };
  steps: TStep[];
};
type TScan = {
  status: string;
  kind: string;
  findingsNew: number;
  findingsResolved: number;
  postureScore: number;
};

const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });

describe("remediation over HTTP: plan, four eyes, apply, undo, and scans that agree", () => {
  it("walks the whole loop on a demo source", async () => {
    const owner = await gw.createActor({ plan: "business" });
    const second = await gw.createUser(owner.orgId, "ADMIN");
    const secondCookie = await gw.createSession(owner.orgId, second.id);
    const as = (cookie: string) => ({ cookie });
    const call = async (method: string, path: string, cookie: string, body?: unknown, status = 200) => {
      // A client address per request: the walk polls, and a session's budget is 60 requests a minute.
      const res = await gw.request(method, path, {
        cookie,
        ip: freshIp(),
        ...(body === undefined ? {} : { body }),
      });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
      return res.body;
    };

    await call("PATCH", "/api/remediation-settings", owner.cookie, { fourEyes: true });
    const receiver = await startReceiver();
    const hook = (await call(
      "POST",
      "/api/webhooks",
      owner.cookie,
      {
        url: receiver.url,
        events: ["remediation.planned", "remediation.applied", "remediation.reverted", "finding.resolved"],
      },
      201,
    )) as { secret: string };

    const connector = (await call(
      "POST",
      "/api/connectors",
      owner.cookie,
      { type: "google_workspace", displayName: "Sandbox", mode: "demo", demo: { files: 2000 } },
      201,
    )) as { id: string; writeAccess: boolean };
    expect(connector.writeAccess).toBe(true);
    const sync = async (body?: unknown) =>
      (await call("POST", `/api/connectors/${connector.id}/sync`, owner.cookie, body)) as TScan;
    const breakdown = async () => (await call("GET", "/api/posture/breakdown", owner.cookie)) as TBreakdown;
    const findingStatus = async (id: string) =>
      ((await call("GET", `/api/findings/${id}`, owner.cookie)) as { status: string }).status;

    const first = await sync();
    expect(first.status).toBe("COMPLETE");
    const before = await breakdown();
    // The public links' quick win: every step of it can be put back (a revoked Google token cannot).
    const win = before.quickWins.find((w) => w.action === "remove_public_link" && w.plan !== undefined);
    expect(win, JSON.stringify(before.quickWins)).toBeDefined();
    if (!win) return;
    expect(win.scoreDelta).toBeGreaterThan(0);

    const simulated = (await call("POST", "/api/posture/simulate", owner.cookie, {
      findingIds: win.findingIds,
    })) as { score: number; scoreDelta: number };
    expect(simulated.score).toBe(before.score + win.scoreDelta);

    const plan = (await call("POST", "/api/remediations", owner.cookie, win.plan, 201)) as TRemediation;
    expect(plan.status).toBe("PLANNED");
    expect(plan.steps.length).toBeGreaterThan(0);
    expect(plan.predicted).toMatchObject({ score: simulated.score, before: { score: before.score } });

    const self = await gw.request("POST", `/api/remediations/${plan.id}/approve`, as(owner.cookie));
    expect(self.status).toBe(409);
    expect((self.body as { error: string }).error).toBe("self_approval");
    const approved = (await call(
      "POST",
      `/api/remediations/${plan.id}/approve`,
      secondCookie,
    )) as TRemediation;
    expect(approved.status).toBe("APPROVED");

    const applying = await gw.request("POST", `/api/remediations/${plan.id}/apply`, {
      cookie: owner.cookie,
      headers: { "idempotency-key": `walk-${plan.id}` },
    });
    expect(applying.status, JSON.stringify(applying.body)).toBe(202);
    const settle = async (want: string) =>
      waitFor(async () => {
        const r = (await call("GET", `/api/remediations/${plan.id}`, owner.cookie)) as TRemediation;
        return r.status === want ? r : null;
      }, 60_000);
    const applied = await settle("APPLIED");
    expect(applied.steps.every((s) => s.status === "APPLIED" || s.status === "ALREADY_GONE")).toBe(true);

    for (const id of win.findingIds) expect(await findingStatus(id)).toBe("RESOLVED");
    expect((await breakdown()).score).toBe(plan.predicted.score);

    // The source agrees: an incremental and a full rescan keep the fix and the score.
    const incremental = await sync();
    expect(incremental.postureScore).toBe(plan.predicted.score);
    const full = await sync({ full: true });
    expect(full).toMatchObject({ findingsNew: 0, findingsResolved: 0, postureScore: plan.predicted.score });
    for (const id of win.findingIds) expect(await findingStatus(id)).toBe("RESOLVED");

    // Four eyes binds undo too: the owner's request waits for the second admin's.
    const asked = await gw.request("POST", `/api/remediations/${plan.id}/undo`, as(owner.cookie));
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    expect((asked.body as TRemediation).status).toBe("APPLIED");
    const undoing = await gw.request("POST", `/api/remediations/${plan.id}/undo`, as(secondCookie));
    expect(undoing.status, JSON.stringify(undoing.body)).toBe(202);
    expect((undoing.body as TRemediation).status).toBe("REVERTING");
    const reverted = await settle("REVERTED");
    const restored = reverted.steps.filter((s) => s.reversible);
    expect(restored.every((s) => s.status === "REVERTED")).toBe(true);
    expect((await breakdown()).score).toBe(before.score);

    // …and the rescan after the undo sees the shares back.
    const afterUndo = await sync({ full: true });
    expect(afterUndo.postureScore).toBe(before.score);
    for (const id of win.findingIds) expect(await findingStatus(id)).toBe("OPEN");

    const events = await waitFor(async () => {
      const names = receiver.received.map((r) => (JSON.parse(r.body) as { event: string }).event);
      return ["remediation.planned", "remediation.applied", "remediation.reverted", "finding.resolved"].every(
        (e) => names.includes(e),
      )
        ? receiver.received
        : null;
    }, 30_000);
    for (const r of events) expect(await verifyServiceSignature(hook.secret, r)).toBe(true);
    await receiver.close();
    // Four scans, an apply and an undo: 28 s alone, more beside the whole suite.
  }, 180_000);
});
