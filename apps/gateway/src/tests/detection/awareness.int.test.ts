import { describe, expect, it } from "vitest";
import { anomalies, findings } from "@posture/db";
import { type TTestGateway, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";
import { demoConnector, seedWorkspace } from "./seed";

type TEntry = { userId: string; email: string; score: number; rank: number; badges: string[] };
type TMe = {
  score: number;
  rank: number;
  factors: Array<{ key: string; delta: number }>;
  nudges: string[];
  badges: string[];
};

const gw = useTestGateway();
const call: TTestGateway["request"] = (method, path, o = {}) =>
  gw.request(method, path, { ip: freshIp(), ...o });

describe("security awareness", { timeout: 120_000 }, () => {
  it("scores each person from their own behaviour, ranks them, and nudges the caller", async () => {
    const admin = await gw.createActor({ plan: "business", role: "ADMIN" });
    const org = admin.orgId;
    const member = await gw.createActor({ plan: "business", role: "member", orgId: org });
    const c = await demoConnector(gw.db.db, org);
    const me = member.user.email.toLowerCase();
    await seedWorkspace(gw.db.db, {
      orgId: org,
      connectorId: c.id,
      users: [
        { email: me, mfa: false },
        { email: "careful@acme.test", mfa: true },
        { email: "twin@acme.test", mfa: true },
        { email: "sleepy@acme.test", mfa: true, dormant: true },
      ],
    });
    const finding = (i: number, rule: string, name: string, owner: string, extra: object = {}) => ({
      orgId: org,
      connectorId: c.id,
      connectorType: "google_workspace",
      fingerprint: `aw-${i}`,
      ruleId: rule,
      category: "public_exposure",
      severity: "HIGH" as const,
      severityRank: 3,
      title: rule,
      resourceId: `r${i}`,
      resourceName: name,
      resourceType: "file",
      details: { ownerEmail: owner, ...extra },
      detectedAt: new Date(Date.now() - 3 * 86_400_000),
    });
    await gw.db.db.insert(findings).values([
      finding(1, "public_link", "Payroll 2024-08", me),
      finding(2, "external_share", "Budget", me, { externalDomains: ["rival.example"] }),
      {
        ...finding(3, "public_link", "Old deck", "careful@acme.test"),
        status: "RESOLVED" as const,
        resolvedAt: new Date(),
      },
    ]);
    await gw.db.db.insert(anomalies).values({
      orgId: org,
      principal: me,
      type: "sharing_spike",
      window: "2026-W47",
      severity: "HIGH",
      severityRank: 3,
      confidence: 0.9,
      at: new Date(),
      observed: 40,
      expected: 1,
      periodsLearned: 12,
    });

    const mine = await call("GET", "/api/awareness/me", { key: member.key });
    expect(mine.status).toBe(200);
    const m = mine.body as TMe;
    expect(m.factors.reduce((n, f) => n + f.delta, 0)).toBe(m.score);
    // 100 − 25 MFA − 10 public link − 4 external share − 15 anomaly
    expect(m.score).toBe(46);
    expect(m.nudges).toContain("Remove the public link on 'Payroll 2024-08'");
    expect(m.nudges).toContain("Turn on multi-factor authentication for your account");

    const board = await call("GET", "/api/awareness/scores", { key: admin.key });
    expect(board.status).toBe(200);
    const scores = (board.body as { scores: TEntry[] }).scores;
    const by = new Map(scores.map((s) => [s.email, s]));
    expect(by.get("careful@acme.test")).toMatchObject({ score: 100, rank: 1 });
    expect(by.get("twin@acme.test")).toMatchObject({ score: 100, rank: 1 });
    expect(by.get("careful@acme.test")?.badges).toContain("gold");
    expect(by.get("sleepy@acme.test")?.score).toBe(90);
    expect(by.get(me)).toMatchObject({ score: 46, rank: m.rank });
    const ranks = scores.map((s) => s.rank);
    expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
    // Ties share a rank; the next rank skips.
    expect(by.get("sleepy@acme.test")?.rank).toBe(3);

    // Roles and plans
    const denied = await call("GET", "/api/awareness/scores", { key: member.key });
    expect(denied.status).toBe(403);
    expect(errorCode(denied)).toBe("forbidden");
    const team = await gw.createActor({ plan: "team", role: "member" });
    expect((await call("GET", "/api/awareness/me", { cookie: team.cookie })).status).toBe(200);
    expect((await call("GET", "/api/awareness/scores", { cookie: team.cookie })).status).toBe(402);
    // Another organization sees none of these people.
    const other = await gw.createActor({ plan: "business" });
    const theirs = (await call("GET", "/api/awareness/scores", { key: other.key })).body as {
      scores: TEntry[];
    };
    expect(theirs.scores).toEqual([]);
  });
});
