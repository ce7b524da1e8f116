import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  changeCursors,
  connectors,
  findings,
  organizations,
  scans,
  trustedDomains,
  workspaceFiles,
  workspaceGroups,
} from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { createInProcessQueue } from "@posture/jobs";
import { createLogger, parseEncryptionKey } from "@posture/platform";
import { computeOrgPosture, type TScanResult } from "@posture/posture";
import { BEHAVIOUR_REFRESH_JOB } from "@posture/ueba";
import { planScan } from "./cursor";
import { ACTIVITY_JOB, runScanJob, type TScanDeps } from "./index";
import {
  applySampleChanges,
  createScriptedTenant,
  DOMAIN,
  sampleUser,
  sampleFile,
  sampleSeed,
  storeAndFindingsOf,
  type TScriptedTenant,
} from "./testing";

// Incremental scans against the real database: a tenant read through its change feed must end up
// exactly where a full read of the same state ends up (store rows, findings, score), whatever
// happened on the way (expired cursors, a feed dying mid-read, a scanner killed between the
// snapshot and the findings). Each case compares connector A (scanned incrementally) with
// connector B of another organization (the same tenant, scanned in full).

let db: TestDb;
const tenants = new Map<string, TScriptedTenant>();
const encryptionKey = parseEncryptionKey(randomBytes(32).toString("hex"));

function deps(): TScanDeps {
  return {
    db: db.db,
    // The activity ingestion and behaviour refresh a scan queues are jobs of their own, not under test here.
    jobs: createInProcessQueue({
      [ACTIVITY_JOB]: { handler: async () => {}, attempts: 1, backoffMs: 0 },
      [BEHAVIOUR_REFRESH_JOB]: { handler: async () => {}, attempts: 1, backoffMs: 0 },
    }),
    runtime: { encryptionKey, publicUrl: "http://localhost", webhookAllowPrivateTargets: false },
    log: createLogger("warn"),
    adapterFor: (c) => {
      const tenant = tenants.get(c.id);
      if (!tenant) throw new Error(`no scripted tenant for ${c.id}`);
      return tenant.adapter;
    },
    tenantChecks: () => [],
  };
}

type TSide = { orgId: string; connectorId: string; tenant: TScriptedTenant };

async function side(name: string, files?: number): Promise<TSide> {
  const [org] = await db.db.insert(organizations).values({ name, plan: "business" }).returning();
  if (!org) throw new Error("no org");
  const [c] = await db.db
    .insert(connectors)
    .values({ orgId: org.id, type: "google_workspace", displayName: name, mode: "real" })
    .returning();
  if (!c) throw new Error("no connector");
  const tenant = createScriptedTenant(sampleSeed(files));
  tenants.set(c.id, tenant);
  return { orgId: org.id, connectorId: c.id, tenant };
}

async function createScan(s: TSide, full = false): Promise<string> {
  const [row] = await db.db
    .insert(scans)
    .values({
      orgId: s.orgId,
      connectorId: s.connectorId,
      connectorName: "scripted",
      trigger: "manual",
      ...(full ? { kind: "full" as const, fullReason: "requested" as const } : {}),
    })
    .returning();
  if (!row) throw new Error("no scan");
  return row.id;
}

async function scan(s: TSide, opts: { full?: boolean } = {}): Promise<TScanResult> {
  return runScanJob(deps(), await createScan(s, opts.full), 1);
}

async function expectSame(a: TSide, b: TSide) {
  const [left, right] = [
    await storeAndFindingsOf(db.db, a.connectorId),
    await storeAndFindingsOf(db.db, b.connectorId),
  ];
  expect(left.files.length).toBeGreaterThan(0);
  expect(left.findings.length).toBeGreaterThan(0);
  expect(left).toEqual(right);
  const posture = async (orgId: string) => {
    // Finding ids differ between the two connectors; what the improvements do must not.
    const { quickWins, topImprovements, ...rest } = await computeOrgPosture(db.db, { orgId });
    const wins = quickWins
      .map((w) => [w.action, w.title, w.scoreDelta, w.findingIds.length].join("|"))
      .sort();
    return { ...rest, wins, improvements: topImprovements.map((t) => t.scoreDelta) };
  };
  expect(await posture(a.orgId)).toEqual(await posture(b.orgId));
}

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.drop();
});

