import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../client";
import {
  connectors,
  oauthGrants,
  organizations,
  workspaceFiles,
  workspaceGroups,
  workspacePermissions,
  workspaceSnapshots,
  workspaceUsers,
} from "../schema";
import { createTestDb, type TestDb } from "../testing";
import { agentIdOf, reachCounts, reachPage, type TReachWho } from "./index";
import { ANY_ASSISTANT, computeAiReach, refreshAiReach } from "./materialise";

// The stored AI reach (one pass per connector) against the live reach (one pass per subject) on a
// store where every way of opening a file appears: owner, direct grant, a listed group, the
// internal domain, a public link, the org-wide flag; a delegated agent, an application agent;
// more org-wide files than the worst five, so the worst files merge both sets.

let db: TestDb;
const ORG = "org_mat";
const M = "con_mat";

type TFile = [
  id: string,
  owner: string,
  sensitivity: "high" | "medium" | "low",
  reach: number,
  orgWide: boolean,
];
const FILES: TFile[] = [
  ["a1", "alice@acme.com", "high", 1, false],
  ["a2", "carol@acme.com", "high", 900, false],
  ["a3", "carol@acme.com", "medium", 3, false],
  ["a4", "carol@acme.com", "low", 2, false],
  ["a5", "carol@acme.com", "high", 500, false],
  ...Array.from({ length: 6 }, (_, i): TFile => [
    `o${i}`,
    "carol@acme.com",
    i < 3 ? "high" : "low",
    40,
    true,
  ]),
  ["p1", "carol@acme.com", "low", 40, false],
  ["d1", "carol@acme.com", "medium", 40, false],
];

beforeAll(async () => {
  db = await createTestDb();
  await db.db.insert(organizations).values({ id: ORG, name: "Mat" });
  await db.db
    .insert(connectors)
    .values({ id: M, orgId: ORG, type: "microsoft_365", displayName: "M", mode: "demo" });
  const user = (email: string, assistants: string[]) => ({
    orgId: ORG,
    connectorId: M,
    externalId: email,
    email,
    name: email,
    isAdmin: false,
    mfaEnabled: true,
    status: "active" as const,
    dormant: false,
    assistants,
  });
  await db.db
    .insert(workspaceUsers)
    .values([
      user("alice@acme.com", ["copilot"]),
      user("bob@acme.com", ["copilot"]),
      user("carol@acme.com", []),
    ]);
  await db.db.insert(workspaceGroups).values({
    orgId: ORG,
    connectorId: M,
    externalId: "g-fin",
    email: "finance@acme.com",
    name: "Finance",
    memberCount: 2,
    memberEmails: ["bob@acme.com", "carol@acme.com"],
  });
  await db.db.insert(workspaceFiles).values(
    FILES.map(([id, owner, sensitivity, reach, orgWide]) => ({
      id,
      orgId: ORG,
      connectorId: M,
      externalId: id,
      name: `${id}.docx`,
      mimeType: "application/msword",
      ownerEmail: owner,
      sensitivity,
      exposure: orgWide ? ("internal" as const) : ("private" as const),
      modifiedAt: new Date("2026-11-01T00:00:00Z"),
      reachPeople: reach,
      reachOrgWide: orgWide,
    })),
  );
  const perm = (i: number, fileId: string, sharingType: "internal" | "public", target: string) => ({
    id: `p${i}`,
    orgId: ORG,
    connectorId: M,
    fileId,
    externalId: `p${i}`,
    sharingType,
    target,
    role: "reader",
  });
  await db.db
    .insert(workspacePermissions)
    .values([
      perm(1, "a2", "internal", "finance@acme.com"),
      perm(2, "a3", "internal", "bob@acme.com"),
      perm(3, "p1", "public", "anyone"),
      perm(4, "d1", "internal", "acme.com"),
      perm(5, "a5", "internal", "dave@acme.com"),
    ]);
  const grant = (
    externalId: string,
    clientId: string,
    access: "delegated" | "application",
    userEmail: string,
  ) => ({
    orgId: ORG,
    connectorId: M,
    externalId,
    clientId,
    label: clientId,
    kind: "ai_agent" as const,
    publisher: "Bot Inc",
    isKnownPublisher: false,
    scopes: ["Files.Read"],
    access,
    userEmail,
    grantedAt: new Date("2026-10-01T00:00:00Z"),
  });
  await db.db
    .insert(oauthGrants)
    .values([
      grant("gr-1", "bot", "delegated", "Dave@acme.com"),
      grant("gr-2", "crawler", "application", "carol@acme.com"),
    ]);
});
afterAll(async () => {
  await db?.drop();
});

