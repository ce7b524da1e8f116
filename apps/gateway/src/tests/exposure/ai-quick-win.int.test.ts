import { describe, expect, it } from "vitest";
import { waitFor } from "@posture/webhooks/testing";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// Issue 30, "done when", from outside over HTTP on a demo connector: the scan yields
// internal-exposure findings of each rule id with reach; /api/exposure/ai shows both assistants
// and registry agents; planning, approving and applying its first quick win resolves those
// findings and raises the readiness score by the predicted amount; undo brings them back; an
// incremental rescan agrees.

type TFinding = { id: string; ruleId: string; status: string };
type TExposure = {
  score: number;
  assistants: Array<{ id: string; kind: string; reachableFiles: number }>;
  quickWins: Array<{ action: string; findingIds: string[]; readinessDelta: number; plan: unknown }>;
};

const gw = useTestGateway();

describe("the AI readiness quick win, end to end on demo sources", () => {
  it("resolves its findings, raises the score by its delta, comes back on undo, and a rescan agrees", async () => {
    const owner = await gw.createActor({ plan: "business", role: "OWNER" });
    const ok = async <T>(method: string, path: string, body?: unknown, status = 200): Promise<T> => {
      const res = await gw.request(method, path, { cookie: owner.cookie, ip: freshIp(), body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
      return res.body as T;
    };
    const ids: string[] = [];
    for (const type of ["google_workspace", "microsoft_365"]) {
      const c = await ok<{ id: string }>(
        "POST",
        "/api/connectors",
        { type, displayName: type, mode: "demo", demo: { files: 400 } },
        201,
      );
      ids.push(c.id);
      await ok("POST", `/api/connectors/${c.id}/sync`);
    }
    const openFindings = async () =>
      (
        await ok<{ findings: TFinding[] }>("GET", "/api/findings?category=internal_exposure&limit=500")
      ).findings.sort((a, b) => a.id.localeCompare(b.id));

    const before = await openFindings();
    expect(new Set(before.map((f) => f.ruleId))).toEqual(
      new Set(["org_wide_link", "org_wide_grant", "broad_group_grant"]),
    );
    // The files they are about carry their reach: everyone in the tenant, for the org-wide ones.
    const orgWide = await ok<{ rows: Array<{ reach: { people: number; orgWide: boolean } }> }>(
      "GET",
      "/api/inventory?type=files&orgWide=true",
    );
    expect(orgWide.rows.length).toBeGreaterThan(0);
    for (const row of orgWide.rows) expect(row.reach.orgWide).toBe(true);
    expect(Math.min(...orgWide.rows.map((r) => r.reach.people))).toBeGreaterThan(1);

    const exposure = await ok<TExposure>("GET", "/api/exposure/ai");
    expect(exposure.assistants.map((a) => a.kind)).toEqual(
      expect.arrayContaining(["copilot", "gemini", "agent"]),
    );
    const [win] = exposure.quickWins;
    if (!win) throw new Error("no quick win");
    expect(win.readinessDelta).toBeGreaterThan(0);

    const plan = await ok<{ id: string; steps: Array<{ findingIds: string[] }> }>(
      "POST",
      "/api/remediations",
      win.plan,
      201,
    );
    await ok("POST", `/api/remediations/${plan.id}/approve`);
    await ok("POST", `/api/remediations/${plan.id}/apply`, undefined, 202);
    const applied = await waitFor(async () => {
      const s = (await ok<{ status: string }>("GET", `/api/remediations/${plan.id}`)).status;
      return s === "APPLYING" ? null : s;
    }, 120_000);
    expect(applied).toBe("APPLIED");

    const fixed = new Set(win.findingIds);
    const after = await openFindings();
    expect(after.filter((f) => fixed.has(f.id))).toEqual([]);
    expect(after.length).toBe(before.length - fixed.size);
    const raised = await ok<TExposure>("GET", "/api/exposure/ai");
    expect(raised.score).toBe(exposure.score + win.readinessDelta);

    // An incremental rescan of the fixed sources finds nothing new and brings nothing back.
    for (const id of ids) {
      const rescan = await ok<{ kind: string; findingsNew: number }>("POST", `/api/connectors/${id}/sync`);
      expect(rescan).toMatchObject({ kind: "incremental", findingsNew: 0 });
    }
    expect((await openFindings()).map((f) => f.id)).toEqual(after.map((f) => f.id));

    // Undo puts back what the sources can put back; the findings of those come back open.
    const undo = await gw.request("POST", `/api/remediations/${plan.id}/undo`, {
      cookie: owner.cookie,
      ip: freshIp(),
    });
    if (undo.status === 202) {
      await waitFor(async () => {
        const s = (await ok<{ status: string }>("GET", `/api/remediations/${plan.id}`)).status;
        return s === "REVERTING" ? null : s;
      }, 120_000);
      for (const id of ids) await ok("POST", `/api/connectors/${id}/sync`);
      const back = await openFindings();
      expect(back.filter((f) => fixed.has(f.id)).length).toBeGreaterThan(0);
      expect((await ok<TExposure>("GET", "/api/exposure/ai")).score).toBeLessThan(raised.score);
    } else {
      // Nothing it changed can be put back (Microsoft links): said so, not pretended.
      expect(undo.body).toMatchObject({ error: "nothing_to_undo" });
    }
  }, 300_000);
});