describe("incremental scans", () => {
  it("reads the changes of files, permissions, users, drives and grants into the same store, findings and score as a full read", async () => {
    const a = await side("Incremental");
    const b = await side("Full");
    const first = await scan(a);
    expect(first).toMatchObject({ status: "COMPLETE", kind: "full", fullReason: "first" });

    applySampleChanges(a.tenant);
    applySampleChanges(b.tenant);
    const fed = a.tenant.reads();
    const inc = await scan(a);
    expect(inc).toMatchObject({ status: "COMPLETE", kind: "incremental", fullReason: null });
    // Only the changed files went through the rules: 7 files, one of them reported twice.
    expect(a.tenant.reads() - fed).toBe(8);
    expect(inc.findingsNew).toBeGreaterThan(0);
    expect(inc.findingsResolved).toBeGreaterThan(0);

    const full = await scan(b, { full: true });
    expect(full).toMatchObject({ kind: "full", fullReason: "requested" });
    await expectSame(a, b);
    expect(inc.postureScore).toBe(full.postureScore);
    expect(inc.resources).toBe(full.resources);

    // A full rescan of A finds nothing the incremental one missed.
    const check = await scan(a, { full: true });
    expect(check).toMatchObject({
      kind: "full",
      fullReason: "requested",
      findingsNew: 0,
      findingsResolved: 0,
    });
    await expectSame(a, b);

    // Nothing changed: an incremental scan that reads no file and changes nothing.
    const quiet = await scan(a);
    expect(quiet).toMatchObject({ kind: "incremental", findingsNew: 0, findingsResolved: 0 });
    // It wrote no snapshot row, so the store's snapshot is older than the cursor: not "ahead" of
    // the findings (which would send every later scan looking for orphaned findings).
    const plan = await planScan(db.db, {
      connectorId: a.connectorId,
      adapter: a.tenant.adapter,
      fullRequested: false,
    });
    expect(plan).toMatchObject({ kind: "incremental", storeAhead: false });
  });

  it("falls back to a full read when the cursor expired, and says so", async () => {
    const a = await side("Expired");
    const b = await side("Expired reference");
    await scan(a);
    applySampleChanges(a.tenant);
    applySampleChanges(b.tenant);
    a.tenant.expireCursors();
    const fed = a.tenant.reads();
    const result = await scan(a);
    expect(result).toMatchObject({ status: "COMPLETE", kind: "full", fullReason: "cursor_expired" });
    expect(a.tenant.reads()).toBe(fed);
    await scan(b, { full: true });
    await expectSame(a, b);
    // The full read stored a fresh cursor: the next scan is incremental again.
    a.tenant.putFile(sampleFile(3, { permissions: [] }));
    b.tenant.putFile(sampleFile(3, { permissions: [] }));
    expect(await scan(a)).toMatchObject({ kind: "incremental", findingsResolved: 1 });
    await scan(b, { full: true });
    await expectSame(a, b);
  });

  it("a feed that dies mid-read is read again from the same cursor on retry", async () => {
    const a = await side("Dies mid-read");
    const b = await side("Dies reference");
    await scan(a);
    applySampleChanges(a.tenant);
    applySampleChanges(b.tenant);
    a.tenant.failFeedAfter(4);
    const scanId = await createScan(a);
    await expect(runScanJob(deps(), scanId, 1)).rejects.toThrow(/died after 4 changes/);
    const retried = await runScanJob(deps(), scanId, 2);
    expect(retried).toMatchObject({ status: "COMPLETE", kind: "incremental" });
    await scan(b, { full: true });
    await expectSame(a, b);
  });

  it("a scanner killed between the snapshot and the findings loses and duplicates no change on retry", async () => {
    const a = await side("Killed");
    const b = await side("Killed reference");
    await scan(a);
    const [before] = await db.db
      .select()
      .from(changeCursors)
      .where(eq(changeCursors.connectorId, a.connectorId));
    applySampleChanges(a.tenant);
    applySampleChanges(b.tenant);
    // The findings transaction dies once: the store's snapshot has committed, the cursor has not.
    await db.db.execute(
      sql.raw(`
      CREATE SEQUENCE kill_once;
      CREATE FUNCTION kill_once() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF nextval('kill_once') = 1 THEN RAISE EXCEPTION 'scanner killed'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER kill_once BEFORE INSERT OR UPDATE ON change_cursors FOR EACH ROW EXECUTE FUNCTION kill_once();`),
    );
    try {
      const scanId = await createScan(a);
      const killed = await runScanJob(deps(), scanId, 1).then(
        () => null,
        (err: unknown) => err,
      );
      expect(killed instanceof Error && String((killed.cause as Error | undefined)?.message)).toBe(
        "scanner killed",
      );
      const [kept] = await db.db
        .select()
        .from(changeCursors)
        .where(eq(changeCursors.connectorId, a.connectorId));
      expect(kept).toEqual(before);
      const retried = await runScanJob(deps(), scanId, 2);
      expect(retried).toMatchObject({ status: "COMPLETE", kind: "incremental" });
      const full = await scan(b, { full: true });
      // The retry reports what one uninterrupted scan would have: nothing twice, nothing lost.
      const reference = await side("Uninterrupted");
      await scan(reference);
      applySampleChanges(reference.tenant);
      const uninterrupted = await scan(reference);
      expect([retried.findingsNew, retried.findingsResolved]).toEqual([
        uninterrupted.findingsNew,
        uninterrupted.findingsResolved,
      ]);
      expect(retried.postureScore).toBe(full.postureScore);
    } finally {
      await db.db.execute(
        sql.raw(
          `DROP TRIGGER kill_once ON change_cursors; DROP FUNCTION kill_once(); DROP SEQUENCE kill_once;`,
        ),
      );
    }
    await expectSame(a, b);
  });

  it("reads everything again when the trusted domains changed", async () => {
    const a = await side("Trusted");
    await scan(a);
    await db.db.insert(trustedDomains).values({ orgId: a.orgId, domain: "partner.example" });
    expect(await scan(a)).toMatchObject({ kind: "full", fullReason: "rules_changed" });
    expect(await scan(a)).toMatchObject({ kind: "incremental" });
  });

  it("keeps reach exact: an org-wide file follows the people count; a changed group makes the scan full", async () => {
    const a = await side("Reach");
    const groups = [{ id: "g-all", email: `all@${DOMAIN}`, name: "All", memberCount: 5 }];
    a.tenant.adapter.groups = async function* () {
      yield* groups;
    };
    a.tenant.putFile(
      sampleFile(900, {
        name: "Salaries.xlsx",
        permissions: [
          { id: "owner-900", type: "user", role: "owner", emailAddress: `user1@${DOMAIN}` },
          {
            id: "org",
            type: "domain",
            role: "reader",
            domain: DOMAIN,
            link: { expiresAt: null, discoverable: false },
          },
        ],
      }),
    );
    a.tenant.putFile(
      sampleFile(901, {
        permissions: [
          { id: "owner-901", type: "user", role: "owner", emailAddress: `user1@${DOMAIN}` },
          { id: "grp", type: "group", role: "reader", emailAddress: `all@${DOMAIN}` },
        ],
      }),
    );
    expect(await scan(a)).toMatchObject({ kind: "full" });
    const reachOf = async (id: string) => {
      const [row] = await db.db
        .select({ people: workspaceFiles.reachPeople, orgWide: workspaceFiles.reachOrgWide })
        .from(workspaceFiles)
        .where(
          sql`${workspaceFiles.connectorId} = ${a.connectorId} AND ${workspaceFiles.externalId} = ${id}`,
        );
      return row;
    };
    // Eight sample users, all active; f901: its owner (user3), user1 and the group's 5 (count only).
    expect(await reachOf("f900")).toEqual({ people: 8, orgWide: true });
    expect(await reachOf("f901")).toEqual({ people: 7, orgWide: false });
    expect(
      (await db.db.select().from(workspaceGroups).where(eq(workspaceGroups.connectorId, a.connectorId))).map(
        (g) => [g.externalId, g.email, g.memberCount],
      ),
    ).toEqual([["g-all", `all@${DOMAIN}`, 5]]);
    const [link] = await db.db
      .select({ rule: findings.ruleId, severity: findings.severity, details: findings.details })
      .from(findings)
      .where(sql`${findings.connectorId} = ${a.connectorId} AND ${findings.ruleId} = 'org_wide_link'`);
    expect(link).toMatchObject({ severity: "HIGH", details: { reach: { people: 8, orgWide: true } } });

    // Two people join; no file changes: the incremental scan moves the org-wide file's reach.
    a.tenant.putUser(sampleUser(20));
    a.tenant.putUser(sampleUser(21));
    expect(await scan(a)).toMatchObject({ kind: "incremental" });
    expect(await reachOf("f900")).toEqual({ people: 10, orgWide: true });
    expect(await reachOf("f901")).toEqual({ people: 7, orgWide: false });

    // The group grows: every file granted to it may reach more people, so the scan reads in full.
    groups[0] = { id: "g-all", email: `all@${DOMAIN}`, name: "All", memberCount: 9 };
    expect(await scan(a)).toMatchObject({ kind: "full", fullReason: "rules_changed" });
    expect(await reachOf("f901")).toEqual({ people: 11, orgWide: false });
  });
});
