import { createHash } from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  agentIdOf,
  connectors,
  findings,
  oauthGrants,
  workspaceFiles,
  workspacePermissions,
  workspaceUsers,
  type TSeverity,
} from "@posture/db";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// GET /api/exposure/ai and /api/exposure/ai/files on an organization whose resource store and
// findings are inserted row by row, so every number is known: 20 Microsoft files (two org-wide),
// 10 Google files, Copilot users alice and bob, Gemini user erin, an application-wide agent and a
// delegated one, and four internal-exposure findings (CRITICAL, HIGH org-wide links; a MEDIUM
// everyone grant; a LOW broad-group grant).

const gw = useTestGateway();
let owner: Awaited<ReturnType<typeof gw.createActor>>;
const M = "con_ai_ms";
const G = "con_ai_gw";
const get = (path: string, cookie = owner.cookie) => gw.request("GET", path, { cookie, ip: freshIp() });

type TExposure = {
  score: number;
  grade: string;
  assistants: Array<Record<string, unknown> & { id: string; kind: string; reachableFiles: number }>;
  quickWins: Array<{
    action: string;
    title: string;
    findingIds: string[];
    findingCount: number;
    readinessDelta: number;
    predictedScore: number;
    predictedPostureScore: number | null;
    plan: unknown;
  }>;
  summary: { files: number; points: number; findings: Record<TSeverity, number> };
};

const fileId = (c: string, ext: string) => `wsf_${c}_${ext}`;
const FINDINGS: Array<[ext: string, rule: string, severity: TSeverity]> = [
  ["f00", "org_wide_link", "CRITICAL"],
  ["f01", "org_wide_link", "HIGH"],
  ["f02", "org_wide_grant", "MEDIUM"],
  ["f03", "broad_group_grant", "LOW"],
];
const RANK: Record<TSeverity, number> = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1 };

beforeAll(async () => {
  owner = await gw.createActor({ plan: "business", role: "OWNER" });
  const db = gw.db.db;
  const orgId = owner.orgId;
  await db.insert(connectors).values([
    { id: M, orgId, type: "microsoft_365", displayName: "M365", mode: "demo" },
    { id: G, orgId, type: "google_workspace", displayName: "GW", mode: "demo" },
  ]);
  const user = (connectorId: string, email: string, assistants: string[]) => ({
    orgId,
    connectorId,
    externalId: email,
    email,
    name: email,
    isAdmin: false,
    mfaEnabled: true,
    status: "active" as const,
    dormant: false,
    assistants,
  });
  await db
    .insert(workspaceUsers)
    .values([
      user(M, "alice@acme.test", ["copilot"]),
      user(M, "bob@acme.test", ["copilot"]),
      user(M, "carol@acme.test", []),
      user(G, "erin@acme.test", ["gemini"]),
    ]);
  const file = (
    connectorId: string,
    ext: string,
    o: { owner: string; high?: boolean; reach?: number; orgWide?: boolean },
  ) => ({
    id: fileId(connectorId, ext),
    orgId,
    connectorId,
    externalId: ext,
    name: `${ext}.xlsx`,
    mimeType: "application/vnd.ms-excel",
    ownerEmail: o.owner,
    sensitivity: o.high ? ("high" as const) : ("low" as const),
    labels: o.high ? ["Highly Confidential"] : [],
    exposure: o.orgWide ? ("internal" as const) : ("private" as const),
    modifiedAt: new Date("2026-11-01T00:00:00Z"),
    reachPeople: o.reach ?? 1,
    reachOrgWide: o.orgWide ?? false,
  });
  const ms = Array.from({ length: 20 }, (_, i) => {
    const ext = `f${String(i).padStart(2, "0")}`;
    if (i === 0) return file(M, ext, { owner: "carol@acme.test", high: true, reach: 50, orgWide: true });
    if (i === 1) return file(M, ext, { owner: "carol@acme.test", high: true, reach: 40, orgWide: true });
    if (i === 4) return file(M, ext, { owner: "alice@acme.test", high: true });
    if (i === 5 || i === 6) return file(M, ext, { owner: "alice@acme.test" });
    return file(M, ext, { owner: "carol@acme.test" });
  });
  const gs = Array.from({ length: 10 }, (_, i) =>
    file(G, `g${String(i).padStart(2, "0")}`, { owner: "erin@acme.test", high: i === 0 }),
  );
  await db.insert(workspaceFiles).values([...ms, ...gs]);
  await db.insert(workspacePermissions).values({
    id: "wsp_ai_1",
    orgId,
    connectorId: M,
    fileId: fileId(M, "f07"),
    externalId: "p1",
    sharingType: "internal",
    target: "bob@acme.test",
    role: "reader",
  });
  const grant = (
    connectorId: string,
    ext: string,
    label: string,
    userEmail: string,
    access: "application" | "delegated",
  ) => ({
    orgId,
    connectorId,
    externalId: ext,
    clientId: `client-${ext}`,
    label,
    kind: "ai_agent" as const,
    publisher: "Agents Inc",
    isKnownPublisher: false,
    scopes: ["Files.Read.All"],
    userEmail,
    grantedAt: new Date("2026-10-01T00:00:00Z"),
    access,
  });
  await db
    .insert(oauthGrants)
    .values([
      grant(M, "a1", "Indexer Agent", "admin@acme.test", "application"),
      grant(G, "a2", "Notes Agent", "erin@acme.test", "delegated"),
    ]);
  await db.insert(findings).values(
    FINDINGS.map(([ext, rule, severity]) => ({
      orgId,
      connectorId: M,
      connectorType: "microsoft_365",
      fingerprint: createHash("sha256").update(`${rule}${ext}`).digest("hex"),
      ruleId: rule,
      category: "internal_exposure",
      severity,
      severityRank: RANK[severity],
      title: `${rule} on ${ext}`,
      resourceId: ext,
      resourceName: `${ext}.xlsx`,
      resourceType: "file",
      details: {},
    })),
  );
});

