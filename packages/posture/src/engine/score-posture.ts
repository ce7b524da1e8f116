import { QUICK_WIN_GROUP_CAP, QUICK_WIN_GROUPS, type TQuickWinGroup } from "./rule-ids";
import { TENANT_CONFIGURATION } from "./tenant-findings";
import { categoryCap } from "@posture/db";
import { FINDING_CATEGORIES, SEVERITIES, SEVERITY_RANK, type TSeverity } from "./types";

export { CATEGORY_CAPS } from "./types";

// The formula is documented in README.md beside this file; keep the two in step.

/** What a quick win asks the admin to do. */
export type TQuickWinAction =
  | "remove_public_link"
  | "remove_external_access"
  | "revoke_oauth_grant"
  | "remove_org_wide_link"
  | "remove_everyone_grant"
  | "remove_group_grant"
  | "change_setting";

export const SEVERITY_WEIGHTS: Record<TSeverity, number> = { CRITICAL: 10, HIGH: 5, MEDIUM: 2, LOW: 1 };

export const GRADE_THRESHOLDS: ReadonlyArray<readonly [number, TGrade]> = [
  [90, "A"],
  [80, "B"],
  [70, "C"],
  [60, "D"],
  [0, "F"],
];

const TOP_LIMIT = 10;

export type TGrade = "A" | "B" | "C" | "D" | "F";

export type TScoredFinding = {
  id: string;
  category: string;
  severity: TSeverity;
  ruleId: string;
  title?: string;
  /** Tenant-configuration findings: the fix, which names the setting to change. */
  fix?: string;
  /** External shares: whether every outside domain reached is trusted (details.trustedOnly). */
  trustedOnly?: boolean;
  /** Changes at the source that fix it (permissions or grants to remove); 1 when unknown. */
  steps?: number;
};

/**
 * One action over a group of findings (or one tenant setting): the group's findings (at most
 * QUICK_WIN_GROUP_CAP named, the worst first; `findingCount` is the group's size), the exact score
 * it gains once all of them are resolved, the changes at the source it takes, and the POST
 * /remediations body that carries it out (null for a tenant setting, changed in the admin console).
 */
export type TQuickWin = {
  action: TQuickWinAction;
  title: string;
  findingIds: string[];
  findingCount: number;
  scoreDelta: number;
  steps: number;
  plan: { findingIds: string[] } | { quickWin: TQuickWinGroup["key"] } | null;
};

export type TPostureBreakdown = {
  score: number;
  grade: TGrade;
  categories: Array<{ category: string; deductionPoints: number; findingCount: number }>;
  topImprovements: Array<{ findingId: string; scoreDelta: number }>;
  /** One action each over a group of findings, best score per step first. */
  quickWins: TQuickWin[];
};

/** The quick-win group a finding belongs to, if any (tenant findings are quick wins of their own). */
export function quickWinGroupOf(f: Pick<TScoredFinding, "ruleId" | "trustedOnly">): TQuickWinGroup | null {
  for (const g of QUICK_WIN_GROUPS) {
    if (g.ruleId !== f.ruleId) continue;
    if (g.trustedOnly === null || g.trustedOnly === (f.trustedOnly ?? false)) return g;
  }
  return null;
}

type TCounts = Record<TSeverity, number>;

const fmt = (n: number) => n.toLocaleString("en-US");

/** "Remove 41 public links": the whole group. */
export function groupTitle(key: TQuickWinGroup["key"], total: number): string {
  const count = (one: string, many: string) => `${fmt(total)} ${total === 1 ? one : many}`;
  switch (key) {
    case "public_links":
      return `Remove ${count("public link", "public links")}`;
    case "untrusted_shares":
      return `Remove outside access to ${count("file", "files")} shared with untrusted domains`;
    case "trusted_shares":
      return `Remove outside access to ${count("file", "files")} shared only with trusted domains`;
    case "unverified_broad_apps":
      return `Revoke ${count("unverified app", "unverified apps")} with broad access`;
    case "unverified_apps":
      return `Revoke ${count("app", "apps")} from unverified publishers`;
    case "org_wide_links":
      return `Remove organization-wide links from ${count("file", "files")}`;
    case "everyone_grants":
      return `Remove everyone's access to ${count("file", "files")}`;
    case "broad_group_grants":
      return `Remove broad groups' access to ${count("file", "files")}`;
  }
}

/**
 * Deduction of one category from its counts per severity:
 *   S = Σ_severity weight × log2(1 + count)      (each doubling of a severity adds one weight)
 *   D = round(cap × S / (S + cap))               (half the cap at S = cap; never above the cap)
 * Severities are summed in a fixed order so equal counts always give the same float, hence the
 * same integer: that is what keeps scoreDelta exact.
 */
