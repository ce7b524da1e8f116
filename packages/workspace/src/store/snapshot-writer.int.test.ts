import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSourceAdapter, type TSourceAdapter } from "@posture/connectors";
import {
  connectors,
  flowSummaries,
  organizations,
  workspaceFiles,
  workspacePermissions,
  workspaceShares,
  workspaceSnapshots,
  workspaceUsers,
} from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { sensitivityOf } from "./classify";
import { openWorkspaceSnapshot } from "./snapshot-writer";

let db: TestDb;
let orgId: string;
let connectorId: string;
beforeAll(async () => {
  db = await createTestDb();
  const [org] = await db.db.insert(organizations).values({ name: "Store", plan: "business" }).returning();
  orgId = org?.id ?? "";
  const [c] = await db.db
    .insert(connectors)
    .values({
      orgId,
      type: "google_workspace",
      displayName: "Demo",
      mode: "demo",
      config: { fileCount: 300 },
    })
    .returning();
  connectorId = c?.id ?? "";
});
afterAll(async () => {
  await db.drop();
});

const demo = (revision = 0) =>
  createSourceAdapter({
    type: "google_workspace",
    mode: "demo",
    connectorId,
    credentials: undefined,
    config: { fileCount: 300, revision },
  });

/** What the scan runner does with its single pass over the source, minus the rule engine. */
async function snapshot(adapter: TSourceAdapter, scanId: string, failAfterFiles?: number, now = new Date()) {
  const sink = await openWorkspaceSnapshot(db.db, {
    orgId,
    connectorId,
    scanId,
    now,
    workspace: await adapter.workspace(),
  });
  try {
    for await (const u of adapter.users()) await sink.user(u);
    let n = 0;
    for await (const f of adapter.files()) {
      if (failAfterFiles !== undefined && n++ === failAfterFiles) throw new Error("source went away");
      await sink.file(f);
    }
    for await (const d of adapter.sharedDrives()) await sink.drive(d);
    for await (const g of adapter.appGrants()) await sink.grant(g);
  } catch (err) {
    await sink.abort();
    throw err;
  }
  return sink.commit();
}

const ids = async () =>
  (
    await db.db
      .select({ id: workspaceFiles.id })
      .from(workspaceFiles)
      .where(eq(workspaceFiles.connectorId, connectorId))
  )
    .map((r) => r.id)
    .sort();
const n = async (
  table: typeof workspaceFiles | typeof workspaceUsers | typeof workspacePermissions | typeof workspaceShares,
) => (await db.db.select({ n: count() }).from(table).where(eq(table.connectorId, connectorId)))[0]?.n ?? 0;

