import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectors,
  oauthGrants,
  organizations,
  workspaceDrives,
  workspaceFiles,
  workspaceGroups,
  workspacePermissions,
  workspaceUsers,
} from "../schema";
import { createTestDb, type TestDb } from "../testing";
import { reachCounts, reachPage } from "./index";

// One organization with a Microsoft and a Google connector; every way of opening a file appears
// once (owner, direct grant, group, drive, org-wide stored, internal domain, public link), plus the
// ways that must not count (a suspended licensed user, a group whose members were not listed,
// another connector's org-wide file).

let db: TestDb;
const ORG = "org_reach";
const M = "con_ms";
const G = "con_gw";

type TFile = {
  id: string;
  owner: string;
  sensitivity: "high" | "medium" | "low";
  exposure: "public" | "internal" | "private";
  reach?: number;
  orgWide?: boolean;
  drive?: string;
  connectorId?: string;
};
const FILES: TFile[] = [
  { id: "f1", owner: "alice@acme.com", sensitivity: "high", exposure: "private", reach: 1 },
  { id: "f2", owner: "carol@acme.com", sensitivity: "medium", exposure: "internal", reach: 4 },
  { id: "f3", owner: "carol@acme.com", sensitivity: "high", exposure: "internal", reach: 3 },
  { id: "f4", owner: "carol@acme.com", sensitivity: "low", exposure: "private", reach: 2, drive: "site-hr" },
  { id: "f5", owner: "carol@acme.com", sensitivity: "high", exposure: "internal", reach: 40, orgWide: true },
  { id: "f6", owner: "carol@acme.com", sensitivity: "medium", exposure: "internal", reach: 40 },
  { id: "f7", owner: "carol@acme.com", sensitivity: "low", exposure: "public", reach: 40 },
  { id: "f8", owner: "carol@acme.com", sensitivity: "high", exposure: "private", reach: 1 },
  { id: "f9", owner: "carol@acme.com", sensitivity: "high", exposure: "internal", reach: 2 },
  { id: "f10", owner: "carol@acme.com", sensitivity: "high", exposure: "internal", reach: 500 },
  {
    id: "g1",
    owner: "alice@acme.com",
    sensitivity: "high",
    exposure: "internal",
    reach: 30,
    orgWide: true,
    connectorId: G,
  },
];
const PERMS: Array<[fileId: string, type: "internal" | "public", target: string]> = [
  ["f2", "internal", "bob@acme.com"],
  ["f2", "internal", "finance@acme.com"],
  ["f3", "internal", "finance@acme.com"],
  ["f6", "internal", "acme.com"],
  ["f7", "public", "anyone"],
  ["f9", "internal", "dave@acme.com"],
  ["f10", "internal", "all-staff@acme.com"],
];

beforeAll(async () => {
  db = await createTestDb();
  await db.db.insert(organizations).values({ id: ORG, name: "Reach" });
  await db.db.insert(connectors).values([
    { id: M, orgId: ORG, type: "microsoft_365", displayName: "M365", mode: "demo" },
    { id: G, orgId: ORG, type: "google_workspace", displayName: "GW", mode: "demo" },
  ]);
  const user = (
    connectorId: string,
    email: string,
    assistants: string[],
    status: "active" | "suspended" = "active",
  ) => ({
    orgId: ORG,
    connectorId,
    externalId: email,
    email,
    name: email,
    isAdmin: false,
    mfaEnabled: true,
    status,
    dormant: false,
    assistants,
  });
  await db.db
    .insert(workspaceUsers)
    .values([
      user(M, "alice@acme.com", ["copilot"]),
      user(M, "bob@acme.com", ["copilot"]),
      user(M, "carol@acme.com", []),
      user(M, "dave@acme.com", ["copilot"], "suspended"),
      user(G, "alice@acme.com", []),
      user(G, "erin@acme.com", ["gemini"]),
    ]);
  await db.db.insert(workspaceGroups).values([
    {
      orgId: ORG,
      connectorId: M,
      externalId: "g-fin",
      email: "finance@acme.com",
      name: "Finance",
      memberCount: 2,
      memberEmails: ["bob@acme.com", "carol@acme.com"],
    },
    {
      orgId: ORG,
      connectorId: M,
      externalId: "g-all",
      email: "all-staff@acme.com",
      name: "All staff",
      memberCount: 500,
      memberEmails: [],
    },
  ]);
  await db.db.insert(workspaceDrives).values({
    orgId: ORG,
    connectorId: M,
    externalId: "site-hr",
    name: "HR",
    members: [
      { email: "carol@acme.com", role: "organizer", external: false },
      { email: "Alice@Acme.com", role: "reader", external: false },
    ],
    memberCount: 2,
    externalMemberCount: 0,
    domainUsersOnly: true,
    driveMembersOnly: true,
    copyRequiresWriterPermission: false,
    fileCount: 1,
  });
  await db.db.insert(workspaceFiles).values(
    FILES.map((f) => ({
      id: f.id,
      orgId: ORG,
      connectorId: f.connectorId ?? M,
      externalId: f.id,
      name: `${f.id}.docx`,
      mimeType: "application/msword",
      ownerEmail: f.owner,
      driveExternalId: f.drive ?? null,
      sensitivity: f.sensitivity,
      labels: f.id === "f1" ? ["Confidential"] : [],
      exposure: f.exposure,
      modifiedAt: new Date("2026-11-01T00:00:00Z"),
      reachPeople: f.reach ?? 0,
      reachOrgWide: f.orgWide ?? false,
    })),
  );
  await db.db.insert(workspacePermissions).values(
    PERMS.map(([fileId, sharingType, target], i) => ({
      id: `p${i}`,
      orgId: ORG,
      connectorId: M,
      fileId,
      externalId: `p${i}`,
      sharingType,
      target,
      role: "reader",
    })),
  );
  await db.db.insert(oauthGrants).values({
    orgId: ORG,
    connectorId: M,
    externalId: "grant-1",
    clientId: "client-bot",
    label: "Bot",
    kind: "ai_agent",
    publisher: "Bot Inc",
    isKnownPublisher: false,
    scopes: ["Files.Read"],
    userEmail: "Bob@acme.com",
    grantedAt: new Date("2026-10-01T00:00:00Z"),
  });
});
afterAll(async () => {
  await db?.drop();
});

