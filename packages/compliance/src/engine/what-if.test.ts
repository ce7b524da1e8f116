import { describe, expect, it } from "vitest";
import { applyWhatIf, controlChanges } from "./what-if";
import { signals } from "./test-signals";

describe("what-if evaluation", () => {
  it("resolving the public links passes the controls they failed, and only those", () => {
    const before = signals({
      openByRule: { public_link: { CRITICAL: 2 } },
      topFindings: [
        {
          id: "f1",
          ruleId: "public_link",
          severity: "CRITICAL",
          title: "t",
          resourceName: "a",
          source: "google_workspace",
        },
        {
          id: "f2",
          ruleId: "public_link",
          severity: "CRITICAL",
          title: "t",
          resourceName: "b",
          source: "google_workspace",
        },
      ],
      files: { ...signals().files, public: 2, external: 2 },
    });
    const after = applyWhatIf(before, {
      resolved: [
        { id: "f1", ruleId: "public_link", severity: "CRITICAL" },
        { id: "f2", ruleId: "public_link", severity: "CRITICAL" },
      ],
      filesNoLongerPublic: 2,
      filesNoLongerExternal: 2,
    });
    expect(after.openByRule.public_link).toEqual({ CRITICAL: 0 });
    expect(after.topFindings).toEqual([]);
    expect(after.files).toMatchObject({ public: 0, external: 0 });
    expect(before.openByRule.public_link).toEqual({ CRITICAL: 2 });

    const changes = controlChanges(before, after);
    expect(changes.length).toBeGreaterThan(0);
    for (const c of changes) {
      expect(c.before).toBe("GAP");
      expect(c.after).not.toBe("GAP");
    }
    expect(changes).toContainEqual(
      expect.objectContaining({ framework: "hipaa", controlId: "164.308(a)(1)(ii)(B)", after: "SATISFIED" }),
    );
    expect(controlChanges(before, before)).toEqual([]);
  });

  it("re-rates, revokes grants and moves the score", () => {
    const before = signals({ openByRule: { external_share: { HIGH: 1 } } });
    const after = applyWhatIf(before, {
      rerated: [{ id: "x", ruleId: "external_share", from: "HIGH", to: "MEDIUM" }],
      grantsRevoked: { total: 2, unverified: 1, aiAgents: 1 },
      trustedDomainsAdded: 1,
      posture: { score: 95, grade: "A" },
    });
    expect(after.openByRule.external_share).toEqual({ HIGH: 0, MEDIUM: 1 });
    expect(after.apps).toEqual({ total: 2, unverified: 0, aiAgents: 0 });
    expect(after.trustedDomains).toBe(3);
    expect(after.posture).toEqual({ score: 95, grade: "A" });
  });
});
