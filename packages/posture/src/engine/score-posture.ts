import { QUICK_WIN_RULES, RULE_IDS } from "./rule-ids";
import { TENANT_CONFIGURATION } from "./tenant-findings";
import { categoryCap } from "@posture/db";
import { FINDING_CATEGORIES, SEVERITIES, SEVERITY_RANK, type TSeverity } from "./types";

export { CATEGORY_CAPS } from "./types";

// The formula is documented in README.md beside this file; keep the two in step.

/** What a quick win asks the admin to do. */
export type TQuickWinAction = "remove_public_link" | "remove_external_access" | "change_setting";

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
};

export type TPostureBreakdown = {
  score: number;
  grade: TGrade;
  categories: Array<{ category: string; deductionPoints: number; findingCount: number }>;
  topImprovements: Array<{ findingId: string; scoreDelta: number }>;
  /** One action each, best first: what to do, the findings it resolves, the score it gains. */
  quickWins: Array<{ action: TQuickWinAction; title: string; findingIds: string[]; scoreDelta: number }>;
};

/** The one action that fixes a finding, when there is one (a quick-win rule or a tenant check). */
function quickWinOf(f: TScoredFinding): { action: TQuickWinAction; title: string } | null {
  if (f.category === TENANT_CONFIGURATION)
    return { action: "change_setting", title: f.fix ?? f.title ?? f.ruleId };
  if (!QUICK_WIN_RULES.has(f.ruleId)) return null;
  const action = f.ruleId === RULE_IDS.publicLink ? "remove_public_link" : "remove_external_access";
  return { action, title: f.title ?? f.ruleId };
}

type TCounts = Record<TSeverity, number>;

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
 * The top improvements and quick wins among `findings`, which must hold at least the first
 * TOP_LIMIT findings of each list in rank order (all the open findings will do; computeOrgPosture
 * asks the database for just those).
 */
export function rankFindings(
  counted: TCountedPosture,
  findings: readonly TScoredFinding[],
): Pick<TPostureBreakdown, "topImprovements" | "quickWins"> {
  const ranked = findings
    .map((finding) => ({ finding, delta: counted.deltaOf(finding.category, finding.severity) }))
    .sort(byImpact);
  return {
    topImprovements: ranked
      .slice(0, TOP_LIMIT)
      .map(({ finding, delta }) => ({ findingId: finding.id, scoreDelta: delta })),
    quickWins: ranked
      .flatMap(({ finding, delta }) => {
        const win = delta > 0 ? quickWinOf(finding) : null;
        return win ? [{ ...win, findingIds: [finding.id], scoreDelta: delta }] : [];
      })
      .slice(0, TOP_LIMIT),
  };
}

/** The posture of these open findings (all of them, in memory): see scoreCounts and rankFindings. */
export function scorePosture(findings: readonly TScoredFinding[]): TPostureBreakdown {
  const counted = scoreCounts(countFindings(findings));
  const { score, grade, categories } = counted;
  return { score, grade, categories, ...rankFindings(counted, findings) };
}

/** How many findings each list of the breakdown names. */
export const POSTURE_TOP_LIMIT = TOP_LIMIT;
