import { and, eq, inArray, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, findings, sharingApprovals, workspaceFiles, workspaceShares } from "@posture/db";
import { lapseExpiredApprovals } from "@posture/workspace";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";
import { body, client, code, scannedOrg } from "./harness";

type TItem = {
  id: string;
  resourceName: string;
  ownerEmail: string;
  sharingType: string;
  target: string;
  targets: string[];
  targetCount: number;
  permission: string;
  severity: string;
  riskRank: number;
  trustedDomain: boolean;
};
type TItems = { rows: TItem[]; total: number; limit: number; offset: number; nextOffset: number | null };
type TOverview = {
  overview: {
    totalExternalFiles: number;
    publicLinks: number;
    externalDomains: Array<{ key: string; count: number }>;
    byType: Record<string, number>;
  };
  trustedDomains: string[];
  cards: Array<{ key: string; value: number }>;
  topSharers: Array<{ email: string; externalShares: number }>;
  activeApprovals: Array<{ id: string; itemId: string; reason: string; expiresAt: string }>;
};

const gw = useTestGateway();
let org: Awaited<ReturnType<typeof scannedOrg>>;
beforeAll(async () => {
  org = await scannedOrg(gw, { fileCount: 600 });
});

async function allItems(query = "") {
  const res = await org.c.get(`/api/sharing/items?limit=500${query}`);
  expect(res.status).toBe(200);
  return body<TItems>(res);
}

/** The organization's open outside-share findings, straight from the table. */
const openShareFindings = () =>
  gw.db.db
    .select()
    .from(findings)
    .where(
      and(eq(findings.orgId, org.orgId), eq(findings.ruleId, "external_share"), eq(findings.status, "OPEN")),
    );

const SEV: Record<string, number> = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1 };