const exposure = async () => {
  const res = await get("/api/exposure/ai");
  expect(res.status).toBe(200);
  return res.body as TExposure;
};

describe("GET /api/exposure/ai", () => {
  it("scores readiness from the open internal-exposure findings against the files", async () => {
    const e = await exposure();
    // points 8 + 4 + 2 + 1 = 15; round(100·30 / (30 + 5·15)) = 29.
    expect(e.summary).toEqual({
      files: 30,
      points: 15,
      findings: { CRITICAL: 1, HIGH: 1, MEDIUM: 1, LOW: 1 },
    });
    expect([e.score, e.grade]).toEqual([29, "F"]);
  });

  it("shows each assistant's and agent's reach by sensitivity and exposure, with its worst files", async () => {
    const e = await exposure();
    const byId = new Map(e.assistants.map((a) => [a.id, a]));
    expect(
      e.assistants.map((a) => [a.kind, a.label, a.reachableFiles, a.sensitiveReachableFiles, a.users]),
    ).toEqual([
      ["copilot", "Microsoft 365 Copilot", 6, 3, 2],
      ["gemini", "Gemini for Google Workspace", 10, 1, 1],
      ["agent", "Indexer Agent", 20, 3, 1],
      ["agent", "Notes Agent", 10, 1, 1],
    ]);
    const copilot = byId.get("copilot");
    expect(copilot).toMatchObject({
      orgWideFiles: 2,
      bySensitivity: { high: 3, medium: 0, low: 3 },
      byExposure: { public: 0, external: 0, internal: 2, private: 4 },
    });
    expect((copilot?.worstFiles as Array<{ name: string }>).map((f) => f.name)).toEqual([
      "f00.xlsx",
      "f01.xlsx",
      "f04.xlsx",
      "f05.xlsx",
      "f06.xlsx",
    ]);
    expect(byId.get(agentIdOf(M, "client-a1"))).toMatchObject({ access: "application", connectorId: M });
    expect(byId.get(agentIdOf(G, "client-a2"))).toMatchObject({ access: "delegated", connectorId: G });
  });

  it("offers the three quick wins with their predicted readiness and posture scores", async () => {
    const e = await exposure();
    const ids = async (rule: string) =>
      (await gw.db.db.select({ id: findings.id }).from(findings).where(eq(findings.ruleId, rule))).map(
        (r) => r.id,
      );
    const links = await ids("org_wide_link");
    const [critical] = await gw.db.db
      .select({ id: findings.id })
      .from(findings)
      .where(eq(findings.severity, "CRITICAL"));
    expect(
      e.quickWins.map((q) => [q.plan, q.action, q.title, q.findingCount, q.readinessDelta, q.predictedScore]),
    ).toEqual([
      // round(3000 / (30 + 15)) = 67; round(3000 / 95) = 32; round(3000 / 100) = 30.
      [{ quickWin: "org_wide_links" }, "remove_org_wide_link", "Remove 2 organization-wide links", 2, 38, 67],
      [
        { quickWin: "everyone_grants" },
        "remove_everyone_grant",
        "Remove 1 grant to everyone in the organization",
        1,
        3,
        32,
      ],
      [
        { quickWin: "broad_group_grants" },
        "remove_group_grant",
        "Remove 1 grant to very large groups",
        1,
        1,
        30,
      ],
    ]);
    // Worst first.
    expect(e.quickWins[0]?.findingIds).toEqual([critical?.id, ...links.filter((id) => id !== critical?.id)]);
    expect(e.quickWins[1]?.findingIds).toEqual(await ids("org_wide_grant"));
    // The posture score the what-if of the same findings gives.
    const sim = await gw.request("POST", "/api/posture/simulate", {
      cookie: owner.cookie,
      ip: freshIp(),
      body: { findingIds: e.quickWins[0]?.findingIds },
    });
    expect(sim.status).toBe(200);
    expect(e.quickWins[0]?.predictedPostureScore).toBe((sim.body as { score: number }).score);
  });

  it("rises by exactly the predicted delta when the quick win's findings are resolved, and falls back on undo", async () => {
    const before = await exposure();
    const win = before.quickWins[0];
    expect(win).toBeDefined();
    // Written to the database directly: the read caches are told, as for any out-of-band change.
    const resolve = async (status: "RESOLVED" | "OPEN") => {
      await gw.db.db
        .update(findings)
        .set({ status })
        .where(inArray(findings.id, win?.findingIds ?? []));
      await gw.publishDataChanges();
    };
    await resolve("RESOLVED");
    try {
      const after = await exposure();
      expect(after.score).toBe(before.score + (win?.readinessDelta ?? NaN));
      expect(after.score).toBe(win?.predictedScore);
      expect(after.quickWins.map((q) => q.plan)).toEqual([
        { quickWin: "everyone_grants" },
        { quickWin: "broad_group_grants" },
      ]);
    } finally {
      await resolve("OPEN");
    }
    expect((await exposure()).score).toBe(before.score);
  });

  it("is ADMIN+ and business+", async () => {
    const member = await gw.createActor({ plan: "business", role: "member", orgId: owner.orgId });
    expect((await get("/api/exposure/ai", member.cookie)).status).toBe(403);
    const team = await gw.createActor({ plan: "team", role: "OWNER" });
    const res = await get("/api/exposure/ai", team.cookie);
    expect(res.status).toBe(402);
    expect((res.body as { error: string }).error).toBe("plan_upgrade_required");
    // An API key works too.
    const byKey = await gw.request("GET", "/api/exposure/ai", { key: owner.key, ip: freshIp() });
    expect(byKey.status).toBe(200);
  });
});

