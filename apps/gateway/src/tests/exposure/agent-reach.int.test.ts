import { beforeAll, describe, expect, it } from "vitest";
import {
  agentIdOf,
  connectors,
  oauthGrants,
  workspaceFiles,
  workspacePermissions,
  workspaceSnapshots,
  workspaceUsers,
} from "@posture/db";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// GET /api/agent-guard/agents/{agentId}/reach and the risk matrix's reach, on inserted rows: one
// Microsoft connector of 30 files (3 highly sensitive), an app-only indexing agent (every file), a
// delegated notes agent granted by bob (his 2 files, a file shared with him and 2 org-wide files)
// and a calendar app whose scopes read no file.

const gw = useTestGateway();
let owner: Awaited<ReturnType<typeof gw.createActor>>;
const M = "con_reach_ms";
const get = (path: string, cookie = owner.cookie) => gw.request("GET", path, { cookie, ip: freshIp() });
const INDEXER = agentIdOf(M, "client-indexer");
const NOTES = agentIdOf(M, "client-notes");
const CALENDAR = agentIdOf(M, "client-calendar");

beforeAll(async () => {
  owner = await gw.createActor({ plan: "team", role: "OWNER" });
  const orgId = owner.orgId;
  const db = gw.db.db;
  await db
    .insert(connectors)
    .values({ id: M, orgId, type: "microsoft_365", displayName: "M365", mode: "demo" });
  await db.insert(workspaceSnapshots).values({
    connectorId: M,
    orgId,
    takenAt: new Date("2026-11-02T00:00:00Z"),
    users: 2,
    files: 30,
    drives: 0,
    permissions: 1,
    shares: 0,
    grants: 3,
  });
  await db.insert(workspaceUsers).values(
    ["alice@acme.test", "bob@acme.test"].map((email) => ({
      orgId,
      connectorId: M,
      externalId: email,
      email,
      name: email,
      isAdmin: false,
      mfaEnabled: true,
      status: "active" as const,
      dormant: false,
    })),
  );
  await db.insert(workspaceFiles).values(
    Array.from({ length: 30 }, (_, i) => ({
      id: `wsf_r_${String(i).padStart(2, "0")}`,
      orgId,
      connectorId: M,
      externalId: `r${i}`,
      name: `file-${String(i).padStart(2, "0")}.docx`,
      mimeType: "application/msword",
      ownerEmail: i < 2 ? "bob@acme.test" : "alice@acme.test",
      sensitivity: i % 10 === 0 ? ("high" as const) : ("low" as const),
      exposure: i === 5 || i === 6 ? ("internal" as const) : ("private" as const),
      modifiedAt: new Date("2026-11-01T00:00:00Z"),
      reachPeople: i === 5 || i === 6 ? 2 : 1,
      reachOrgWide: i === 5 || i === 6,
    })),
  );
  await db.insert(workspacePermissions).values({
    id: "wsp_r_1",
    orgId,
    connectorId: M,
    fileId: "wsf_r_10",
    externalId: "p1",
    sharingType: "internal",
    target: "bob@acme.test",
    role: "reader",
  });
  const grant = (client: string, label: string, scopes: string[], access: "application" | "delegated") => ({
    orgId,
    connectorId: M,
    externalId: `grant-${client}`,
    clientId: `client-${client}`,
    label,
    kind: "ai_agent" as const,
    publisher: "Agents Inc",
    isKnownPublisher: false,
    scopes,
    userEmail: "bob@acme.test",
    grantedAt: new Date("2026-10-01T00:00:00Z"),
    access,
  });
  await db
    .insert(oauthGrants)
    .values([
      grant("indexer", "Indexer", ["Files.Read.All"], "application"),
      grant("notes", "Notes", ["Files.Read"], "delegated"),
      grant("calendar", "Calendar", ["Calendars.Read"], "delegated"),
    ]);
});

type TReach = {
  agentId: string;
  basis: string;
  total: number;
  sensitive: number;
  rows: Array<{ name: string; sensitivity: string; reach: { people: number; orgWide: boolean } }>;
  limit: number;
  offset: number;
};

