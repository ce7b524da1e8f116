import { describe, expect, it } from "vitest";
import { rank, scoreOf, type TSignals } from "./model";

const quiet: TSignals = {
  email: "a@x.test",
  mfaEnabled: true,
  dormant: false,
  openPublicLinks: [],
  openExternalShares: [],
  fixDays: [],
  anomalies: [],
};
const sum = (f: Array<{ delta: number }>) => f.reduce((n, x) => n + x.delta, 0);

describe("awareness score", () => {
  it("gives a careful person 100 with badges and no nudges", () => {
    const s = scoreOf(quiet);
    expect(s.score).toBe(100);
    expect(sum(s.factors)).toBe(100);
    expect(s.badges).toEqual(["mfa_enabled", "no_public_links", "clean_sharing", "steady_behaviour"]);
    expect(s.nudges).toEqual([]);
  });

  it("deducts for each risky habit, names the next action, and its factors add up to the score", () => {
    const s = scoreOf({
      ...quiet,
      mfaEnabled: false,
      openPublicLinks: [
        { name: "Payroll 2024-08", ageDays: 40 },
        { name: "Roadmap", ageDays: 2 },
      ],
      openExternalShares: [{ name: "Budget", domains: ["rival.example"], ageDays: 3 }],
      anomalies: [{ type: "sharing_spike", severity: "HIGH", window: "2026-W47", observed: 40 }],
    });
    // 100 − 25 (MFA) − 20 (two links) − 4 (one share) − 5 (one stale) − 15 (one serious anomaly)
    expect(s.score).toBe(31);
    expect(sum(s.factors)).toBe(s.score);
    expect(s.nudges[0]).toBe("Turn on multi-factor authentication for your account");
    expect(s.nudges).toContain("Remove the public link on 'Payroll 2024-08'");
    expect(s.nudges).toContain("Review the external share of 'Budget' with rival.example");
    expect(s.nudges.some((n) => n.includes("40 external shares"))).toBe(true);
  });

  it("never leaves 0–100, and says so with a factor", () => {
    const worst = scoreOf({
      ...quiet,
      mfaEnabled: false,
      dormant: true,
      openPublicLinks: Array.from({ length: 9 }, (_, i) => ({ name: `f${i}`, ageDays: 90 })),
      openExternalShares: Array.from({ length: 9 }, (_, i) => ({ name: `s${i}`, domains: [], ageDays: 90 })),
      anomalies: Array.from({ length: 3 }, () => ({
        type: "bulk_access",
        severity: "CRITICAL",
        window: "2026-W47",
        observed: 900,
      })),
    });
    expect(worst.score).toBe(0);
    expect(sum(worst.factors)).toBe(0);
    expect(worst.factors.at(-1)?.key).toBe("floor");
    const best = scoreOf({ ...quiet, fixDays: [1, 1, 1, 1, 1, 1] });
    expect(best.score).toBe(100);
    expect(sum(best.factors)).toBe(100);
    expect(best.badges).toContain("quick_fixer");
  });

  it("ranks 1 = highest, ties share a rank and the next rank skips", () => {
    const r = rank([
      { ...scoreOf(quiet), email: "b@x.test", score: 90 },
      { ...scoreOf(quiet), email: "a@x.test", score: 90 },
      { ...scoreOf(quiet), email: "c@x.test", score: 100 },
      { ...scoreOf(quiet), email: "d@x.test", score: 50 },
    ]);
    expect(r.map((p) => [p.email, p.rank])).toEqual([
      ["c@x.test", 1],
      ["a@x.test", 2],
      ["b@x.test", 2],
      ["d@x.test", 4],
    ]);
    expect(r[0]?.badges).toContain("gold");
    expect(r[1]?.badges).toContain("silver");
    expect(r[3]?.badges).not.toContain("bronze");
  });
});
