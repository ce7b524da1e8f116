import { connectors, findings, newId, organizations, SEVERITY_RANK, type TSeverity } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scorePosture, type TScoredFinding } from "../engine";
import { RULE_IDS } from "../engine/rule-ids";
import { computeOrgPosture } from "./posture";

// computeOrgPosture reads counts and the two top-ten lists from the database; scorePosture scores
// every open finding in memory. They must agree exactly, ties and quick wins included.

let db: TestDb;
let orgId: string;
let connectorId: string;

beforeAll(async () => {
  db = await createTestDb();
  const [org] = await db.db.insert(organizations).values({ name: "Score Co", plan: "business" }).returning();
  orgId = org?.id ?? "";
  const [c] = await db.db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: "Drive", mode: "demo" })
    .returning();
  connectorId = c?.id ?? "";
});
afterAll(async () => {
  await db?.drop();
});

const SEVERITIES: TSeverity[] = ["CRITICAL", "HIGH", "MEDIUM", "LOW"];
const CATEGORIES = [
  ["public_exposure", RULE_IDS.publicLink],
  ["external_sharing", RULE_IDS.externalShare],
  ["external_sharing", "some_other_rule"],
  ["identity", "mfa_disabled"],
  ["tenant_configuration", "gws.some_check"],
  ["third_party_apps", "risky_app"],
  ["uncapped_category", "odd_rule"],
] as const;

/** A deterministic pseudo-random sequence, so a failure reproduces. */
function lcg(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s % n;
  };
}

async function addFindings(count: number, seed: number) {
  const pick = lcg(seed);
  const rows = Array.from({ length: count }, (_, i) => {
    const [category, ruleId] = CATEGORIES[pick(CATEGORIES.length)] ?? CATEGORIES[0];
    const severity = SEVERITIES[pick(4)] ?? "LOW";
    return {
      // Ids of both cases and digits: their order must be the code-point order of the in-memory sort.
      id: `fnd_${pick(2) ? "A" : "a"}${newId("x").slice(2)}`,
      orgId,
      connectorId,
      connectorType: "google_workspace",
      fingerprint: `fp-${seed}-${i}`,
      ruleId,
      category,
      severity,
      severityRank: SEVERITY_RANK[severity],
      title: `Finding ${i}`,
      resourceId: `r${i}`,
      resourceName: `r${i}`,
      resourceType: "file",
      status: pick(5) === 0 ? ("RESOLVED" as const) : ("OPEN" as const),
      details: category === "tenant_configuration" && pick(2) ? { fix: `Turn setting ${i} off` } : {},
    };
  });
  for (let i = 0; i < rows.length; i += 500) await db.db.insert(findings).values(rows.slice(i, i + 500));
}

async function inMemory() {
  const open = await db.db
    .select()
    .from(findings)
    .where(and(eq(findings.orgId, orgId), eq(findings.status, "OPEN")));
  return scorePosture(
    open.map((f): TScoredFinding => {
      const fix = f.category === "tenant_configuration" ? (f.details as { fix?: string }).fix : undefined;
      return {
        id: f.id,
        category: f.category,
        severity: f.severity as TSeverity,
        ruleId: f.ruleId,
        title: f.title,
        ...(fix === undefined ? {} : { fix }),
      };
    }),
  );
}

/** Categories in a fixed order: the in-memory score lists unknown ones in the order it met them. */
const sorted = <T extends { categories: Array<{ category: string }> }>(p: T) => ({
  ...p,
  categories: [...p.categories].sort((a, b) => (a.category < b.category ? -1 : 1)),
});

// Twelve findings: eight single fixes worth a point; at 300 and 2,500 no single fix moves the score.
const IMPROVEMENTS = [8, 0, 0];

describe("computeOrgPosture", () => {
  it("scores an organization without findings", async () => {
    const p = await computeOrgPosture(db.db, { orgId });
    expect(p).toEqual(scorePosture([]));
  });

  it("agrees with the in-memory score: counts, deltas, top improvements and quick wins", async () => {
    const improvements: number[] = [];
    for (const [count, seed] of [
      [12, 1],
      [300, 2],
      [2_500, 3],
    ] as const) {
      await addFindings(count, seed);
      const p = await computeOrgPosture(db.db, { orgId });
      expect(sorted(p)).toEqual(sorted(await inMemory()));
      // Only fixes worth a point are listed, at most ten (the deltas themselves are compared above).
      improvements.push(p.topImprovements.length);
      expect(p.topImprovements.every((t) => t.scoreDelta > 0)).toBe(true);
      if (count === 12) expect(p.quickWins.length).toBeGreaterThan(0);
    }
    expect(improvements).toEqual(IMPROVEMENTS);
  });
});