describe("GET /api/exposure/ai/files", () => {
  type TPage = {
    rows: Array<{ fileId: string; name: string; label: string | null; reach: unknown }>;
    total: number;
    limit: number;
    offset: number;
  };
  const page = async (q: string) => {
    const res = await get(`/api/exposure/ai/files${q}`);
    expect(res.status).toBe(200);
    return res.body as TPage;
  };

  it("pages an assistant's files, most sensitive and widest first", async () => {
    const first = await page("?assistant=copilot&limit=2");
    expect(first).toMatchObject({ total: 6, limit: 2, offset: 0 });
    expect(first.rows).toEqual([
      expect.objectContaining({
        fileId: fileId(M, "f00"),
        name: "f00.xlsx",
        label: "Highly Confidential",
        reach: { people: 50, orgWide: true },
      }),
      expect.objectContaining({ fileId: fileId(M, "f01"), reach: { people: 40, orgWide: true } }),
    ]);
    const seen: string[] = [];
    for (let offset = 0; offset < 6; offset += 4)
      seen.push(...(await page(`?assistant=copilot&limit=4&offset=${offset}`)).rows.map((r) => r.name));
    expect(seen).toEqual(["f00.xlsx", "f01.xlsx", "f04.xlsx", "f05.xlsx", "f06.xlsx", "f07.xlsx"]);
    // Without `assistant`: what either assistant's users can open (6 + 10).
    expect((await page("")).total).toBe(16);
    expect((await page(`?assistant=${agentIdOf(M, "client-a1")}`)).total).toBe(20);
    // The delegated agent reads as erin, Gemini's one user: the same stored files, page by page.
    const notes = agentIdOf(G, "client-a2");
    const gemini = await page("?assistant=gemini&limit=50");
    expect(gemini.total).toBe(10);
    expect(await page(`?assistant=${notes}&limit=50`)).toEqual(gemini);
    expect(await page(`?assistant=${notes}&limit=3&offset=3`)).toEqual(
      await page("?assistant=gemini&limit=3&offset=3"),
    );
  });

  it("filters by the severity of the files' open internal-exposure findings", async () => {
    const critical = await page("?severity=CRITICAL");
    expect(critical.rows.map((r) => r.name)).toEqual(["f00.xlsx"]);
    expect(critical.total).toBe(1);
    // f03's LOW finding: a file no assistant user can open is not listed.
    expect((await page("?severity=LOW")).total).toBe(0);
  });

  it("answers bad input with a 4xx", async () => {
    expect((await get("/api/exposure/ai/files?assistant=agt_unknown")).status).toBe(404);
    expect((await get("/api/exposure/ai/files?severity=SEVERE")).status).toBe(400);
    expect((await get("/api/exposure/ai/files?limit=0")).status).toBe(400);
    expect((await get("/api/exposure/ai/files?limit=201")).status).toBe(400);
    expect((await get("/api/exposure/ai/files?colour=red")).status).toBe(400);
  });
});