describe("who can open a file", () => {
  it("counts what an assistant's active licensed users can open, in their own connector only", async () => {
    expect(await reachCounts(db.db, ORG, { kind: "assistant", assistants: ["copilot"] })).toEqual({
      total: 7,
      sensitive: 3,
      orgWide: 3,
      bySensitivity: { high: 3, medium: 2, low: 2 },
      byExposure: { public: 1, external: 0, internal: 4, private: 2 },
    });
    expect(await reachCounts(db.db, ORG, { kind: "assistant", assistants: ["gemini"] })).toMatchObject({
      total: 1,
      sensitive: 1,
      orgWide: 1,
    });
  });

  it("reads named people, an app's granting users and everyone", async () => {
    const carol = await reachCounts(db.db, ORG, {
      kind: "users",
      users: [{ connectorId: M, email: "Carol@acme.com" }],
    });
    expect(carol.total).toBe(9);
    const bot = await reachPage(
      db.db,
      ORG,
      { kind: "grantees", connectorId: M, clientKey: "client-bot" },
      { limit: 50, offset: 0 },
    );
    expect(bot.rows.map((r) => r.fileId)).toEqual(["f5", "f3", "f6", "f2", "f7"]);
    expect(bot.total).toBe(5);
    expect((await reachCounts(db.db, ORG, { kind: "all" })).total).toBe(11);
    expect((await reachCounts(db.db, ORG, { kind: "all", connectorIds: [G] })).total).toBe(1);
    expect((await reachCounts(db.db, ORG, { kind: "users", users: [] })).total).toBe(0);
    expect((await reachCounts(db.db, "org_other", { kind: "all" })).total).toBe(0);
  });

  it("pages the files most sensitive and widest first, with exact rows and totals", async () => {
    const who = { kind: "assistant", assistants: ["copilot"] } as const;
    const first = await reachPage(db.db, ORG, who, { limit: 2, offset: 0 });
    expect(first).toEqual({
      total: 7,
      rows: [
        {
          fileId: "f5",
          connectorId: M,
          name: "f5.docx",
          mimeType: "application/msword",
          ownerEmail: "carol@acme.com",
          sensitivity: "high",
          exposure: "internal",
          label: null,
          reach: { people: 40, orgWide: true },
        },
        expect.objectContaining({ fileId: "f3", reach: { people: 3, orgWide: false } }),
      ],
    });
    const last = await reachPage(db.db, ORG, who, { limit: 2, offset: 6 });
    expect(last.rows.map((r) => r.fileId)).toEqual(["f4"]);
    expect((await reachPage(db.db, ORG, who, { limit: 2, offset: 10 })).rows).toEqual([]);
    expect((await reachPage(db.db, ORG, who, { limit: 2, offset: 10 })).total).toBe(7);
    const high = await reachPage(db.db, ORG, who, { limit: 10, offset: 0, sensitivities: ["high"] });
    expect(high.rows.map((r) => [r.fileId, r.label])).toEqual([
      ["f5", null],
      ["f3", null],
      ["f1", "Confidential"],
    ]);
    const only = await reachPage(db.db, ORG, who, { limit: 10, offset: 0, fileIds: ["f7", "f8"] });
    expect(only.rows.map((r) => [r.fileId, r.reach])).toEqual([["f7", { people: 40, orgWide: true }]]);
  });
});