describe("GET /api/agent-guard/agents/{agentId}/reach", () => {
  it("reads every file of its connector with application access", async () => {
    const res = await get(`/api/agent-guard/agents/${INDEXER}/reach?limit=4`);
    expect(res.status).toBe(200);
    const r = res.body as TReach;
    expect([r.agentId, r.basis, r.total, r.sensitive, r.limit, r.offset]).toEqual([
      INDEXER,
      "application",
      30,
      3,
      4,
      0,
    ]);
    expect(r.rows.map((f) => f.name)).toEqual([
      "file-00.docx",
      "file-10.docx",
      "file-20.docx",
      "file-05.docx",
    ]);
  });

  it("reads what its granting users can open with delegated access, paged", async () => {
    const r = (await get(`/api/agent-guard/agents/${NOTES}/reach`)).body as TReach;
    expect([r.basis, r.total, r.sensitive]).toEqual(["delegated", 5, 2]);
    expect(r.rows.map((f) => f.name)).toEqual([
      "file-00.docx",
      "file-10.docx",
      "file-05.docx",
      "file-06.docx",
      "file-01.docx",
    ]);
    const second = (await get(`/api/agent-guard/agents/${NOTES}/reach?limit=2&offset=4`)).body as TReach;
    expect([second.total, second.rows.map((f) => f.name)]).toEqual([5, ["file-01.docx"]]);
  });

  it("reads nothing when no scope reads files", async () => {
    const r = (await get(`/api/agent-guard/agents/${CALENDAR}/reach`)).body as TReach;
    expect(r).toMatchObject({ basis: "no_file_access", total: 0, sensitive: 0, rows: [] });
  });

  it("answers an unknown agent, bad paging and the wrong caller", async () => {
    expect((await get("/api/agent-guard/agents/agt_unknown/reach")).status).toBe(404);
    expect((await get(`/api/agent-guard/agents/${NOTES}/reach?limit=0`)).status).toBe(400);
    expect((await get(`/api/agent-guard/agents/${NOTES}/reach?offset=-1`)).status).toBe(400);
    const member = await gw.createActor({ role: "member", orgId: owner.orgId });
    expect((await get(`/api/agent-guard/agents/${NOTES}/reach`, member.cookie)).status).toBe(403);
    // Session only: an API key is refused.
    const byKey = await gw.request("GET", `/api/agent-guard/agents/${NOTES}/reach`, {
      key: owner.key,
      ip: freshIp(),
    });
    expect([byKey.status, (byKey.body as { error: string }).error]).toEqual([403, "session_required"]);
    const starter = await gw.createActor({ plan: "free", role: "OWNER" });
    expect((await get(`/api/agent-guard/agents/${NOTES}/reach`, starter.cookie)).status).toBe(402);
  });
});

describe("the risk matrix uses reach", () => {
  it("places apps by the share of files they can read, scopes alone for apps that read none", async () => {
    const res = await get("/api/agent-guard/risk-matrix");
    expect(res.status).toBe(200);
    const m = res.body as {
      points: Array<{
        id: string;
        quadrant: string;
        basis: string;
        reachableFiles: number;
        sensitiveReachableFiles: number;
      }>;
      quadrantCounts: Record<string, number>;
    };
    const byId = new Map(m.points.map((p) => [p.id, p]));
    // 30 files: broad from 3. Notes' Files.Read is a per-user scope, yet it reads 5 of them.
    expect(byId.get(INDEXER)).toMatchObject({
      basis: "application",
      reachableFiles: 30,
      sensitiveReachableFiles: 3,
      quadrant: "unknown_broad",
    });
    expect(byId.get(NOTES)).toMatchObject({
      basis: "delegated",
      reachableFiles: 5,
      sensitiveReachableFiles: 2,
      quadrant: "unknown_broad",
    });
    expect(byId.get(CALENDAR)).toMatchObject({
      basis: "no_file_access",
      reachableFiles: 0,
      quadrant: "unknown_limited",
    });
    expect(m.quadrantCounts).toEqual({
      trusted_limited: 0,
      trusted_broad: 0,
      unknown_limited: 1,
      unknown_broad: 2,
    });
  });
});
