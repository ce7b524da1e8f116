import { describe, expect, it } from "vitest";
import {
  canonicalMatch,
  covers,
  driftOf,
  policyRuleId,
  preventionRuleId,
  type TClientRule,
  type TClientState,
  type TStandardRules,
} from "./drift-rules";

const none: TStandardRules = { policies: [], preventionRules: [], trustedDomains: [], minScore: null };
const client = (o: Partial<TClientState> = {}): TClientState => ({
  policies: [],
  prevention: [],
  trustedDomains: [],
  score: 80,
  ...o,
});
const rule = (o: Partial<TClientRule>): TClientRule => ({
  id: "pol_1",
  name: "Client rule",
  match: {},
  enabled: true,
  ...o,
});

describe("rule identity", () => {
  it("is the same for the same match however it is spelled, and differs for another", () => {
    expect(policyRuleId({ categories: ["identity", "public_exposure", "identity"] })).toBe(
      policyRuleId({ categories: ["public_exposure", "identity"], ruleIds: [] }),
    );
    expect(policyRuleId({ categories: ["identity"] })).not.toBe(
      policyRuleId({ categories: ["identity"], minSeverity: "HIGH" }),
    );
    const prevention = { match: { categories: ["public_exposure"] }, action: "ALERT_ONLY", dryRun: false };
    expect(preventionRuleId(prevention)).not.toBe(
      preventionRuleId({ ...prevention, action: "REVOKE_PUBLIC_LINK" }),
    );
    expect(canonicalMatch({ categories: [], ruleIds: ["b", "a"] })).toEqual({ ruleIds: ["a", "b"] });
  });
});

describe("covers", () => {
  it("holds when the client's rule matches every finding the standard's does", () => {
    const want = { categories: ["public_exposure"], minSeverity: "HIGH" as const };
    expect(covers({ categories: ["public_exposure", "identity"] }, want)).toBe(true);
    expect(covers({ minSeverity: "MEDIUM" }, want)).toBe(true);
    expect(covers({ categories: ["public_exposure"], minSeverity: "CRITICAL" }, want)).toBe(false);
    expect(covers({ categories: ["identity"] }, want)).toBe(false);
    // The standard matches every category; a client rule for one category does not cover it.
    expect(covers({ categories: ["identity"] }, { minSeverity: "HIGH" })).toBe(false);
  });
});

describe("driftOf", () => {
  const std: TStandardRules = {
    ...none,
    policies: [
      { id: "p1", name: "Public", match: { categories: ["public_exposure"], minSeverity: "CRITICAL" } },
    ],
  };

  it("a held policy is no drift, whatever the client's rule is called", () => {
    const held = rule({ name: "Anything", match: { categories: ["public_exposure"], minSeverity: "HIGH" } });
    expect(driftOf(std, client({ policies: [held] }))).toEqual([]);
  });

  it("tells missing, disabled and weaker apart; severity is the rule's floor", () => {
    expect(driftOf(std, client())).toEqual([
      { rule: "policy:p1", severity: "CRITICAL", detail: { name: "Public", status: "missing" } },
    ]);
    const off = rule({ match: { categories: ["public_exposure"] }, enabled: false });
    expect(driftOf(std, client({ policies: [off] }))[0]?.detail).toMatchObject({
      status: "disabled",
      clientRuleId: "pol_1",
    });
    const narrower = rule({ match: { categories: ["public_exposure"], ruleIds: ["public_link"] } });
    expect(driftOf(std, client({ policies: [narrower] }))[0]?.detail).toMatchObject({ status: "weaker" });
  });

  it("an acting prevention rule needs the same action, not in dry run", () => {
    const s: TStandardRules = {
      ...none,
      preventionRules: [
        {
          id: "r1",
          name: "Revoke",
          match: { categories: ["public_exposure"] },
          action: "REVOKE_PUBLIC_LINK",
          dryRun: false,
        },
      ],
    };
    const base = { match: { categories: ["public_exposure"] } };
    expect(
      driftOf(s, client({ prevention: [rule({ ...base, action: "REVOKE_PUBLIC_LINK", dryRun: false })] })),
    ).toEqual([]);
    expect(
      driftOf(s, client({ prevention: [rule({ ...base, action: "REVOKE_PUBLIC_LINK", dryRun: true })] }))[0]
        ?.detail,
    ).toMatchObject({ status: "weaker", clientDryRun: true });
    expect(driftOf(s, client({ prevention: [rule({ ...base, action: "ALERT_ONLY" })] }))[0]?.rule).toBe(
      "prevention:r1",
    );
    // An alerting standard rule is held by an acting one.
    const alerting: TStandardRules = {
      ...none,
      preventionRules: [{ id: "r2", name: "Alert", match: base.match, action: "ALERT_ONLY", dryRun: false }],
    };
    expect(
      driftOf(alerting, client({ prevention: [rule({ ...base, action: "REVOKE_PUBLIC_LINK" })] })),
    ).toEqual([]);
  });

  it("trusted domains are an allow-list (subdomains within); an empty list checks nothing", () => {
    const s = { ...none, trustedDomains: ["acme.com"] };
    const c = client({ trustedDomains: ["eu.acme.com", "Outsider.io", "acme.com"] });
    expect(driftOf(s, c).map((d) => d.rule)).toEqual(["trusted_domain:outsider.io"]);
    expect(driftOf(none, c)).toEqual([]);
  });

  it("a score below the minimum drifts; an unscanned client is not judged", () => {
    const s = { ...none, minScore: 70 };
    expect(driftOf(s, client({ score: 69 }))).toEqual([
      { rule: "min_score", severity: "HIGH", detail: { status: "below_minimum", score: 69, minScore: 70 } },
    ]);
    expect(driftOf(s, client({ score: 70 }))).toEqual([]);
    expect(driftOf(s, client({ score: null }))).toEqual([]);
  });
});
