import { connectors, findings, organizations, SEVERITY_RANK, type TSeverity } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RULE_IDS } from "../engine/rule-ids";
import { scorePosture } from "../engine/score-posture";
import { computeOrgPosture } from "./posture";

// The case posture.int.test.ts's random organizations rarely reach: more quick wins than the
// breakdown names, hidden behind other findings of their category (computeOrgPosture reads only
// candidates from the database; it must still equal scorePosture over every open finding).

let db: TestDb;
const SEVERITIES: TSeverity[] = ["CRITICAL", "HIGH", "MEDIUM", "LOW"];

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.drop();
});

/** A deterministic pseudo-random sequence (mulberry32). */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `n` random findings, plus `fixed` groups of `count` findings of one rule, category and severity
 * (their ids `<prefix><k>` when a prefix is given).
 */
async function seed(
  seedNo: number,
  n: number,
  fixed: Array<[string, string, TSeverity, number, string?]> = [],
): Promise<string> {
  const random = rng(seedNo);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const [org] = await db.db
    .insert(organizations)
    .values({ name: `Score ${seedNo}`, plan: "business" })
    .returning();
  const [c] = await db.db
    .insert(connectors)
    .values({ orgId: org?.id ?? "", type: "google_workspace", displayName: "Drive", mode: "demo" })
    .returning();
  if (!org || !c) throw new Error("seed failed");
  const rules: Array<[string, string]> = [
    [RULE_IDS.publicLink, "public_exposure"],
    [RULE_IDS.externalShare, "external_sharing"],
    ["sensitive_external_share", "external_sharing"],
    [RULE_IDS.sharedDriveExternalMembers, "shared_drive_exposure"],
    [RULE_IDS.userWithoutMfa, "identity"],
    [RULE_IDS.dormantAccount, "identity"],
    [RULE_IDS.appBroadScopes, "third_party_apps"],
    ["gws_2sv", "tenant_configuration"],
    ["gws_dlp", "tenant_configuration"],
    ["legacy_rule", "legacy_category"],
  ];
  const plan = [
    ...Array.from({ length: n }, () => {
      const [ruleId, category] = pick(rules);
      // Mostly one severity per rule, so some categories hold many findings of one severity.
      const severity = random() < 0.7 ? (SEVERITIES[ruleId.length % 4] as TSeverity) : pick(SEVERITIES);
      const status = random() < 0.15 ? "RESOLVED" : "OPEN";
      return { ruleId, category, severity, status, id: undefined } as const;
    }),
    ...fixed.flatMap(([ruleId, category, severity, count, prefix]) =>
      Array.from({ length: count }, (_, k) => ({
        ruleId,
        category,
        severity,
        status: "OPEN" as const,
        id: prefix === undefined ? undefined : `${prefix}${String(k).padStart(2, "0")}`,
      })),
    ),
  ];
  const rows = plan.map(({ ruleId, category, severity, status, id: given }, k) => {
    // Ids in no particular order, of mixed case and length: the tie-break is by code unit.
    const id = given ?? `fnd_${Math.floor(random() * 1e9).toString(36)}${random() < 0.2 ? "Z" : ""}_${k}`;
    return {
      id,
      orgId: org.id,
      connectorId: c.id,
      connectorType: "google_workspace",
      fingerprint: `fp-${seedNo}-${k}`,
      ruleId,
      category,
      severity,
      severityRank: SEVERITY_RANK[severity],
      title: `${ruleId} #${k}`,
      resourceId: `r${k}`,
      resourceName: `Resource ${k}`,
      resourceType: "file",
      status,
      details: category === "tenant_configuration" ? { fix: `Set ${ruleId} (${k})` } : {},
    };
  });
  for (let i = 0; i < rows.length; i += 1_000) await db.db.insert(findings).values(rows.slice(i, i + 1_000));
  return org.id;
}

async function everyOpenFinding(orgId: string) {
  const open = await db.db
    .select({
      id: findings.id,
      category: findings.category,
      severity: findings.severity,
      ruleId: findings.ruleId,
      title: findings.title,
      details: findings.details,
    })
    .from(findings)
    .where(and(eq(findings.orgId, orgId), eq(findings.status, "OPEN")));
  return open.map(({ details, ...f }) =>
    f.category === "tenant_configuration" ? { ...f, fix: String(details.fix) } : f,
  );
}

describe("the organization's posture, scored in the database: quick wins", () => {
  it("groups quick wins, names a group's worst 500, exactly as scorePosture does", async () => {
    // More public links than a quick win names: the HIGH ones first, then by id; the title says
    // how many the group holds. External shares of two rules: only external_share is a group.
    const orgId = await seed(6, 0, [
      [RULE_IDS.publicLink, "public_exposure", "LOW", 520, "fnd_c"],
      [RULE_IDS.publicLink, "public_exposure", "HIGH", 3, "fnd_h"],
      // MEDIUM: with external sharing's cap of 15 (issue 30), six LOW shares among 18 move no point.
      [RULE_IDS.externalShare, "external_sharing", "MEDIUM", 6, "fnd_b"],
      ["sensitive_external_share", "external_sharing", "LOW", 12, "fnd_a"],
      ["gws_dlp", "tenant_configuration", "LOW", 23, "fnd_d"],
      [RULE_IDS.userWithoutMfa, "identity", "LOW", 20, "fnd_e"],
    ]);
    const expected = scorePosture(await everyOpenFinding(orgId));
    const links = expected.quickWins.find((w) => w.action === "remove_public_link");
    // The whole group's gain and steps; its worst 500 named; the plan is the group itself.
    expect(links).toMatchObject({
      title: "Remove 523 public links",
      findingCount: 523,
      steps: 523,
      plan: { quickWin: "public_links" },
    });
    expect(links?.findingIds).toHaveLength(500);
    expect(links?.findingIds.slice(0, 3)).toEqual(["fnd_h00", "fnd_h01", "fnd_h02"]);
    const shares = expected.quickWins.find((w) => w.action === "remove_external_access");
    expect(shares?.findingIds).toEqual(Array.from({ length: 6 }, (_, k) => `fnd_b0${k}`));
    expect(shares?.plan).toEqual({ findingIds: shares?.findingIds });
    // Best points per step first.
    const perStep = expected.quickWins.map((w) => w.scoreDelta / w.steps);
    expect(perStep).toEqual([...perStep].sort((a, b) => b - a));
    expect(await computeOrgPosture(db.db, { orgId })).toEqual(expected);
  });
});
