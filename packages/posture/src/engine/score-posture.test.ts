import { describe, expect, it } from "vitest";
import {
  CATEGORY_CAPS,
  categoryDeduction,
  gradeOf,
  scorePosture,
  type TScoredFinding,
} from "./score-posture";
import type { TSeverity } from "./types";

let next = 0;
function f(
  category: string,
  severity: TSeverity,
  ruleId: string,
  id = `f${next++}`,
  fix?: string,
): TScoredFinding {
  return { id, category, severity, ruleId, title: `${ruleId} ${id}`, ...(fix === undefined ? {} : { fix }) };
}
const zero = { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 };

describe("scorePosture arithmetic", () => {
  it("scores a clean tenant 100/A and lists every category with zero", () => {
    const result = scorePosture([]);
    expect(result.score).toBe(100);
    expect(result.grade).toBe("A");
    expect(result.categories).toEqual(
      Object.keys(CATEGORY_CAPS).map((category) => ({ category, deductionPoints: 0, findingCount: 0 })),
    );
    expect(result.topImprovements).toEqual([]);
    expect(result.quickWins).toEqual([]);
    expect(Object.values(CATEGORY_CAPS).reduce((a, b) => a + b, 0)).toBe(100);
  });

  it("takes round(cap·S/(S+cap)) per category with S = Σ weight·log2(1+count)", () => {
    // public: S = 10 → 17·10/27 = 6.30 → 6. external: S = 5·log2 3 = 7.92 → 15·7.92/22.92 = 5.18 → 5.
    // identity: S = 10 + 7.92 + 2 = 19.92 → 15·19.92/34.92 = 8.56 → 9. apps: S = 1 → 13/14 → 1.
    // tenant: S = 5 + 2 = 7 → 13·7/20 = 4.55 → 5. internal exposure: none, 0.
    const findings = [
      f("public_exposure", "CRITICAL", "public_link", "pub"),
      f("external_sharing", "HIGH", "external_share", "ext-b"),
      f("external_sharing", "HIGH", "external_share", "ext-a"),
      f("identity", "CRITICAL", "admin_without_mfa", "adm"),
      f("identity", "HIGH", "user_without_mfa", "usr-2"),
      f("identity", "HIGH", "user_without_mfa", "usr-1"),
      f("identity", "MEDIUM", "dormant_account", "dormant"),
      f("third_party_apps", "LOW", "app_unverified_publisher", "app"),
      f("tenant_configuration", "HIGH", "gws_2sv", "tc-2sv", "Security > 2-Step Verification > Enforce"),
      f("tenant_configuration", "MEDIUM", "gws_apps", "tc-apps", "API controls > block unconfigured apps"),
    ];
    const result = scorePosture(findings);
    expect(result.categories).toEqual([
      { category: "public_exposure", deductionPoints: 6, findingCount: 1 },
      { category: "external_sharing", deductionPoints: 5, findingCount: 2 },
      { category: "shared_drive_exposure", deductionPoints: 0, findingCount: 0 },
      { category: "identity", deductionPoints: 9, findingCount: 4 },
      { category: "third_party_apps", deductionPoints: 1, findingCount: 1 },
      { category: "tenant_configuration", deductionPoints: 5, findingCount: 2 },
      { category: "internal_exposure", deductionPoints: 0, findingCount: 0 },
    ]);
    expect(result.score).toBe(74);
    expect(result.grade).toBe("C");

    // Fixing one: public 6 → 0; admin: identity S = 9.92 → 5.97 → 6 (3); 2SV: tenant S = 2 → 1.73 → 2
    // (3); an external HIGH: S = 5 → 3.75 → 4 (1); a user HIGH: S = 17 → 7.97 → 8 (1); dormant:
    // S = 17.92 → 8.16 → 8 (1); the apps setting: S = 5 → 3.61 → 4 (1); app: 1 → 0 (1). Ties: more
    // severe first, then id.
    expect(result.topImprovements).toEqual([
      { findingId: "pub", scoreDelta: 6 },
      { findingId: "adm", scoreDelta: 3 },
      { findingId: "tc-2sv", scoreDelta: 3 },
      { findingId: "ext-a", scoreDelta: 1 },
      { findingId: "ext-b", scoreDelta: 1 },
      { findingId: "usr-1", scoreDelta: 1 },
      { findingId: "usr-2", scoreDelta: 1 },
      { findingId: "dormant", scoreDelta: 1 },
      { findingId: "tc-apps", scoreDelta: 1 },
      { findingId: "app", scoreDelta: 1 },
    ]);
    // One action over each group (all public links, all outside shares, unverified apps) and one
    // per tenant setting (titled by its fix), ranked by points per step: the link 6/1; 2SV's 3/1
    // beats the shares' 5/2; the apps setting and the app tie at 1/1, by title.
    const win = (action: string, title: string, findingIds: string[], scoreDelta: number, steps = 1) => ({
      action,
      title,
      findingIds,
      findingCount: findingIds.length,
      scoreDelta,
      steps,
      plan: action === "change_setting" ? null : { findingIds },
    });
    expect(result.quickWins).toEqual([
      win("remove_public_link", "Remove 1 public link", ["pub"], 6),
      win("change_setting", "Security > 2-Step Verification > Enforce", ["tc-2sv"], 3),
      win(
        "remove_external_access",
        "Remove outside access to 2 files shared with untrusted domains",
        ["ext-a", "ext-b"],
        5,
        2,
      ),
      win("change_setting", "API controls > block unconfigured apps", ["tc-apps"], 1),
      win("revoke_oauth_grant", "Revoke 1 app from unverified publishers", ["app"], 1),
    ]);
    for (const win of result.quickWins)
      expect(scorePosture(findings.filter((x) => !win.findingIds.includes(x.id))).score).toBe(
        result.score + win.scoreDelta,
      );
  });

  it("lists categories it does not know with their count but deducts nothing for them", () => {
    const result = scorePosture([
      f("policy", "CRITICAL", "custom_rule"),
      f("public_exposure", "HIGH", "public_link"),
    ]);
    expect(result.categories.at(-1)).toEqual({ category: "policy", deductionPoints: 0, findingCount: 1 });
    expect(result.score).toBe(100 - 4); // one HIGH public link: 17·5/22 = 3.86
  });

  it("keeps at most ten top improvements and ten quick wins, each with a positive delta", () => {
    const many = Array.from({ length: 30 }, (_, i) =>
      f("public_exposure", "HIGH", "public_link", `p${String(i).padStart(2, "0")}`),
    );
    const result = scorePosture(many);
    // 30 HIGH links: S = 5·log2(31) = 24.77 → 11, and 29: 24.56 → 11; no single one is worth a point.
    expect(result.topImprovements).toEqual([]);
    // Few enough that each counts: the first ten of twelve (one category each severity apart).
    const few = scorePosture(
      [
        "public_exposure",
        "external_sharing",
        "identity",
        "third_party_apps",
        "shared_drive_exposure",
      ].flatMap((category, c) => [
        f(category, "CRITICAL", "r", `c${c}a`),
        f(category, "CRITICAL", "r", `c${c}b`),
      ]),
    );
    expect(few.topImprovements).toHaveLength(10);
    expect(few.topImprovements.every((t) => t.scoreDelta > 0)).toBe(true);
    expect(result.quickWins.every((w) => w.scoreDelta > 0)).toBe(true);
    expect(result.quickWins.length).toBeLessThanOrEqual(10);
  });
});

