import {
  connectors,
  findings,
  oauthGrants,
  newId,
  organizations,
  scanDetections,
  scans,
  type TSeverity,
} from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import type { TAppGrant } from "@posture/connectors";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeFinding } from "../engine/finding";
import { RULE_IDS } from "../engine/rule-ids";
import type { TDetectedFinding } from "../engine/types";
import { stageDetections } from "./scan-detections";
import { persistScan } from "./scan-persist";
import { exportBatches } from "./findings-export";

// The findings diff is set-based over the staged detections: these cases pin down what the
// in-memory diff it replaced did, plus what staging adds (duplicates, clean-up, idempotency).

let db: TestDb;
let orgId: string;
let connectorId: string;

beforeAll(async () => {
  db = await createTestDb();
  const [org] = await db.db.insert(organizations).values({ name: "Diff Co", plan: "business" }).returning();
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

const detection = (resourceId: string, severity: TSeverity, title = "Shared by public link") =>
  makeFinding({
    ruleId: RULE_IDS.publicLink,
    severity,
    title,
    resourceId,
    resourceName: `${resourceId}.docx`,
    resourceType: "file",
    details: { resourceId },
  });

/** Stages detections under a run of the scan (as the read does, in batches), then diffs them. */
async function stageAndPersist(
  scanId: string,
  detected: TDetectedFinding[],
  now = new Date(),
  grants: TAppGrant[] = [],
) {
  const runId = newId("run");
  const stage = stageDetections((statement) => statement(db.db), { scanId, runId });
  await stage.add(detected);
  await stage.flush();
  return persistScan(db.db, {
    scanId,
    orgId,
    connector: { id: connectorId, type: "google_workspace", displayName: "Drive" },
    runId,
    grants,
    resourceCount: detected.length,
    now,
  });
}

/** One scan of its own. */
async function scanWith(detected: TDetectedFinding[], now = new Date(), grants: TAppGrant[] = []) {
  const [scan] = await db.db
    .insert(scans)
    .values({ orgId, connectorId, connectorName: "Drive", trigger: "manual", status: "RUNNING" })
    .returning();
  if (!scan) throw new Error("no scan");
  return { scanId: scan.id, now, result: await stageAndPersist(scan.id, detected, now, grants) };
}

const stored = async () => {
  const rows = await db.db.select().from(findings).where(eq(findings.connectorId, connectorId));
  return new Map(rows.map((r) => [r.resourceId, r]));
};

describe("persisting a scan from its staged detections", () => {
  it("diffs new, duplicate, changed, resolved, reopened and accepted findings as the scan saw them", async () => {
    // First scan: a resource read twice keeps its most severe detection.
    const first = await scanWith([
      detection("a", "MEDIUM"),
      detection("b", "LOW"),
      detection("b", "CRITICAL"),
      detection("c", "HIGH"),
      detection("d", "HIGH"),
    ]);
    expect(first.result).toMatchObject({ newCount: 4, resolvedCount: 0, findingsTotal: 4 });
    const opened = (await first.result?.newFindings()) ?? [];
    expect(opened.map((f) => f.resourceName).sort()).toEqual(["a.docx", "b.docx", "c.docx", "d.docx"]);
    let rows = await stored();
    expect(rows.get("b")).toMatchObject({ severity: "CRITICAL", severityRank: 4, status: "OPEN" });
    expect(rows.get("a")).toMatchObject({ lastSeenScanId: first.scanId, detectedAt: first.now });
    // The new findings carry the ids staged for them.
    const staged = new Set(opened.map((f) => f.id));
    expect([...rows.values()].every((r) => staged.has(r.id))).toBe(true);
    await db.db
      .update(findings)
      .set({ status: "ACCEPTED" })
      .where(eq(findings.id, rows.get("d")?.id ?? ""));

    // Second scan: a changes severity and title, b and d are gone (d stays accepted), c unchanged.
    const second = await scanWith([detection("a", "HIGH", "Editable public link"), detection("c", "HIGH")]);
    expect(second.result).toMatchObject({ newCount: 0, resolvedCount: 1, findingsTotal: 2 });
    expect((await second.result?.resolvedFindings())?.map((f) => f.resourceName)).toEqual(["b.docx"]);
    rows = await stored();
    expect(rows.get("a")).toMatchObject({
      severity: "HIGH",
      severityRank: 3,
      title: "Editable public link",
      status: "OPEN",
      lastSeenScanId: first.scanId,
    });
    expect(rows.get("b")).toMatchObject({ status: "RESOLVED", resolvedAt: second.now });
    expect(rows.get("c")).toMatchObject({ status: "OPEN", lastSeenScanId: first.scanId });
    expect(rows.get("d")?.status).toBe("ACCEPTED");

    // Third scan: b is back, reopened under its old id and counted as new.
    const third = await scanWith([
      detection("a", "HIGH", "Editable public link"),
      detection("b", "CRITICAL"),
    ]);
    expect(third.result).toMatchObject({ newCount: 1, resolvedCount: 1, findingsTotal: 2 });
    expect((await third.result?.newFindings())?.map((f) => [f.id, f.resourceName])).toEqual([
      [rows.get("b")?.id, "b.docx"],
    ]);
    rows = await stored();
    expect(rows.get("b")).toMatchObject({ status: "OPEN", resolvedAt: null, lastSeenScanId: third.scanId });
    expect(rows.get("c")?.status).toBe("RESOLVED");
    const [scan] = await db.db.select().from(scans).where(eq(scans.id, third.scanId));
    expect(scan).toMatchObject({ status: "COMPLETE", findingsNew: 1, findingsResolved: 1, findingsTotal: 2 });

    // Nothing staged outlives its scan.
    expect(await db.db.select().from(scanDetections)).toEqual([]);
  });

  it("skips a scan another attempt already completed, and drops what this attempt staged", async () => {
    const done = await scanWith([detection("x", "LOW")]);
    expect(done.result).not.toBeNull();
    const again = await stageAndPersist(done.scanId, [detection("y", "HIGH")]);
    expect(again).toBeNull();
    expect(await db.db.select().from(scanDetections).where(eq(scanDetections.scanId, done.scanId))).toEqual(
      [],
    );
    const y = await db.db
      .select()
      .from(findings)
      .where(and(eq(findings.connectorId, connectorId), eq(findings.resourceId, "y")));
    expect(y).toEqual([]);
  });
});

describe("the connector's grants as of the scan", () => {
  const grant = (id: string, over: Partial<TAppGrant> = {}): TAppGrant => ({
    id,
    clientId: `client-${id}`,
    label: `App ${id}`,
    kind: "oauth_app",
    publisher: "Acme",
    isKnownPublisher: false,
    scopes: ["https://example.test/auth/drive", "openid"],
    userEmail: `${id}@example.test`,
    grantedAt: "2026-01-02T03:04:05.000Z",
    ...over,
  });
  const storedGrants = async () => {
    const rows = await db.db
      .select({
        id: oauthGrants.id,
        externalId: oauthGrants.externalId,
        label: oauthGrants.label,
        scopes: oauthGrants.scopes,
        isKnownPublisher: oauthGrants.isKnownPublisher,
        userEmail: oauthGrants.userEmail,
        grantedAt: oauthGrants.grantedAt,
        xmin: sql<string>`xmin::text`,
      })
      .from(oauthGrants)
      .where(eq(oauthGrants.connectorId, connectorId));
    return new Map(rows.map((r) => [r.externalId, r]));
  };

  it("adds new grants, updates changed ones, deletes gone ones and leaves the rest unwritten", async () => {
    await scanWith([], new Date(), [grant("a"), grant("b"), grant("c", { scopes: [] })]);
    const before = await storedGrants();
    expect([...before.keys()].sort()).toEqual(["a", "b", "c"]);
    expect(before.get("a")).toMatchObject({
      label: "App a",
      scopes: ["https://example.test/auth/drive", "openid"],
      userEmail: "a@example.test",
      grantedAt: new Date("2026-01-02T03:04:05.000Z"),
    });
    expect(before.get("c")?.scopes).toEqual([]);

    await scanWith([], new Date(), [
      grant("a"),
      grant("b", { scopes: ["openid", 'a scope, with "quotes"'], isKnownPublisher: true }),
      grant("d"),
      // Read twice: written once, the last read wins.
      grant("d", { label: "App d again" }),
    ]);
    const after = await storedGrants();
    expect([...after.keys()].sort()).toEqual(["a", "b", "d"]);
    // Unchanged: the same row, not rewritten.
    expect(after.get("a")).toEqual(before.get("a"));
    expect(after.get("b")).toMatchObject({
      id: before.get("b")?.id,
      scopes: ["openid", 'a scope, with "quotes"'],
      isKnownPublisher: true,
    });
    expect(after.get("d")?.label).toBe("App d again");

    await scanWith([], new Date(), []);
    expect((await storedGrants()).size).toBe(0);
  });

  it("stores each grant's access kind and agent source, and rewrites a grant the registry reclassifies", async () => {
    const stored = async () =>
      Object.fromEntries(
        (
          await db.db
            .select({
              externalId: oauthGrants.externalId,
              kind: oauthGrants.kind,
              access: oauthGrants.access,
              agentSource: oauthGrants.agentSource,
              xmin: sql<string>`xmin::text`,
            })
            .from(oauthGrants)
            .where(eq(oauthGrants.connectorId, connectorId))
        ).map((r) => [r.externalId, r]),
      );
    await scanWith([], new Date(), [
      grant("app-only", { kind: "service_account", access: "application" }),
      grant("agent", { kind: "ai_agent", access: "delegated", agentSource: "copilot_catalog" }),
      grant("plain"),
    ]);
    const first = await stored();
    expect(Object.values(first).map((r) => [r.externalId, r.kind, r.access, r.agentSource])).toEqual(
      expect.arrayContaining([
        ["app-only", "service_account", "application", null],
        ["agent", "ai_agent", "delegated", "copilot_catalog"],
        ["plain", "oauth_app", "delegated", null],
      ]),
    );
    // The next scan's agent registry lists the app-only one: kind and source change, the rest stays.
    await scanWith([], new Date(), [
      grant("app-only", { kind: "ai_agent", access: "application", agentSource: "agent_registry" }),
      grant("agent", { kind: "ai_agent", access: "delegated", agentSource: "copilot_catalog" }),
      grant("plain"),
    ]);
    const second = await stored();
    expect(second["app-only"]).toMatchObject({
      kind: "ai_agent",
      access: "application",
      agentSource: "agent_registry",
    });
    expect(second["agent"]?.xmin).toBe(first["agent"]?.xmin);
    expect(second["plain"]?.xmin).toBe(first["plain"]?.xmin);
    await scanWith([], new Date(), []);
  });
});

describe("when each finding was last seen", () => {
  it("moves with every scan that saw it, full or incremental, and stops where it was last seen", async () => {
    const [c] = await db.db
      .insert(connectors)
      .values({ orgId, type: "google_workspace", displayName: "Seen", mode: "demo" })
      .returning();
    const seenConnector = { id: c?.id ?? "", type: "google_workspace", displayName: "Seen" };
    const scanAt = async (at: string, detected: TDetectedFinding[], fileScope?: string[]) => {
      const [scan] = await db.db
        .insert(scans)
        .values({
          orgId,
          connectorId: seenConnector.id,
          connectorName: "Seen",
          trigger: "manual",
          status: "RUNNING",
        })
        .returning();
      const runId = newId("run");
      const stage = stageDetections((statement) => statement(db.db), { scanId: scan?.id ?? "", runId });
      await stage.add(detected);
      await stage.flush();
      await persistScan(db.db, {
        scanId: scan?.id ?? "",
        orgId,
        connector: seenConnector,
        runId,
        grants: [],
        resourceCount: detected.length,
        fileScope,
        now: new Date(at),
      });
    };
    const lastSeen = async () => {
      const out = new Map<string, [string, string]>();
      for await (const batch of exportBatches(db.db, {
        orgId,
        filters: { status: "all" },
        cutoff: "2100-01-01T00:00:00.000Z",
      }))
        for (const f of batch)
          if (f.view.connectorId === seenConnector.id) out.set(f.resourceId, [f.view.status, f.lastSeenAt]);
      return Object.fromEntries(out);
    };

    await scanAt("2026-01-05T10:00:00.000Z", [
      detection("p", "HIGH"),
      detection("q", "LOW"),
      detection("r", "LOW"),
    ]);
    await db.db
      .update(findings)
      .set({ status: "ACCEPTED" })
      .where(and(eq(findings.connectorId, seenConnector.id), eq(findings.resourceId, "r")));
    // A week on, a full scan sees p and r again; q is gone.
    await scanAt("2026-01-12T10:00:00.000Z", [detection("p", "HIGH"), detection("r", "LOW")]);
    expect(await lastSeen()).toEqual({
      p: ["OPEN", "2026-01-12T10:00:00.000Z"],
      q: ["RESOLVED", "2026-01-05T10:00:00.000Z"],
      r: ["ACCEPTED", "2026-01-12T10:00:00.000Z"],
    });
    // An incremental scan of file s only: p and r are on files it confirmed unchanged.
    await scanAt("2026-01-19T10:00:00.000Z", [detection("s", "LOW")], ["s"]);
    expect(await lastSeen()).toEqual({
      p: ["OPEN", "2026-01-19T10:00:00.000Z"],
      q: ["RESOLVED", "2026-01-05T10:00:00.000Z"],
      r: ["ACCEPTED", "2026-01-19T10:00:00.000Z"],
      s: ["OPEN", "2026-01-19T10:00:00.000Z"],
    });
    // A full scan that no longer detects p nor r: p resolves, last seen the week before; the
    // accepted r stays accepted, last seen the week before too.
    await scanAt("2026-01-26T10:00:00.000Z", [detection("s", "LOW")]);
    expect(await lastSeen()).toEqual({
      p: ["RESOLVED", "2026-01-19T10:00:00.000Z"],
      q: ["RESOLVED", "2026-01-05T10:00:00.000Z"],
      r: ["ACCEPTED", "2026-01-19T10:00:00.000Z"],
      s: ["OPEN", "2026-01-26T10:00:00.000Z"],
    });
  });
});
