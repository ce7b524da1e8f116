import {
  createDemoAdapter,
  describeDemoWorkspace,
  type TDemoOptions,
  type TSourceGroup,
} from "@posture/connectors";
import { describe, expect, it } from "vitest";
import { scorePosture, type TScoredFinding } from "./score-posture";
import { collectingEngine } from "./test-fixtures";
import { FINDING_CATEGORIES, type TDetectedFinding } from "./types";

const NOW = new Date("2025-06-01T12:00:00.000Z");

async function scan(opts: TDemoOptions): Promise<TDetectedFinding[]> {
  const workspace = describeDemoWorkspace(opts);
  const adapter = createDemoAdapter(opts);
  const groups: TSourceGroup[] = [];
  for await (const group of adapter.groups?.() ?? []) groups.push(group);
  const engine = collectingEngine({
    internalDomains: workspace.internalDomains,
    trustedDomains: workspace.trustedPartnerDomains,
    now: NOW,
    groups,
  });
  for await (const user of adapter.users()) engine.addUser(user);
  for await (const file of adapter.files()) engine.addFile(file);
  for await (const drive of adapter.sharedDrives()) engine.addSharedDrive(drive);
  for await (const grant of adapter.appGrants()) engine.addAppGrant(grant);
  return engine.findings();
}

const toScored = (findings: TDetectedFinding[]): TScoredFinding[] =>
  findings.map((f) => ({
    id: f.fingerprint,
    category: f.category,
    severity: f.severity,
    ruleId: f.ruleId,
    title: f.title,
  }));

function expectConsistentDeltas(findings: TScoredFinding[]) {
  const result = scorePosture(findings);
  expect(Number.isInteger(result.score)).toBe(true);
  const entries = [
    ...result.topImprovements.map((t) => ({ findingIds: [t.findingId], scoreDelta: t.scoreDelta })),
    ...result.quickWins,
  ];
  for (const entry of entries) {
    const without = findings.filter((f) => !entry.findingIds.includes(f.id));
    expect(without).toHaveLength(findings.length - entry.findingIds.length);
    expect(scorePosture(without).score).toBe(result.score + entry.scoreDelta);
  }
  return result;
}

describe("scanning the demo workspace", () => {
  const opts: TDemoOptions = { seed: "scan", type: "google_workspace", fileCount: 2000, epoch: NOW };

  it("finds every category, one finding per rule and resource", async () => {
    const findings = await scan(opts);
    // Tenant-configuration findings come from the tenant's settings, not from the rule engine.
    expect(new Set(findings.map((f) => f.category))).toEqual(
      new Set(FINDING_CATEGORIES.filter((c) => c !== "tenant_configuration")),
    );
    expect(new Set(findings.map((f) => f.fingerprint)).size).toBe(findings.length);
    expect(new Set(findings.map((f) => `${f.ruleId}:${f.resourceId}`)).size).toBe(findings.length);
    const rules = new Set(findings.map((f) => f.ruleId));
    for (const rule of [
      "public_link",
      "external_share",
      "admin_without_mfa",
      "excess_admins",
      "app_broad_scopes_unverified",
      "org_wide_link",
      "broad_group_grant",
    ]) {
      expect(rules.has(rule)).toBe(true);
    }
  });

  it("reports the same findings when rescanned at the same revision", async () => {
    expect(await scan({ ...opts, revision: 0 })).toEqual(await scan(opts));
  });

  it("reports both new and resolved findings at the next revision, on a small subset of resources", async () => {
    const before = await scan(opts);
    const after = await scan({ ...opts, revision: 1 });
    const had = new Set(before.map((f) => f.fingerprint));
    const has = new Set(after.map((f) => f.fingerprint));
    const added = after.filter((f) => !had.has(f.fingerprint));
    const resolved = before.filter((f) => !has.has(f.fingerprint));
    // The seed's tenant at revision 1: 592 findings before, 591 after.
    expect([before.length, after.length]).toEqual([592, 591]);
    expect(added).toHaveLength(3);
    expect(resolved).toHaveLength(4);
    const categories = (fs: TDetectedFinding[]) => [...new Set(fs.map((f) => f.category))].sort();
    expect(categories(added)).toEqual(["external_sharing", "identity"]);
    expect(categories(resolved)).toEqual(["external_sharing", "identity"]);
    const changedResources = new Set([...added, ...resolved].map((f) => f.resourceId));
    expect(changedResources.size).toBe(7);
    expect(changedResources.size).toBeLessThanOrEqual(0.05 * 2000);
  });

  it("gives exact score deltas: removing a top improvement raises the score by its delta", async () => {
    const findings = toScored(await scan(opts));
    const full = expectConsistentDeltas(findings);
    expect(findings).toHaveLength(592);
    expect(full.score).toBe(36);
    // Internal exposure: 200 organization-wide links (the tenant's domain-shared files and its
    // sensitive files' links) and 49 grants to All Staff / Company Announcements.
    expect(full.categories.find((c) => c.category === "internal_exposure")).toEqual({
      category: "internal_exposure",
      deductionPoints: 12,
      findingCount: 249,
    });
    // Only the fixes worth a point are listed (here four; the rest of the 592 move nothing alone).
    expect(full.topImprovements.map((t) => t.scoreDelta)).toEqual([1, 1, 1, 1]);
    // A smaller tenant, where single fixes move the score by several points.
    const small = expectConsistentDeltas(findings.filter((_, i) => i % 40 === 0));
    expect(small.score).toBe(81);
    expect(small.topImprovements.map((t) => t.scoreDelta)).toEqual([6, 3, 1, 1, 1, 1]);
    // The outside shares, then the organization-wide links (internal exposure's quick win).
    expect(small.quickWins.map((q) => [q.action, q.findingIds.length, q.scoreDelta])).toEqual([
      ["remove_external_access", 8, 8],
      ["remove_org_wide_link", 5, 4],
    ]);
  });
});