export function categoryDeduction(cap: number, counts: TCounts): number {
  if (cap <= 0) return 0;
  let s = 0;
  for (const severity of SEVERITIES) s += SEVERITY_WEIGHTS[severity] * Math.log2(1 + counts[severity]);
  return Math.round((cap * s) / (s + cap));
}

export function gradeOf(score: number): TGrade {
  for (const [min, grade] of GRADE_THRESHOLDS) if (score >= min) return grade;
  return "F";
}

function emptyCounts(): TCounts {
  return { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 };
}

function byImpact(
  a: { delta: number; finding: TScoredFinding },
  b: { delta: number; finding: TScoredFinding },
): number {
  return (
    b.delta - a.delta ||
    SEVERITY_RANK[b.finding.severity] - SEVERITY_RANK[a.finding.severity] ||
    (a.finding.id < b.finding.id ? -1 : a.finding.id > b.finding.id ? 1 : 0)
  );
}

/** The open findings' counts per category and severity. */
export type TCategoryCounts = Map<string, TCounts>;

/** What the counts alone decide: the score, the categories, and each (category, severity)'s scoreDelta. */
export type TCountedPosture = Pick<TPostureBreakdown, "score" | "grade" | "categories"> & {
  /** The exact rise in score if one finding of this category and severity were fixed. */
  deltaOf: (category: string, severity: TSeverity) => number;
};

/**
 * score = 100 − Σ category deductions. Categories outside CATEGORY_CAPS are listed with their
 * count but deduct nothing. A finding's scoreDelta is the exact rise in score if it alone were
 * fixed: only its category's deduction changes, and only through its severity's count. Every
 * category of FINDING_CATEGORIES is listed, first and in that order; others follow as `counts` has them.
 */
export function scoreCounts(counted: TCategoryCounts): TCountedPosture {
  const counts = new Map<string, TCounts>();
  for (const category of FINDING_CATEGORIES) counts.set(category, emptyCounts());
  for (const [category, c] of counted) counts.set(category, { ...emptyCounts(), ...c });
  const deltas = new Map<string, number>();
  const categories: TPostureBreakdown["categories"] = [];
  let total = 0;
  for (const [category, c] of counts) {
    const cap = categoryCap(category);
    const deduction = categoryDeduction(cap, c);
    total += deduction;
    categories.push({
      category,
      deductionPoints: deduction,
      findingCount: SEVERITIES.reduce((n, s) => n + c[s], 0),
    });
    for (const severity of SEVERITIES) {
      if (c[severity] === 0) continue;
      deltas.set(
        `${category}\u0000${severity}`,
        deduction - categoryDeduction(cap, { ...c, [severity]: c[severity] - 1 }),
      );
    }
  }
  const score = 100 - total;
  return {
    score,
    grade: gradeOf(score),
    categories,
    deltaOf: (category, severity) => deltas.get(`${category}\u0000${severity}`) ?? 0,
  };
}

/** The findings' counts per category and severity, categories in the order first met. */
export function countFindings(
  findings: readonly Pick<TScoredFinding, "category" | "severity">[],
): TCategoryCounts {
  const counts: TCategoryCounts = new Map();
  for (const finding of findings) {
    let c = counts.get(finding.category);
    if (!c) {
      c = emptyCounts();
      counts.set(finding.category, c);
    }
    c[finding.severity]++;
  }
  return counts;
}

/**
 * The top improvements among `findings`, which must hold at least the first TOP_LIMIT findings in
 * rank order (all the open findings will do; computeOrgPosture asks the database for just those).
 */
export function rankFindings(
  counted: TCountedPosture,
  findings: readonly TScoredFinding[],
): Pick<TPostureBreakdown, "topImprovements"> {
  const ranked = findings
    .map((finding) => ({ finding, delta: counted.deltaOf(finding.category, finding.severity) }))
    .sort(byImpact);
  return {
    // A fix worth no point is no improvement: listed, it read as ten ways to gain nothing.
    topImprovements: ranked
      .filter(({ delta }) => delta > 0)
      .slice(0, TOP_LIMIT)
      .map(({ finding, delta }) => ({ findingId: finding.id, scoreDelta: delta })),
  };
}