describe("scorePosture bounds and diminishing returns", () => {
  it("never deducts a category's cap, even flooded", () => {
    for (const [category, cap] of Object.entries(CATEGORY_CAPS)) {
      const flooded = categoryDeduction(cap, { ...zero, CRITICAL: 1_000_000, HIGH: 1_000_000 });
      expect(flooded).toBeLessThan(cap);
      expect(flooded).toBeGreaterThan(cap / 2);
      expect(Number.isInteger(flooded)).toBe(true);
      expect(category.length).toBeGreaterThan(0);
    }
  });

  it("leaves a tenant with 10,000 critical findings in every category above zero", () => {
    const findings = Object.keys(CATEGORY_CAPS).flatMap((category) =>
      Array.from({ length: 10_000 }, (_, i) => ({
        id: `${category}-${i}`,
        category,
        severity: "CRITICAL" as const,
        ruleId: "r",
      })),
    );
    const result = scorePosture(findings);
    // S = 10·log2(10001) = 132.9 per category: 15 + 13 + 12 + 13 + 12 + 12 + 13.
    expect(result.score).toBe(100 - (15 + 13 + 12 + 13 + 12 + 12 + 13));
    expect(result.grade).toBe("F");
  });

  it("grows with each finding but by less and less", () => {
    let previous = 0;
    for (let n = 1; n <= 500; n++) {
      const d = categoryDeduction(25, { ...zero, HIGH: n });
      expect(d).toBeGreaterThanOrEqual(previous);
      previous = d;
    }
    const first = categoryDeduction(25, { ...zero, HIGH: 1 });
    const hundredth =
      categoryDeduction(25, { ...zero, HIGH: 100 }) - categoryDeduction(25, { ...zero, HIGH: 99 });
    expect(first).toBe(4);
    expect(hundredth).toBe(0);
    expect(categoryDeduction(25, { ...zero, HIGH: 2 }) - first).toBeLessThan(first);
  });

  it("weighs severities 10 / 5 / 2 / 1", () => {
    expect(categoryDeduction(100, { ...zero, CRITICAL: 1 })).toBe(Math.round((100 * 10) / 110));
    expect(categoryDeduction(100, { ...zero, HIGH: 1 })).toBe(Math.round((100 * 5) / 105));
    expect(categoryDeduction(100, { ...zero, MEDIUM: 1 })).toBe(Math.round((100 * 2) / 102));
    expect(categoryDeduction(100, { ...zero, LOW: 1 })).toBe(Math.round(100 / 101));
  });
});

describe("grades", () => {
  it("are A ≥ 90, B ≥ 80, C ≥ 70, D ≥ 60, F below", () => {
    const cases: Array<[number, string]> = [
      [100, "A"],
      [90, "A"],
      [89, "B"],
      [80, "B"],
      [79, "C"],
      [70, "C"],
      [69, "D"],
      [60, "D"],
      [59, "F"],
      [0, "F"],
    ];
    for (const [score, grade] of cases) expect(gradeOf(score)).toBe(grade);
  });
});
