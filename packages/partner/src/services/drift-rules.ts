import { createHash } from "node:crypto";
import { SEVERITY_RANK, type TSeverity } from "@posture/db";
import { domainIn } from "@posture/platform";

/**
 * A standard's rules and how one client's configuration is judged against them: pure functions,
 * no database (services/drift.ts loads and stores). Rules are compared by what they match (and,
 * for prevention, what they do), never by id: a client's rule of another name or id that holds
 * the same line satisfies the standard.
 */

export type TMatch = { categories?: string[]; ruleIds?: string[]; minSeverity?: TSeverity };
export type TStandardPolicy = { id: string; name: string; match: TMatch };
export type TStandardPrevention = {
  id: string;
  name: string;
  match: TMatch;
  action: string;
  dryRun: boolean;
};
export type TStandardRules = {
  policies: TStandardPolicy[];
  preventionRules: TStandardPrevention[];
  trustedDomains: string[];
  minScore: number | null;
};
export type TClientRule = {
  id: string;
  name: string;
  match: TMatch;
  enabled: boolean;
  action?: string;
  dryRun?: boolean;
};
export type TClientState = {
  policies: TClientRule[];
  prevention: TClientRule[];
  trustedDomains: string[];
  /** null until the first completed scan: a score not yet known is not judged. */
  score: number | null;
};
export type TDriftItem = { rule: string; severity: TSeverity; detail: Record<string, unknown> };

const sortedSet = (xs: readonly string[] | undefined) => [...new Set(xs ?? [])].sort();

/** The match in one spelling: sets sorted and without repeats, empty lists dropped. */
export function canonicalMatch(m: TMatch): TMatch {
  const categories = sortedSet(m.categories);
  const ruleIds = sortedSet(m.ruleIds);
  return {
    ...(categories.length ? { categories } : {}),
    ...(ruleIds.length ? { ruleIds } : {}),
    ...(m.minSeverity ? { minSeverity: m.minSeverity } : {}),
  };
}

const hash = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex").slice(0, 12);

/** A policy's id within a standard: derived from what it matches, so it is stable across edits of its name. */
export const policyRuleId = (match: TMatch) => hash(["policy", canonicalMatch(match)]);
export const preventionRuleId = (r: { match: TMatch; action: string; dryRun: boolean }) =>
  hash(["prevention", canonicalMatch(r.match), r.action, r.dryRun]);

const rank = (s: TSeverity | undefined) => SEVERITY_RANK[s ?? "LOW"];

/** A list dimension of a match: the client's (`have`) holds at least what the standard's (`want`) asks. */
function widens(have: string[] | undefined, want: string[] | undefined): boolean {
  if (!have || have.length === 0) return true; // no restriction: matches every value
  if (!want || want.length === 0) return false; // the standard's rule matches more than the client's
  const set = new Set(have);
  return want.every((w) => set.has(w));
}

/** The client's match sees every finding the standard's match sees. */
export function covers(have: TMatch, want: TMatch): boolean {
  return (
    widens(have.categories, want.categories) &&
    widens(have.ruleIds, want.ruleIds) &&
    rank(have.minSeverity) <= rank(want.minSeverity)
  );
}

/** A list dimension shared in part: either side unrestricted, or a value in common. */
function meets(a: string[] | undefined, b: string[] | undefined): boolean {
  if (!a || a.length === 0 || !b || b.length === 0) return true;
  const set = new Set(a);
  return b.some((x) => set.has(x));
}

/** The client's rule sees some of the findings the standard's sees: its version of the rule, narrower. */
function overlaps(have: TMatch, want: TMatch): boolean {
  return meets(have.categories, want.categories) && meets(have.ruleIds, want.ruleIds);
}

const ruleRef = (r: TClientRule) => ({ clientRuleId: r.id, clientRuleName: r.name });

/**
 * One rule against the client's rules of its kind: held (null), or why not — `disabled` (a rule
 * that would hold it is switched off), `weaker` (an enabled rule that sees part of what it sees, or acts less),
 * `missing`.
 */
function judge(
  rules: TClientRule[],
  want: TMatch,
  strongEnough: (r: TClientRule) => boolean,
): Record<string, unknown> | null {
  if (rules.some((r) => r.enabled && strongEnough(r))) return null;
  const off = rules.find((r) => !r.enabled && strongEnough(r));
  if (off) return { status: "disabled", ...ruleRef(off) };
  const weaker = rules.find((r) => r.enabled && overlaps(r.match, want));
  if (weaker) {
    return {
      status: "weaker",
      ...ruleRef(weaker),
      clientMatch: canonicalMatch(weaker.match),
      ...(weaker.action !== undefined
        ? { clientAction: weaker.action, clientDryRun: weaker.dryRun ?? false }
        : {}),
    };
  }
  return { status: "missing" };
}

// A rule guarding CRITICAL findings that the client does not hold is critical drift, and so on;
// a rule without a severity floor is HIGH. Trusted domains beyond the standard and a score below
// its minimum are HIGH.
const ruleSeverity = (m: TMatch): TSeverity => m.minSeverity ?? "HIGH";

/** Everything in which the client departs from the standard; empty when it holds it. */
export function driftOf(std: TStandardRules, client: TClientState): TDriftItem[] {
  const out: TDriftItem[] = [];
  for (const p of std.policies) {
    const why = judge(client.policies, p.match, (r) => covers(r.match, p.match));
    if (why)
      out.push({ rule: `policy:${p.id}`, severity: ruleSeverity(p.match), detail: { name: p.name, ...why } });
  }
  for (const p of std.preventionRules) {
    // An alerting rule is held by any rule covering it (acting rules alert too); an acting rule
    // needs the same action, and not in dry run unless the standard's is.
    const acts = (r: TClientRule) =>
      p.action === "ALERT_ONLY" || (r.action === p.action && (p.dryRun || !(r.dryRun ?? false)));
    const why = judge(client.prevention, p.match, (r) => covers(r.match, p.match) && acts(r));
    if (why)
      out.push({
        rule: `prevention:${p.id}`,
        severity: ruleSeverity(p.match),
        detail: { name: p.name, ...why },
      });
  }
  // The standard's list is an allow-list (an empty one checks nothing): a domain the client
  // trusts that is neither listed nor below a listed one is drift; trusting fewer is stricter.
  if (std.trustedDomains.length > 0) {
    const allowed = new Set(std.trustedDomains.map((d) => d.toLowerCase()));
    for (const d of sortedSet(client.trustedDomains.map((x) => x.toLowerCase()))) {
      if (!domainIn(allowed, d))
        out.push({
          rule: `trusted_domain:${d}`,
          severity: "HIGH",
          detail: { status: "beyond_standard", domain: d },
        });
    }
  }
  if (std.minScore !== null && client.score !== null && client.score < std.minScore) {
    out.push({
      rule: "min_score",
      severity: "HIGH",
      detail: { status: "below_minimum", score: client.score, minScore: std.minScore },
    });
  }
  return out;
}

/** What kind of rule a drift row's `rule` names. */
export function ruleKind(rule: string): "policy" | "prevention" | "trusted_domain" | "min_score" {
  if (rule.startsWith("policy:")) return "policy";
  if (rule.startsWith("prevention:")) return "prevention";
  if (rule.startsWith("trusted_domain:")) return "trusted_domain";
  return "min_score";
}