/** Most severe first, then id in code-point order: the order a group's capped list is read in. */
export function bySeverityThenId(a: TScoredFinding, b: TScoredFinding): number {
  return SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The exact score of the counts once these findings (each `n` of them, 1 by default) are resolved. */
export function scoreWithout(
  counts: TCategoryCounts,
  resolved: ReadonlyArray<Pick<TScoredFinding, "category" | "severity"> & { n?: number }>,
): number {
  const left: TCategoryCounts = new Map([...counts].map(([k, c]) => [k, { ...c }]));
  for (const f of resolved) {
    const c = left.get(f.category);
    if (c) c[f.severity] = Math.max(0, c[f.severity] - (f.n ?? 1));
  }
  return scoreCounts(left).score;
}

/** A quick-win group's size, changes at the source, and findings per category and severity. */
export type TGroupStats = {
  total: number;
  steps: number;
  counts: ReadonlyArray<{ category: string; severity: TSeverity; n: number }>;
};

/**
 * The quick wins: one per group of QUICK_WIN_GROUPS and one per tenant-configuration finding, each
 * with the exact score gained once all the findings of its group are resolved, keeping those that
 * gain; ranked by points per step at the source, then points, then title; at most TOP_LIMIT:
 * every gaining group, then the best tenant settings. A group names its worst
 * QUICK_WIN_GROUP_CAP findings; its `plan` is `{findingIds}` when that is all of them, else
 * `{quickWin: <group key>}` (the planner reads the whole group). `candidates` must hold every
 * tenant finding and each group's first QUICK_WIN_GROUP_CAP findings in bySeverityThenId order;
 * `stats` each group's size, steps and counts (by default worked out from `candidates`, which
 * must then hold every finding of the groups).
 */
export function quickWinsOf(
  counts: TCategoryCounts,
  candidates: readonly TScoredFinding[],
  stats?: ReadonlyMap<string, TGroupStats>,
): TQuickWin[] {
  const score = scoreCounts(counts).score;
  const members = new Map<TQuickWinGroup["key"], TScoredFinding[]>();
  const wins: TQuickWin[] = [];
  for (const f of candidates) {
    if (f.category === TENANT_CONFIGURATION) {
      const scoreDelta = scoreWithout(counts, [f]) - score;
      wins.push({
        action: "change_setting",
        title: f.fix ?? f.title ?? f.ruleId,
        findingIds: [f.id],
        findingCount: 1,
        scoreDelta,
        steps: 1,
        plan: null,
      });
      continue;
    }
    const group = quickWinGroupOf(f);
    if (!group) continue;
    const list = members.get(group.key) ?? [];
    list.push(f);
    members.set(group.key, list);
  }
  for (const group of QUICK_WIN_GROUPS) {
    const all = members.get(group.key);
    if (!all) continue;
    const picked = [...all].sort(bySeverityThenId).slice(0, QUICK_WIN_GROUP_CAP);
    const given = stats?.get(group.key);
    const total = Math.max(given?.total ?? all.length, picked.length);
    const resolved = given ? given.counts : all;
    const steps = given?.steps ?? all.reduce((n, f) => n + Math.max(1, f.steps ?? 1), 0);
    const findingIds = picked.map((f) => f.id);
    wins.push({
      action: group.action,
      title: groupTitle(group.key, total),
      findingIds,
      findingCount: total,
      scoreDelta: scoreWithout(counts, resolved) - score,
      steps: Math.max(1, steps),
      plan: total <= picked.length ? { findingIds } : { quickWin: group.key },
    });
  }
  const rank = (a: TQuickWin, b: TQuickWin) =>
    b.scoreDelta / b.steps - a.scoreDelta / a.steps ||
    b.scoreDelta - a.scoreDelta ||
    (a.title < b.title ? -1 : a.title > b.title ? 1 : 0) ||
    ((a.findingIds[0] ?? "") < (b.findingIds[0] ?? "") ? -1 : 1);
  // Every group that gains is listed (at most five); tenant settings, one step each, fill the rest.
  const gaining = wins.filter((w) => w.scoreDelta > 0);
  const groups = gaining.filter((w) => w.plan !== null);
  const settings = gaining
    .filter((w) => w.plan === null)
    .sort(rank)
    .slice(0, Math.max(0, TOP_LIMIT - groups.length));
  return [...groups, ...settings].sort(rank).slice(0, TOP_LIMIT);
}

/** The posture of these open findings (all of them, in memory): see scoreCounts, rankFindings, quickWinsOf. */
export function scorePosture(findings: readonly TScoredFinding[]): TPostureBreakdown {
  const counts = countFindings(findings);
  const counted = scoreCounts(counts);
  const { score, grade, categories } = counted;
  return {
    score,
    grade,
    categories,
    ...rankFindings(counted, findings),
    quickWins: quickWinsOf(counts, findings),
  };
}

/** How many findings each list of the breakdown names. */
export const POSTURE_TOP_LIMIT = TOP_LIMIT;