describe("sharing overview and items", () => {
  it("summarises external sharing with cards, top sharers and the spec's fields", async () => {
    const o = body<TOverview>(await org.c.get("/api/sharing/overview"));
    expect(o.overview.totalExternalFiles).toBeGreaterThan(0);
    expect(o.overview.publicLinks).toBe(o.overview.byType.public);
    expect(o.overview.externalDomains.length).toBeGreaterThan(0);
    const counts = o.overview.externalDomains.map((d) => d.count);
    expect([...counts].sort((a, b) => b - a)).toEqual(counts);
    expect(o.trustedDomains).toEqual([]);
    expect(o.cards.map((c) => c.key)).toEqual(
      expect.arrayContaining(["external_files", "public_links", "critical_shares", "active_approvals"]),
    );
    expect(o.topSharers.length).toBeGreaterThan(0);
    expect(o.activeApprovals).toEqual([]);
    const items = await allItems();
    const byType = o.overview.byType;
    expect(items.total).toBe(
      (byType.public ?? 0) + (byType.external_user ?? 0) + (byType.external_domain ?? 0),
    );
  });

  it("ranks items riskiest first, with ids <resource_id>|<sharing_type>", async () => {
    const items = await allItems();
    expect(items.rows.length).toBe(Math.min(500, items.total));
    for (const r of items.rows) {
      expect(r.id).toMatch(/^[^|]+\|(public|external_user|external_domain)$/);
      expect(r.id.endsWith(`|${r.sharingType}`)).toBe(true);
      expect(Math.floor(r.riskRank / 1000)).toBe(SEV[r.severity]);
    }
    const ranks = items.rows.map((r) => r.riskRank);
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
  });

  it("names one outside address or domain in target, all of them in targets[]", async () => {
    const rows = (await allItems()).rows;
    const multi = rows.filter((r) => r.targetCount > 1);
    expect(multi.length).toBeGreaterThan(0);
    const outside = /^([^@\s]+@)?[a-z0-9.-]+\.[a-z]{2,}$/i;
    for (const r of rows) {
      expect(r.targets).toHaveLength(r.targetCount);
      expect([...r.targets].sort()).toEqual(r.targets);
      expect(new Set(r.targets).size).toBe(r.targets.length);
      expect(r.target).toBe(r.targets[0]);
      if (r.sharingType === "public") expect(r.targets).toEqual(["anyone"]);
      else for (const t of r.targets) expect(t).toMatch(outside);
    }
  });

  it("filters by type and severity", async () => {
    const pub = await allItems("&type=public");
    expect(pub.total).toBeGreaterThan(0);
    expect(pub.rows.every((r) => r.sharingType === "public" && r.target === "anyone")).toBe(true);
    const high = await allItems("&severity=HIGH");
    expect(high.rows.every((r) => r.severity === "HIGH")).toBe(true);
    expect(high.total).toBe(high.rows.length);
  });

  it("pages every sort in both orders without repeating or skipping", async () => {
    const full = await allItems();
    for (const sort of ["riskRank", "severity", "resourceName", "ownerEmail", "target"]) {
      for (const order of ["asc", "desc"]) {
        const seen: string[] = [];
        let offset: number | null = 0;
        while (offset !== null) {
          const page: TItems = body<TItems>(
            await org.c.get(`/api/sharing/items?sort=${sort}&order=${order}&limit=47&offset=${offset}`),
          );
          seen.push(...page.rows.map((r) => r.id));
          offset = page.nextOffset;
        }
        expect(seen.length, `${sort} ${order}`).toBe(full.total);
        expect(new Set(seen).size, `${sort} ${order}`).toBe(full.total);
      }
    }
    const names = body<TItems>(
      await org.c.get("/api/sharing/items?sort=resourceName&order=asc&limit=500"),
    ).rows.map((r) => r.resourceName);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it("answers 400 for bad filters, 401/403 per the auth rules", async () => {
    for (const q of ["type=internal", "severity=URGENT", "limit=501", "sort=size", "order=up", "offset=-3"]) {
      const res = await org.c.get(`/api/sharing/items?${q}`);
      expect(res.status, q).toBe(400);
      expect(code(res)).toBe("invalid_input");
    }
    expect((await gw.request("GET", "/api/sharing/overview", { ip: freshIp() })).status).toBe(401);
    expect((await gw.request("GET", "/api/sharing/items", { key: org.key, ip: freshIp() })).status).toBe(403);
    const member = await gw.createUser(org.orgId, "member");
    const m = client(gw, await gw.createSession(org.orgId, member.id));
    for (const path of ["/api/sharing/overview", "/api/sharing/items", "/api/sharing/trusted-domains"])
      expect((await m.get(path)).status, path).toBe(403);
    expect((await m.post("/api/sharing/trusted-domains", { domain: "x.com" })).status).toBe(403);
  });
});

describe("trusted domains", () => {
  it("re-rates the affected shares and open findings at once, audited, and restores them on removal", async () => {
    const external = (await allItems("&type=external_user")).rows;
    const domainOf = (t: string) => t.split("@")[1] ?? t;
    // A domain reached by single-target items, so the whole item turns trusted.
    const target = external.find((r) => r.targetCount === 1);
    expect(target).toBeDefined();
    const domain = domainOf(target?.target ?? "");
    const before = (await allItems()).rows.filter(
      (r) => r.sharingType !== "public" && r.targetCount === 1 && domainOf(r.target) === domain,
    );
    const findingBefore = await openShareFindings();
    const severities = async () =>
      new Map(
        (
          await gw.db.db
            .select({ id: workspaceShares.id, severity: workspaceShares.severity })
            .from(workspaceShares)
            .where(eq(workspaceShares.orgId, org.orgId))
        ).map((r) => [r.id, r.severity]),
      );
    const severityBefore = await severities();

    const added = await org.c.post("/api/sharing/trusted-domains", {
      domain: domain.toUpperCase(),
      note: "Partner",
    });
    expect(added.status).toBe(201);
    const row = body<{
      id: string;
      domain: string;
      note: string;
      createdAt: string;
      rerated: { items: number; findings: number };
    }>(added);
    expect(row).toMatchObject({ domain, note: "Partner" });
    expect(row.rerated.items).toBeGreaterThan(0);
    expect(row.rerated.findings).toBeGreaterThan(0);

    // The re-rated items' files forget their digest (and no other file does): the next full
    // rescan writes their rows again instead of taking them as unchanged.
    const rerated = [...(await severities())]
      .filter(([id, sev]) => severityBefore.get(id) !== sev)
      .map(([id]) => id);
    expect(rerated.length).toBe(row.rerated.items);
    const reratedFiles = await gw.db.db
      .selectDistinct({ id: workspaceShares.fileId })
      .from(workspaceShares)
      .where(inArray(workspaceShares.id, rerated));
    const forgotten = await gw.db.db
      .select({ id: workspaceFiles.id })
      .from(workspaceFiles)
      .where(and(eq(workspaceFiles.orgId, org.orgId), isNull(workspaceFiles.digest)));
    expect(forgotten.map((f) => f.id).sort()).toEqual(reratedFiles.map((f) => f.id).sort());

    const after = new Map((await allItems()).rows.map((r) => [r.id, r]));
    for (const b of before) {
      const a = after.get(b.id);
      if (!a) continue;
      expect(SEV[a.severity], b.id).toBe(
        Math.max(1, (SEV[b.severity] ?? 0) - (b.severity === "LOW" ? 0 : 1)),
      );
      expect(a.trustedDomain).toBe(true);
      expect(a.riskRank % 1000).toBe(b.riskRank % 1000);
    }
    const findingAfter = await openShareFindings();
    const lowered = findingAfter.filter((f) => {
      const prev = findingBefore.find((p) => p.id === f.id);
      return prev && f.severityRank < prev.severityRank;
    });
    expect(lowered.length).toBe(row.rerated.findings);
    expect(lowered.every((f) => f.title.endsWith("(trusted domain)") || !f.title.includes("trusted"))).toBe(
      true,
    );

    expect(
      body<{ rows: Array<{ domain: string }> }>(await org.c.get("/api/sharing/trusted-domains")).rows.map(
        (r) => r.domain,
      ),
    ).toEqual([domain]);
    expect(body<TOverview>(await org.c.get("/api/sharing/overview")).trustedDomains).toEqual([domain]);
    const dup = await org.c.post("/api/sharing/trusted-domains", { domain });
    expect(dup.status).toBe(409);
    expect(code(dup)).toBe("conflict");

    const removed = await org.c.del(`/api/sharing/trusted-domains/${row.id}`);
    expect(removed.status).toBe(200);
    expect(body<{ removed: boolean; rerated: { items: number } }>(removed).rerated.items).toBe(
      row.rerated.items,
    );
    const restored = new Map((await allItems()).rows.map((r) => [r.id, r]));
    for (const b of before) if (restored.get(b.id)) expect(restored.get(b.id)?.severity).toBe(b.severity);
    const findingRestored = await openShareFindings();
    expect(findingRestored.map((f) => [f.id, f.severity, f.title]).sort()).toEqual(
      findingBefore.map((f) => [f.id, f.severity, f.title]).sort(),
    );

    expect((await org.c.del(`/api/sharing/trusted-domains/${row.id}`)).status).toBe(404);
    const actions = await gw.db.db
      .select({ action: auditLog.action, target: auditLog.target })
      .from(auditLog)
      .where(eq(auditLog.orgId, org.orgId));
    expect(actions).toEqual(
      expect.arrayContaining([
        { action: "TRUSTED_DOMAIN_ADDED", target: domain },
        { action: "TRUSTED_DOMAIN_REMOVED", target: domain },
      ]),
    );
  });

  it("rejects malformed domains and hides other organizations' entries", async () => {
    for (const domain of ["", "no-dot", "http://x.com", "a b.com", "x".repeat(300) + ".com"]) {
      const res = await org.c.post("/api/sharing/trusted-domains", { domain });
      expect(res.status, domain).toBe(400);
    }
    const other = await gw.createActor({ plan: "business" });
    const theirs = body<{ id: string }>(
      await client(gw, other.cookie).post("/api/sharing/trusted-domains", { domain: "their-partner.com" }),
    );
    expect((await org.c.del(`/api/sharing/trusted-domains/${theirs.id}`)).status).toBe(404);
    expect(body<{ rows: unknown[] }>(await org.c.get("/api/sharing/trusted-domains")).rows).toEqual([]);
  });
});

describe("approvals", () => {
  it("takes an approved share out of the ranking and the findings until it expires", async () => {
    const top = (await allItems("&type=public")).rows[0];
    expect(top).toBeDefined();
    const itemId = top?.id ?? "";
    const approved = await org.c.post("/api/sharing/approvals", {
      itemId,
      reason: "Press kit, public by design",
      expiresInDays: 30,
    });
    expect(approved.status).toBe(201);
    const approval = body<{ id: string; itemId: string; expiresAt: string }>(approved);
    expect(approval.itemId).toBe(itemId);
    expect(Date.parse(approval.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    expect((await allItems("&type=public")).rows.map((r) => r.id)).not.toContain(itemId);
    const overview = body<TOverview>(await org.c.get("/api/sharing/overview"));
    expect(overview.activeApprovals.map((a) => a.id)).toEqual([approval.id]);
    const [share] = await gw.db.db.select().from(workspaceShares).where(eq(workspaceShares.id, itemId));
    const finding = async () =>
      (
        await gw.db.db
          .select()
          .from(findings)
          .where(
            and(
              eq(findings.orgId, org.orgId),
              eq(findings.resourceId, share?.fileExternalId ?? ""),
              eq(findings.ruleId, "public_link"),
            ),
          )
      )[0];
    expect((await finding())?.status).toBe("ACCEPTED");
    const open = body<{ findings: Array<{ id: string }> }>(await org.c.get("/api/findings?limit=500"));
    expect(open.findings.map((f) => f.id)).not.toContain((await finding())?.id);

    expect(
      (await org.c.post("/api/sharing/approvals", { itemId, reason: "again", expiresInDays: 5 })).status,
    ).toBe(409);

    // A rescan keeps the approval (item ids are stable).
    expect((await org.c.post(`/api/connectors/${org.connectorId}/sync`, undefined)).status).toBe(200);
    expect((await allItems("&type=public")).rows.map((r) => r.id)).not.toContain(itemId);
    expect((await finding())?.status).toBe("ACCEPTED");

    // Time passes: the approval lapses; the item ranks again at once, the sweep reopens the finding.
    // (The item carries its approval's end, so both move back in time.)
    const past = new Date(Date.now() - 1000);
    await gw.db.db
      .update(sharingApprovals)
      .set({ expiresAt: past })
      .where(eq(sharingApprovals.id, approval.id));
    await gw.db.db.update(workspaceShares).set({ approvedUntil: past }).where(eq(workspaceShares.id, itemId));
    await gw.publishDataChanges(); // the clock moved by hand: the read caches are told
    expect((await allItems("&type=public")).rows.map((r) => r.id)).toContain(itemId);
    expect(body<TOverview>(await org.c.get("/api/sharing/overview")).activeApprovals).toEqual([]);
    expect(await lapseExpiredApprovals(gw.db.db)).toBeGreaterThanOrEqual(1);
    expect(await lapseExpiredApprovals(gw.db.db)).toBe(0);
    expect((await finding())?.status).toBe("OPEN");
    expect((await org.c.del(`/api/sharing/approvals/${approval.id}`)).status).toBe(404);
  });

  it("approving a file's public link leaves its unapproved outside shares open", async () => {
    // A file shared both ways: one approval must not accept the other kind's finding. The demo has a
    // few such files, not always: one is made by giving a public file a copy of an outside share.
    const shares = await gw.db.db.select().from(workspaceShares).where(eq(workspaceShares.orgId, org.orgId));
    const outside = new Set(shares.filter((x) => x.sharingType !== "public").map((x) => x.fileId));
    const unapproved = (x: (typeof shares)[number]) =>
      !x.approvedUntil || x.approvedUntil.getTime() < Date.now();
    const both = shares.find((x) => x.sharingType === "public" && !outside.has(x.fileId) && unapproved(x));
    const ext = shares.find((x) => x.sharingType !== "public" && unapproved(x));
    if (!both || !ext) throw new Error("the demo organization has no public link or no outside share");
    const [extFinding] = await gw.db.db
      .select()
      .from(findings)
      .where(
        and(
          eq(findings.orgId, org.orgId),
          eq(findings.resourceId, ext.fileExternalId),
          eq(findings.ruleId, "external_share"),
        ),
      );
    if (!extFinding) throw new Error("the outside share has no finding");
    await gw.db.db.insert(workspaceShares).values({
      ...ext,
      id: `${both.fileId}|${ext.sharingType}`,
      fileId: both.fileId,
      fileExternalId: both.fileExternalId,
      resourceName: both.resourceName,
    });
    const { id: _id, ...copy } = extFinding;
    await gw.db.db.insert(findings).values({
      ...copy,
      fingerprint: `${copy.fingerprint}-both`,
      resourceId: both.fileExternalId,
      status: "OPEN",
    });
    const findingOf = async (ruleId: string) =>
      (
        await gw.db.db
          .select()
          .from(findings)
          .where(
            and(
              eq(findings.orgId, org.orgId),
              eq(findings.resourceId, both.fileExternalId),
              eq(findings.ruleId, ruleId),
            ),
          )
      )[0];
    expect((await findingOf("external_share"))?.status).toBe("OPEN");

    const res = await org.c.post("/api/sharing/approvals", {
      itemId: both.id,
      reason: "Public by design",
      expiresInDays: 3,
    });
    expect(res.status).toBe(201);
    expect((await findingOf("public_link"))?.status).toBe("ACCEPTED");
    expect((await findingOf("external_share"))?.status).toBe("OPEN");

    expect((await org.c.del(`/api/sharing/approvals/${body<{ id: string }>(res).id}`)).status).toBe(200);
    expect((await findingOf("public_link"))?.status).toBe("OPEN");
  });

  it("withdraws an approval, audited; validates input; 404 for unknown or foreign items", async () => {
    const item = (await allItems("&type=external_user")).rows[0];
    const res = await org.c.post("/api/sharing/approvals", {
      itemId: item?.id,
      reason: "Auditor access",
      expiresInDays: 7,
    });
    expect(res.status).toBe(201);
    const { id } = body<{ id: string }>(res);
    expect((await allItems()).rows.map((r) => r.id)).not.toContain(item?.id);
    const withdrawn = await org.c.del(`/api/sharing/approvals/${id}`);
    expect(withdrawn.status).toBe(200);
    expect(body(withdrawn)).toEqual({ withdrawn: true });
    expect((await allItems()).rows.map((r) => r.id)).toContain(item?.id);
    expect((await org.c.del(`/api/sharing/approvals/${id}`)).status).toBe(404);
    const actions = (
      await gw.db.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.orgId, org.orgId))
    ).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["SHARE_APPROVED", "SHARE_APPROVAL_WITHDRAWN"]));

    for (const bad of [
      { itemId: item?.id, reason: "x", expiresInDays: 0 },
      { itemId: item?.id, reason: "x", expiresInDays: 91 },
      { itemId: item?.id, reason: "", expiresInDays: 5 },
      { itemId: "nope", reason: "x", expiresInDays: 5 },
      { itemId: "wsf_x|internal", reason: "x", expiresInDays: 5 },
    ])
      expect((await org.c.post("/api/sharing/approvals", bad)).status).toBe(400);
    const unknown = await org.c.post("/api/sharing/approvals", {
      itemId: "wsf_unknown|public",
      reason: "x",
      expiresInDays: 5,
    });
    expect(unknown.status).toBe(404);
    const other = await gw.createActor({ plan: "business" });
    const foreign = await client(gw, other.cookie).post("/api/sharing/approvals", {
      itemId: item?.id,
      reason: "x",
      expiresInDays: 5,
    });
    expect(foreign.status).toBe(404);
    expect(body<TItems>(await client(gw, other.cookie).get("/api/sharing/items")).total).toBe(0);
  });
});
