import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { anomalies, auditLog, events, findings, INCIDENT_STATUSES, type TIncidentStatus } from "@posture/db";
import { INCIDENT_MOVES } from "@posture/incidents";
import { type TTestGateway, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";
import { demoConnector } from "./seed";

type TDetail = {
  id: string;
  title: string;
  status: TIncidentStatus;
  priority: string;
  assignee: string;
  linkedFindings: string[];
  log: Array<{ at: string; note: string; actor: string }>;
  postMortem: unknown;
};

const gw = useTestGateway();

async function seedFindings(
  orgId: string,
  n: number,
  o: { owner?: string; domain?: string; rule?: string } = {},
) {
  const c = await demoConnector(gw.db.db, orgId);
  const rows = await gw.db.db
    .insert(findings)
    .values(
      Array.from({ length: n }, (_, i) => ({
        orgId,
        connectorId: c.id,
        connectorType: "google_workspace",
        fingerprint: `fp-${c.id}-${i}`,
        ruleId: o.rule ?? "external_share",
        category: "external_sharing",
        severity: i % 3 === 0 ? ("CRITICAL" as const) : ("HIGH" as const),
        severityRank: i % 3 === 0 ? 4 : 3,
        title: `Payroll file ${i} shared outside the organization`,
        resourceId: `file-${i}`,
        resourceName: `Payroll 2024-${String((i % 12) + 1).padStart(2, "0")}.xlsx`,
        resourceType: "file",
        details: { ownerEmail: o.owner ?? "carol@acme.test", externalDomains: [o.domain ?? "rival.example"] },
      })),
    )
    .returning({ id: findings.id });
  return rows.map((r) => r.id);
}

// A client address per request: these tests make more calls than one address may per minute.
const call: TTestGateway["request"] = (method, path, o = {}) =>
  gw.request(method, path, { ip: freshIp(), ...o });
const create = (key: string, body: unknown) => call("POST", "/api/incidents", { key, body });
const patch = (key: string, id: string, body: unknown) =>
  call("PATCH", `/api/incidents/${id}`, { key, body });

describe("incidents", { timeout: 120_000 }, () => {
  it("opens, lists, shows, and audits and announces an incident", async () => {
    const a = await gw.createActor({ plan: "business" });
    const ids = await seedFindings(a.orgId, 3);
    const res = await create(a.key, {
      title: "Payroll leak",
      priority: "P1",
      findingIds: ids,
      assignee: "secops",
    });
    expect(res.status).toBe(201);
    const inc = res.body as TDetail;
    expect(inc).toMatchObject({
      title: "Payroll leak",
      status: "OPEN",
      priority: "P1",
      assignee: "secops",
      postMortem: null,
    });
    expect(inc.linkedFindings.sort()).toEqual([...ids].sort());
    expect(inc.log).toHaveLength(1);

    const detail = await call("GET", `/api/incidents/${inc.id}`, { key: a.key });
    expect(detail.status).toBe(200);
    expect((detail.body as TDetail).id).toBe(inc.id);

    await create(a.key, { title: "Minor", priority: "P4" });
    const list = async (qs: string) =>
      ((await call("GET", `/api/incidents${qs}`, { key: a.key })).body as { incidents: TDetail[] }).incidents;
    expect((await list("")).map((i) => i.title)).toEqual(["Minor", "Payroll leak"]);
    expect((await list("?priority=P1")).map((i) => i.title)).toEqual(["Payroll leak"]);
    expect(await list("?status=CLOSED")).toEqual([]);

    const audits = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, a.orgId), eq(auditLog.action, "INCIDENT_CREATED")));
    expect(audits.map((x) => x.target)).toContain(inc.id);
    const created = await gw.db.db
      .select()
      .from(events)
      .where(and(eq(events.orgId, a.orgId), eq(events.type, "incident.created")));
    expect(created).toHaveLength(2);
  });

  it("allows exactly the contract's moves; any other is 409 and logs nothing", async () => {
    const a = await gw.createActor({ plan: "business" });
    // Reach each state along legal moves, then try every target from it.
    const pathTo: Record<TIncidentStatus, TIncidentStatus[]> = {
      OPEN: [],
      INVESTIGATING: ["INVESTIGATING"],
      CONTAINED: ["INVESTIGATING", "CONTAINED"],
      RESOLVED: ["INVESTIGATING", "RESOLVED"],
      CLOSED: ["CLOSED"],
    };
    let legal = 0;
    let illegal = 0;
    for (const from of INCIDENT_STATUSES) {
      for (const to of INCIDENT_STATUSES) {
        if (to === from) continue;
        const inc = (await create(a.key, { title: `${from}→${to}`, priority: "P3" })).body as TDetail;
        for (const step of pathTo[from])
          expect((await patch(a.key, inc.id, { status: step })).status).toBe(200);
        const before = (await call("GET", `/api/incidents/${inc.id}`, { key: a.key })).body as TDetail;
        const res = await patch(a.key, inc.id, { status: to });
        if (INCIDENT_MOVES[from].includes(to)) {
          legal++;
          expect(res.status, `${from}→${to}`).toBe(200);
          const after = res.body as TDetail;
          expect(after.status).toBe(to);
          expect(after.log).toHaveLength(before.log.length + 1);
        } else {
          illegal++;
          expect(res.status, `${from}→${to}`).toBe(409);
          expect(errorCode(res)).toBe("invalid_transition");
          const after = (await call("GET", `/api/incidents/${inc.id}`, { key: a.key })).body as TDetail;
          expect(after).toEqual(before);
        }
      }
    }
    expect(legal).toBe(7);
    expect(illegal).toBe(13);
  });

  it("walks OPEN → CLOSED with notes, priority, assignee and a post-mortem, and exports the report", async () => {
    const a = await gw.createActor({ plan: "business" });
    const ids = await seedFindings(a.orgId, 40);
    const inc = (await create(a.key, { title: "Vendor data exposure", priority: "P2", findingIds: ids }))
      .body as TDetail;
    const steps: unknown[] = [
      { status: "INVESTIGATING", assignee: "dana@acme.test" },
      { note: "Public links removed on 12 files" },
      { priority: "P1" },
      { status: "CONTAINED" },
      { status: "RESOLVED" },
      {
        postMortem: {
          summary: "Files shared with a former vendor stayed open after the contract ended.",
          rootCause: "No expiry on external shares.",
          lessons: "Expire vendor shares with the contract.",
          actionItems: [{ title: "Set 90-day expiry on external shares", owner: "it@acme.test" }],
        },
      },
      { status: "CLOSED" },
    ];
    let detail = inc;
    for (const s of steps) {
      const res = await patch(a.key, inc.id, s);
      expect(res.status, JSON.stringify(s)).toBe(200);
      detail = res.body as TDetail;
    }
    expect(detail.status).toBe("CLOSED");
    expect(detail.priority).toBe("P1");
    expect(detail.log.map((l) => l.note)).toEqual([
      expect.stringContaining("Incident opened at P2"),
      "Status OPEN → INVESTIGATING",
      "Assigned to dana@acme.test",
      "Public links removed on 12 files",
      "Priority P2 → P1",
      "Status INVESTIGATING → CONTAINED",
      "Status CONTAINED → RESOLVED",
      "Post-mortem updated",
      "Status RESOLVED → CLOSED",
    ]);
    const updated = await gw.db.db
      .select()
      .from(events)
      .where(and(eq(events.orgId, a.orgId), eq(events.type, "incident.updated")));
    expect(updated).toHaveLength(steps.length);
    const audited = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, a.orgId), eq(auditLog.action, "INCIDENT_UPDATED")));
    expect(audited).toHaveLength(steps.length);

    const pdf = await fetch(`${gw.url}/api/incidents/${inc.id}/export`, {
      headers: { authorization: `Bearer ${a.key}`, "x-forwarded-for": freshIp() },
    });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(pdf.headers.get("content-disposition")).toMatch(
      /^attachment; filename="incident-vendor-data-exposure-/,
    );
    const bytes = Buffer.from(await pdf.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
    const dir = mkdtempSync(join(tmpdir(), "incident-pdf-"));
    const file = join(dir, "report.pdf");
    writeFileSync(file, bytes);
    execFileSync("qpdf", ["--check", file]);
    const text = execFileSync("pdftotext", ["-layout", file, "-"]).toString();
    for (const expected of [
      "INCIDENT RESPONSE REPORT",
      "Vendor data exposure",
      "P1",
      "CLOSED",
      "Regulatory clocks",
      "GDPR Art. 33",
      "72 hours",
      "HIPAA 45 CFR",
      "60 calendar",
      "Timeline",
      "Status OPEN -> INVESTIGATING",
      "Public links removed on 12 files",
      "Linked findings",
      "Payroll file 0 shared",
      "Payroll 2024-01.xlsx",
      "No expiry on external shares.",
      "Set 90-day expiry on external shares",
      "it@acme.test",
      "Page 1 of",
    ])
      expect(text, expected).toContain(expected);
    // 40 findings break across pages; every page is numbered.
    const pages = Number(/Page 1 of (\d+)/.exec(text)?.[1]);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(text).toContain(`Page ${pages} of ${pages}`);
    // The GDPR deadline is 72 hours after the opening.
    const opened = new Date((detail as unknown as { openedAt: string }).openedAt);
    const deadline = new Date(opened.getTime() + 72 * 3_600_000).toISOString().slice(0, 16).replace("T", " ");
    expect(text).toContain(deadline);
  });

  it("refuses bad input, foreign findings, low roles and other organizations", async () => {
    const a = await gw.createActor({ plan: "business" });
    const b = await gw.createActor({ plan: "business" });
    const foreign = await seedFindings(b.orgId, 1);
    const bad = await create(a.key, { title: "x", priority: "P1", findingIds: foreign });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe("invalid_input");
    for (const body of [
      {},
      { title: "", priority: "P1" },
      { title: "t", priority: "P9" },
      { title: "t\u0000", priority: "P1" },
    ]) {
      const res = await create(a.key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const inc = (await create(a.key, { title: "Mine", priority: "P2" })).body as TDetail;
    expect((await patch(a.key, inc.id, {})).status).toBe(400);
    expect((await patch(a.key, inc.id, { status: "DONE" })).status).toBe(400);
    expect((await patch(a.key, inc.id, { findingIds: foreign })).status).toBe(400);

    for (const [method, path] of [
      ["GET", `/api/incidents/${inc.id}`],
      ["PATCH", `/api/incidents/${inc.id}`],
      ["GET", `/api/incidents/${inc.id}/export`],
      ["GET", "/api/incidents/inc_unknown"],
    ] as const) {
      const res = await call(method, path, {
        key: b.key,
        ...(method === "PATCH" ? { body: { note: "x" } } : {}),
      });
      expect(res.status, path).toBe(404);
      expect(errorCode(res)).toBe("not_found");
    }
    expect(
      ((await call("GET", "/api/incidents", { key: b.key })).body as { incidents: unknown[] }).incidents,
    ).toEqual([]);

    const member = await gw.createActor({ plan: "business", role: "member", orgId: a.orgId });
    expect((await call("GET", `/api/incidents/${inc.id}`, { key: member.key })).status).toBe(200);
    expect((await create(member.key, { title: "t", priority: "P1" })).status).toBe(403);
    expect((await patch(member.key, inc.id, { note: "n" })).status).toBe(403);
    const exported = await fetch(`${gw.url}/api/incidents/${inc.id}/export`, {
      headers: { authorization: `Bearer ${member.key}`, "x-forwarded-for": freshIp() },
    });
    expect(exported.status).toBe(200);
    const team = await gw.createActor({ plan: "team" });
    const gated = await fetch(`${gw.url}/api/incidents/${inc.id}/export`, {
      headers: { cookie: team.cookie, "x-forwarded-for": freshIp() },
    });
    expect(gated.status).toBe(402);
    expect(((await gated.json()) as { error: string }).error).toBe("plan_upgrade_required");
    const anonymous = await fetch(`${gw.url}/api/incidents/${inc.id}/export`, {
      headers: { "x-forwarded-for": freshIp() },
    });
    expect(anonymous.status).toBe(401);
  });

  it("suggests clusters by person, external domain, agent and rule, and never creates them", async () => {
    const a = await gw.createActor({ plan: "business" });
    const carol = await seedFindings(a.orgId, 4, {
      owner: "carol@acme.test",
      domain: "rival.example",
      rule: "external_share",
    });
    await seedFindings(a.orgId, 1, { owner: "dave@acme.test", domain: "gmail.com", rule: "public_link" });
    await gw.db.db.insert(anomalies).values({
      orgId: a.orgId,
      principal: "dave@acme.test",
      type: "sharing_spike",
      window: "2026-W47",
      severity: "HIGH",
      severityRank: 3,
      confidence: 0.9,
      at: new Date(),
      observed: 40,
      expected: 1,
      periodsLearned: 12,
    });
    const res = await call("GET", "/api/incidents/suggestions", { key: a.key });
    expect(res.status).toBe(200);
    const s = (
      res.body as {
        suggestions: Array<{ theme: string; severity: string; findingIds: string[]; anomalyIds: string[] }>;
      }
    ).suggestions;
    const byTheme = new Map(s.map((x) => [x.theme, x]));
    expect(byTheme.get("person:carol@acme.test")?.findingIds.sort()).toEqual([...carol].sort());
    expect(byTheme.get("person:carol@acme.test")?.severity).toBe("CRITICAL");
    expect(byTheme.get("external_domain:rival.example")?.findingIds).toHaveLength(4);
    expect(byTheme.get("rule:external_share")?.findingIds).toHaveLength(4);
    expect(byTheme.get("person:dave@acme.test")?.anomalyIds).toHaveLength(1);
    expect(byTheme.has("rule:public_link")).toBe(false); // one finding is not a cluster
    expect(
      ((await call("GET", "/api/incidents", { key: a.key })).body as { incidents: unknown[] }).incidents,
    ).toEqual([]);
    // Once linked to an open incident, findings leave the suggestions.
    await create(a.key, { title: "Carol", priority: "P2", findingIds: carol });
    const after = (
      (await call("GET", "/api/incidents/suggestions", { key: a.key })).body as {
        suggestions: Array<{ theme: string }>;
      }
    ).suggestions;
    expect(after.map((x) => x.theme)).not.toContain("person:carol@acme.test");
  });
});