describe("the stored AI reach", () => {
  it("counts and ranks exactly what the live reach does, for every assistant and agent", async () => {
    const subjects = await db.db.transaction((tx) => computeAiReach(tx, { orgId: ORG, connectorId: M }));
    const cases: Array<[string, TReachWho]> = [
      ["copilot", { kind: "assistant", assistants: ["copilot"] }],
      [ANY_ASSISTANT, { kind: "assistant", assistants: ["copilot", "gemini"] }],
      [agentIdOf(M, "bot"), { kind: "grantees", connectorId: M, clientKey: "bot" }],
      [agentIdOf(M, "crawler"), { kind: "all", connectorIds: [M] }],
    ];
    for (const [subject, who] of cases) {
      const stored = subjects.find((s) => s.subject === subject);
      expect(stored?.counts, subject).toEqual(await reachCounts(db.db, ORG, who));
      expect(stored?.worst, subject).toEqual(
        (await reachPage(db.db, ORG, who, { limit: 5, offset: 0 })).rows,
      );
    }
    expect(subjects.find((s) => s.subject === "copilot")).toMatchObject({
      users: 2,
      counts: { total: 11, orgWide: 8 },
    });
    // The worst five: a2 (high, 900 people, through Finance) before the org-wide high files.
    expect(subjects.find((s) => s.subject === "copilot")?.worst.map((w) => w.fileId)).toEqual([
      "a2",
      "o0",
      "o1",
      "o2",
      "a1",
    ]);
  });

  it("stores the assistants' files in page order with the store's version, and a store change moves the version", async () => {
    await db.db.insert(workspaceSnapshots).values({
      connectorId: M,
      orgId: ORG,
      scanId: "scn_1",
      takenAt: new Date(),
      users: 3,
      files: FILES.length,
      drives: 0,
      permissions: 5,
      shares: 0,
      grants: 2,
    });
    // Copilot's 11 files, and a5, which only the delegated agent's granting user (dave) opens.
    expect(await refreshAiReach(db.db, { orgId: ORG, connectorId: M })).toEqual({
      subjects: 4,
      files: 12,
      carried: false,
    });
    const stored = (where: ReturnType<typeof sql>) =>
      queryRows<{ file_id: string }>(
        db.db,
        sql`SELECT file_id FROM ai_reach_files WHERE org_id = ${ORG} AND ${where}
            ORDER BY sens_rank, reach_people DESC, file_id`,
      ).then((rows) => rows.map((r) => r.file_id));
    const live = async (who: TReachWho) =>
      (await reachPage(db.db, ORG, who, { limit: 50, offset: 0 })).rows.map((r) => r.fileId);
    expect(await stored(sql`any_assistant`)).toEqual(
      await live({ kind: "assistant", assistants: ["copilot"] }),
    );
    expect(await stored(sql`'copilot' = ANY(assistants)`)).toEqual(
      await live({ kind: "assistant", assistants: ["copilot"] }),
    );
    // The delegated agent's page is stored too; the application agent's (every file) is not.
    const bot = agentIdOf(M, "bot");
    expect(await stored(sql`${bot} = ANY(assistants)`)).toEqual(
      await live({ kind: "grantees", connectorId: M, clientKey: "bot" }),
    );
    expect(await stored(sql`${agentIdOf(M, "crawler")} = ANY(assistants)`)).toEqual([]);
    const version = async () =>
      (
        await queryRows<{ s: number; v: number }>(
          db.db,
          sql`SELECT s.store_version::int AS s, a.store_version::int AS v FROM workspace_snapshots s
              JOIN ai_reach_summaries a ON a.connector_id = s.connector_id AND a.subject = '*'`,
        )
      )[0];
    expect(await version()).toEqual({ s: 0, v: 0 });
    // What a remediation's store change does (packages/workspace remediate.ts).
    await db.db.execute(sql`DELETE FROM workspace_permissions WHERE id = 'p1'`);
    await db.db.execute(
      sql`UPDATE workspace_snapshots SET permissions = permissions - 1 WHERE connector_id = ${M}`,
    );
    expect(await version()).toEqual({ s: 1, v: 0 });
    // Computed again: p1 lost its public link (no copilot user owns it), and the version is the store's.
    await refreshAiReach(db.db, { orgId: ORG, connectorId: M });
    expect(await version()).toEqual({ s: 1, v: 1 });
    const [n] = await queryRows<{ n: number }>(
      db.db,
      sql`SELECT count(*)::int AS n FROM ai_reach_files WHERE org_id = ${ORG}`,
    );
    // Copilot's 10, and a5 (the delegated agent's).
    expect(n?.n).toBe(11);
  });

  it("carries its rows to a scan's new version when no file changed and the directory is equal, and only then", async () => {
    const stored = async () =>
      (
        await queryRows<{ scan: string | null; v: number; at: string; counts: unknown }>(
          db.db,
          sql`SELECT scan_id AS scan, store_version::int AS v, computed_at::text AS at, counts FROM ai_reach_summaries
              WHERE connector_id = ${M} AND subject = '*'`,
        )
      )[0];
    // What a scan's snapshot does: the row written again with its scan (the trigger moves the version).
    const snapshotBy = async (scanId: string) => {
      const [before] = await queryRows<{ scan: string | null; v: number }>(
        db.db,
        sql`SELECT scan_id AS scan, store_version::int AS v FROM workspace_snapshots WHERE connector_id = ${M}`,
      );
      await db.db.execute(sql`UPDATE workspace_snapshots SET scan_id = ${scanId} WHERE connector_id = ${M}`);
      return {
        before: { scanId: before?.scan ?? null, storeVersion: Number(before?.v) },
        after: { scanId, storeVersion: Number(before?.v) + 1 },
      };
    };
    const first = await stored();
    if (!first) throw new Error("no summary");

    // An unchanged rescan: carried, not computed (computed_at stays), at the new version.
    const unchanged = await snapshotBy("scn_2");
    expect(
      await refreshAiReach(db.db, { orgId: ORG, connectorId: M }, { filesChanged: false, ...unchanged }),
    ).toEqual({ subjects: 4, files: 11, carried: true });
    expect(await stored()).toEqual({ ...first, scan: "scn_2", v: unchanged.after.storeVersion });

    // A scan that changed a file is computed again.
    const filesMoved = await snapshotBy("scn_3");
    const moved = await refreshAiReach(
      db.db,
      { orgId: ORG, connectorId: M },
      { filesChanged: true, ...filesMoved },
    );
    expect(moved.carried).toBe(false);

    // The files unchanged but the directory not: a Copilot licence removed from alice is computed again.
    const licence = await snapshotBy("scn_4");
    await db.db.execute(
      sql`UPDATE workspace_users SET assistants = '{}' WHERE connector_id = ${M} AND email = 'alice@acme.com'`,
    );
    expect(
      (await refreshAiReach(db.db, { orgId: ORG, connectorId: M }, { filesChanged: false, ...licence }))
        .carried,
    ).toBe(false);
    const after = await stored();
    expect(after?.scan).toBe("scn_4");
    // a1, which only alice (owner) opens, leaves the assistants' reach: 10 files, then 9.
    expect([(first.counts as { total: number }).total, (after?.counts as { total: number }).total]).toEqual([
      10, 9,
    ]);

    // The store moved between the snapshot and the refresh (a remediation): computed again.
    const raced = await snapshotBy("scn_5");
    await db.db.execute(sql`UPDATE workspace_snapshots SET shares = shares WHERE connector_id = ${M}`);
    expect(
      (await refreshAiReach(db.db, { orgId: ORG, connectorId: M }, { filesChanged: false, ...raced }))
        .carried,
    ).toBe(false);
  });
});
