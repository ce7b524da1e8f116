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

/**
 * score = 100 − Σ category deductions. Categories outside CATEGORY_CAPS are listed with their
 * count but deduct nothing. A finding's scoreDelta is the exact rise in score if it alone were
 * fixed: only its category's deduction changes, and only through its severity's count.
 */
export function scorePosture(findings: readonly TScoredFinding[]): TPostureBreakdown {
  const counts: TSeverityCount[] = [];
  const index = new Map<string, TSeverityCount>();
  for (const finding of findings) {
    const key = `${finding.category}\u0000${finding.severity}`;
    const c = index.get(key);
    if (c) c.count++;
    else {
      const added = { category: finding.category, severity: finding.severity, count: 1 };
      index.set(key, added);
      counts.push(added);
    }
  }
  return scorePostureOf(counts, findings);
}

/** How many open findings a category has of one severity. */
export type TSeverityCount = { category: string; severity: TSeverity; count: number };

/** Findings a breakdown can name: per category and severity, the first this many by id, and as many of the quick wins. */
export const SCORE_CANDIDATES = TOP_LIMIT;

/**
 * The breakdown from what it depends on, so a large organization's score need not hold every open
 * finding: the counts per category and severity, and the candidates. A finding's rank depends on
 * its category and severity (its scoreDelta), then its id, so only the first SCORE_CANDIDATES of
 * each category and severity by id can be among the top improvements, and only the first as many
 * quick-win findings (`QUICK_WIN_RULES` or a tenant check) among the quick wins; every finding
 * is a valid candidate too (`scorePosture`). Ids compare by UTF-16 code unit (SQL: `COLLATE "C"`).
 */
export function scorePostureOf(
  severityCounts: readonly TSeverityCount[],
  candidates: readonly TScoredFinding[],
): TPostureBreakdown {
  const counts = new Map<string, TCounts>();
  for (const category of FINDING_CATEGORIES) counts.set(category, emptyCounts());
  for (const { category, severity, count } of severityCounts) {
    let c = counts.get(category);
    if (!c) {
      c = emptyCounts();
      counts.set(category, c);
    }
    c[severity] += count;
  }

  const deductions = new Map<string, number>();
  const deltas = new Map<string, number>();
  const categories: TPostureBreakdown["categories"] = [];
  let total = 0;
  for (const [category, c] of counts) {
    const cap = categoryCap(category);
    const deduction = categoryDeduction(cap, c);
    deductions.set(category, deduction);
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

  const ranked = candidates
    .map((finding) => ({ finding, delta: deltas.get(`${finding.category}\u0000${finding.severity}`) ?? 0 }))
    .sort(byImpact);
  const score = 100 - total;
  return {
    score,
    grade: gradeOf(score),
    categories,
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