describe("resource store snapshots", () => {
  it("stores the whole workspace with counts that match, and ids stable across rescans", async () => {
    const counts = await snapshot(demo(), "scn_1");
    expect(counts.files).toBe(300);
    expect(await n(workspaceFiles)).toBe(300);
    expect(await n(workspaceUsers)).toBe(counts.users);
    expect(await n(workspacePermissions)).toBe(counts.permissions);
    expect(await n(workspaceShares)).toBe(counts.shares);
    const [snap] = await db.db
      .select()
      .from(workspaceSnapshots)
      .where(eq(workspaceSnapshots.connectorId, connectorId));
    expect(snap).toMatchObject({ scanId: "scn_1", files: 300, users: counts.users });
    const first = await ids();
    await snapshot(demo(), "scn_2");
    expect(await ids()).toEqual(first);
    expect(await n(workspaceFiles)).toBe(300);
  });

  it("classifies every permission and never stores the owner's own grant as a share", async () => {
    const perms = await db.db
      .select()
      .from(workspacePermissions)
      .where(eq(workspacePermissions.connectorId, connectorId));
    expect(new Set(perms.map((p) => p.sharingType))).toEqual(
      new Set(["public", "external_user", "external_domain", "internal"]),
    );
    expect(perms.some((p) => p.role === "owner")).toBe(false);
    for (const p of perms) {
      if (p.sharingType === "public") expect(p.target).toBe("anyone");
      if (p.sharingType === "external_user" || p.sharingType === "external_domain")
        expect(p.targetDomain).toBeTruthy();
      if (p.sharingType === "internal") expect(p.targetDomain).toBeNull();
    }
    const files = await db.db
      .select()
      .from(workspaceFiles)
      .where(eq(workspaceFiles.connectorId, connectorId));
    const publicFiles = new Set(perms.filter((p) => p.sharingType === "public").map((p) => p.fileId));
    for (const f of files) expect(f.exposure === "public").toBe(publicFiles.has(f.id));
  });

  it("keeps the previous snapshot whole when a scan fails midway, and readers never see half of one", async () => {
    const before = await ids();
    await expect(snapshot(demo(1), "scn_fail", 150)).rejects.toThrow("source went away");
    expect(await ids()).toEqual(before);
    const [snap] = await db.db
      .select()
      .from(workspaceSnapshots)
      .where(eq(workspaceSnapshots.connectorId, connectorId));
    expect(snap?.scanId).toBe("scn_2");

    // While a snapshot is being written, another connection still reads the old one.
    const adapter = demo(1);
    const sink = await openWorkspaceSnapshot(db.db, {
      orgId,
      connectorId,
      scanId: "scn_3",
      now: new Date(),
      workspace: await adapter.workspace(),
    });
    let written = 0;
    for await (const f of adapter.files()) {
      await sink.file(f);
      if (++written === 200) break;
    }
    expect(await n(workspaceFiles)).toBe(300);
    await sink.abort();
    expect(await ids()).toEqual(before);
  });

  it("stores each file's label, rates sensitivity and shares by it, and follows a relabel on rescan", async () => {
    const source = await collectFiles(demo());
    await snapshot(demo(), "scn_4");
    const stored = await db.db
      .select()
      .from(workspaceFiles)
      .where(eq(workspaceFiles.connectorId, connectorId));
    const byExternal = new Map(stored.map((f) => [f.externalId, f]));
    expect(source.some((f) => f.label)).toBe(true);
    for (const f of source) {
      const row = byExternal.get(f.id);
      expect({ id: f.id, labels: row?.labels, sensitivity: row?.sensitivity }).toEqual({
        id: f.id,
        labels: f.label ? [f.label] : [],
        sensitivity: sensitivityOf(f.name, f.label ? [f.label] : []),
      });
    }

    // Label every exposed file "Highly Confidential": its sharing items become at least HIGH.
    const base = demo();
    const relabelled: TSourceAdapter = {
      ...base,
      files: async function* () {
        for await (const f of base.files())
          yield f.permissions.some((p) => p.type === "anyone") ? { ...f, label: "Highly Confidential" } : f;
      },
    };
    const publicIds = source.filter((f) => f.permissions.some((p) => p.type === "anyone")).map((f) => f.id);
    expect(publicIds.length).toBeGreaterThan(0);
    await snapshot(relabelled, "scn_5");
    const items = await db.db
      .select()
      .from(workspaceShares)
      .where(eq(workspaceShares.connectorId, connectorId));
    const publicItems = items.filter((i) => i.sharingType === "public");
    expect(publicItems.map((i) => i.fileExternalId).sort()).toEqual([...publicIds].sort());
    for (const item of publicItems)
      expect({ s: item.severity, sens: item.sensitivity }).toEqual({ s: "CRITICAL", sens: "high" });
    const [snap] = await db.db
      .select()
      .from(workspaceSnapshots)
      .where(eq(workspaceSnapshots.connectorId, connectorId));
    const metrics = snap?.metrics as Record<string, number>;
    const labelled = source.filter((f) => f.label || publicIds.includes(f.id));
    expect(metrics.filesLabelled).toBe(labelled.length);
    expect(metrics.filesSensitiveLabelled).toBeLessThanOrEqual(metrics.filesSensitive ?? 0);
    expect(metrics.filesSensitiveLabelled).toBeGreaterThanOrEqual(publicIds.length);
  });

  it("never calls a user dormant, or without MFA, when the source could not say", async () => {
    const base = demo();
    const old = new Date(Date.now() - 400 * 86_400_000).toISOString();
    const users = async function* () {
      yield { ...baseUser, id: "u-known", email: "known@x.test", lastLoginAt: null, createdAt: old };
      yield {
        ...baseUser,
        id: "u-unknown",
        email: "unknown@x.test",
        lastLoginAt: null,
        createdAt: old,
        unknown: ["lastLogin" as const, "mfa" as const],
      };
    };
    const baseUser = { name: "U", isAdmin: false, mfaEnabled: true, suspended: false };
    await snapshot(
      {
        ...base,
        users,
        files: async function* () {},
        sharedDrives: async function* () {},
        appGrants: async function* () {},
      },
      "scn_6",
    );
    const rows = await db.db
      .select({
        email: workspaceUsers.email,
        dormant: workspaceUsers.dormant,
        days: workspaceUsers.dormantDays,
        mfa: workspaceUsers.mfaEnabled,
      })
      .from(workspaceUsers)
      .where(eq(workspaceUsers.connectorId, connectorId));
    expect(rows.sort((a, b) => a.email.localeCompare(b.email))).toEqual([
      { email: "known@x.test", dormant: true, days: 400, mfa: true },
      { email: "unknown@x.test", dormant: false, days: null, mfa: null },
    ]);
    const [snap] = await db.db
      .select()
      .from(workspaceSnapshots)
      .where(eq(workspaceSnapshots.connectorId, connectorId));
    expect(snap?.metrics).toMatchObject({ mfaEnabled: 1, mfaUnknown: 1, dormant: 1 });
  });

  it("rebuilds the flow graph after a full rescan only when sharing items or shared drives changed", async () => {
    const builtAt = async () =>
      (await db.db.select().from(flowSummaries).where(eq(flowSummaries.orgId, orgId)))[0]?.builtAt;
    const shares = async () =>
      (
        await db.db
          .select({
            id: workspaceShares.id,
            severity: workspaceShares.severity,
            target: workspaceShares.target,
          })
          .from(workspaceShares)
          .where(eq(workspaceShares.connectorId, connectorId))
      )
        .map((r) => `${r.id} ${r.severity} ${r.target}`)
        .sort();
    const day = 86_400_000;
    const t0 = new Date();
    await snapshot(demo(0), "scn_g1", undefined, t0);
    const first = await builtAt();
    const before = await shares();
    expect(first).toBeDefined();
    // A day on, the same tenant: users' idle days moved (rows written), the sharing items did not.
    const users = async () =>
      (await db.db.select().from(workspaceUsers).where(eq(workspaceUsers.connectorId, connectorId))).map(
        (u) => u.dormantDays,
      );
    const daysBefore = await users();
    await snapshot(demo(0), "scn_g2", undefined, new Date(t0.getTime() + day));
    expect(await users()).not.toEqual(daysBefore);
    expect(await builtAt()).toEqual(first);
    // Revisions on, until one changes sharing items (which one depends on the connector's random
    // id, the demo's seed): that snapshot rebuilds the graph. (One that changed only shared
    // drives rebuilds it too, so earlier steps are not checked.)
    let revision = 0;
    let after = before;
    let built = first;
    while (revision < 100 && JSON.stringify(after) === JSON.stringify(before)) {
      revision++;
      built = await builtAt();
      await snapshot(demo(revision), `scn_g3_${revision}`, undefined, new Date(t0.getTime() + day));
      after = await shares();
    }
    expect(after).not.toEqual(before);
    expect((await builtAt())?.getTime()).toBeGreaterThan(built?.getTime() ?? 0);
  });
});

async function collectFiles(adapter: TSourceAdapter) {
  const out = [];
  for await (const f of adapter.files()) out.push(f);
  return out;
}

describe("assistant licences", () => {
  it("stores each user's assistants as the source reports them", async () => {
    const adapter = demo();
    const licensed = new Set<string>();
    for await (const u of adapter.users())
      if (u.assistants?.includes("gemini")) licensed.add(u.email.toLowerCase());
    await snapshot(adapter, "scan-assistants");
    const rows = await db.db
      .select({ email: workspaceUsers.email, assistants: workspaceUsers.assistants })
      .from(workspaceUsers)
      .where(eq(workspaceUsers.connectorId, connectorId));
    const stored = rows.filter((r) => r.assistants.includes("gemini")).map((r) => r.email);
    expect(stored.sort()).toEqual([...licensed].sort());
    expect(rows.every((r) => r.assistants.length === 0 || r.assistants.join() === "gemini")).toBe(true);
    expect(stored.length).toBe(licensed.size);
  });
});
