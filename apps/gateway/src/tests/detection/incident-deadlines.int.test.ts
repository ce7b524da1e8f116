import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, events, incidents, partnerSettings } from "@posture/db";
import { announceApproachingDeadlines } from "@posture/incidents";
import { useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// Issue 32, part 4: an incident's regulatory clocks are data — the same on the HTTP detail and in
// the PDF, stopped when it is resolved, gone when the organization turns a regulation off, and
// announced once before each deadline.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type TDeadline = { regulation: string; dueAt: string; status: string; stoppedAt: string | null };
type TDetail = { id: string; openedAt: string; resolvedAt: string | null; deadlines: TDeadline[] };

const gw = useTestGateway();
let a: { orgId: string; key: string; cookie: string };

beforeAll(async () => {
  a = await gw.createActor({ plan: "business" });
});

const as = () => ({ key: a.key, ip: freshIp() });

async function open(title: string, openedAgoMs = 0): Promise<TDetail> {
  const res = await gw.request("POST", "/api/incidents", { ...as(), body: { title, priority: "P1" } });
  expect(res.status, res.text).toBe(201);
  const id = (res.body as TDetail).id;
  if (openedAgoMs > 0) {
    await gw.db.db
      .update(incidents)
      .set({ openedAt: new Date(Date.now() - openedAgoMs) })
      .where(eq(incidents.id, id));
  }
  return detail(id);
}

async function detail(id: string): Promise<TDetail> {
  const res = await gw.request("GET", `/api/incidents/${id}`, as());
  expect(res.status, res.text).toBe(200);
  return res.body as TDetail;
}

async function move(id: string, status: string): Promise<TDetail> {
  const res = await gw.request("PATCH", `/api/incidents/${id}`, { ...as(), body: { status } });
  expect(res.status, res.text).toBe(200);
  return res.body as TDetail;
}

async function pdfText(id: string, key = a.key): Promise<string> {
  const res = await fetch(`${gw.url}/api/incidents/${id}/export`, {
    headers: { authorization: `Bearer ${key}`, "x-forwarded-for": freshIp() },
  });
  expect(res.status).toBe(200);
  // PDF_DUMP=<dir> keeps each report, to render and look at (pdftoppm -png -r 60).
  const dir = process.env.PDF_DUMP ?? mkdtempSync(join(tmpdir(), "incident-clocks-"));
  const file = join(dir, `incident-${id}.pdf`);
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return execFileSync("pdftotext", ["-layout", file, "-"]).toString();
}

/** The deadline as the report prints it (the table wraps " UTC" onto the next line). */
const stamp = (iso: string) => iso.slice(0, 16).replace("T", " ");
/** The report's clock rows: regime, then the rest of the line (deadline and state). */
const clockLines = (text: string) =>
  text.split("\n").filter((l) => /^\s*(GDPR Art\. 33|HIPAA 45 CFR)/.test(l));

describe("deadlines on the incident", () => {
  it("run from the opening on the detail, the list and the PDF alike", async () => {
    const inc = await open("Clocks running");
    const opened = new Date(inc.openedAt).getTime();
    expect(inc.deadlines).toEqual([
      {
        regulation: "gdpr",
        dueAt: new Date(opened + 72 * HOUR).toISOString(),
        status: "running",
        stoppedAt: null,
      },
      {
        regulation: "hipaa",
        dueAt: new Date(opened + 60 * DAY).toISOString(),
        status: "running",
        stoppedAt: null,
      },
    ]);
    const list = await gw.request("GET", "/api/incidents", as());
    const row = (list.body as { incidents: TDetail[] }).incidents.find((i) => i.id === inc.id);
    expect(row?.deadlines).toEqual(inc.deadlines);

    const text = await pdfText(inc.id);
    const lines = clockLines(text);
    expect(lines).toHaveLength(2);
    inc.deadlines.forEach((d, i) => {
      expect(lines[i]).toContain(stamp(d.dueAt));
      expect(lines[i]).toContain("Running:");
    });
    expect(text).toMatch(/Open for\s+0 h 0 min/);
  });

  it("stop when it is resolved: met before the deadline, missed after, and the PDF says so", async () => {
    // Opened 80 hours ago: GDPR's 72 hours have passed, HIPAA's 60 days have not.
    const inc = await open("Resolved late for GDPR", 80 * HOUR);
    expect(inc.deadlines.map((d) => d.status)).toEqual(["overdue", "running"]);
    await move(inc.id, "INVESTIGATING");
    const resolved = await move(inc.id, "RESOLVED");
    expect(resolved.resolvedAt).not.toBeNull();
    const stoppedAt = resolved.resolvedAt;
    expect(resolved.deadlines.map((d) => [d.regulation, d.status, d.stoppedAt])).toEqual([
      ["gdpr", "missed", stoppedAt],
      ["hipaa", "met", stoppedAt],
    ]);
    // Closing keeps the moment it was resolved; the clocks do not move.
    const closed = await move(inc.id, "CLOSED");
    expect(closed.resolvedAt).toBe(stoppedAt);
    expect(closed.deadlines).toEqual(resolved.deadlines);

    const text = await pdfText(inc.id);
    const lines = clockLines(text);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(stamp(resolved.deadlines[0]?.dueAt ?? ""));
    expect(lines[0]).toContain("Missed: resolved 8");
    expect(lines[1]).toContain(stamp(resolved.deadlines[1]?.dueAt ?? ""));
    expect(lines[1]).toContain("Met: resolved 56");
    expect(text).not.toContain("Running:");
    expect(text).not.toContain("Overdue:");
    // How long it was open, to its resolution: not "Open for" counting to now.
    expect(text).toMatch(/Was open for\s+3 days 8 h/);
    expect(text).not.toMatch(/(^|\s)Open for/);
  });

  it("run again when a resolved incident is reopened", async () => {
    const inc = await open("Reopened", 80 * HOUR);
    await move(inc.id, "INVESTIGATING");
    await move(inc.id, "RESOLVED");
    const reopened = await move(inc.id, "INVESTIGATING");
    expect(reopened.resolvedAt).toBeNull();
    expect(reopened.deadlines.map((d) => [d.status, d.stoppedAt])).toEqual([
      ["overdue", null],
      ["running", null],
    ]);
  });
});

describe("incident settings", () => {
  it("turn a regulation off (audited): it leaves the detail and the PDF", async () => {
    const org = await gw.createActor({ plan: "business" });
    const as2 = () => ({ key: org.key, ip: freshIp() });
    const initial = await gw.request("GET", "/api/incident-settings", as2());
    expect(initial.body).toEqual({ regulations: { gdpr: true, hipaa: true } });
    const changed = await gw.request("PATCH", "/api/incident-settings", {
      ...as2(),
      body: { regulations: { hipaa: false } },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toEqual({ regulations: { gdpr: true, hipaa: false } });
    const audits = await gw.db.db
      .select({ metadata: auditLog.metadata })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, org.orgId), eq(auditLog.action, "INCIDENT_SETTINGS_CHANGED")));
    expect(audits.map((r) => r.metadata)).toEqual([{ hipaa: { from: true, to: false } }]);

    const created = await gw.request("POST", "/api/incidents", {
      ...as2(),
      body: { title: "GDPR only", priority: "P2" },
    });
    const inc = created.body as TDetail;
    expect(inc.deadlines.map((d) => d.regulation)).toEqual(["gdpr"]);
    const res = await fetch(`${gw.url}/api/incidents/${inc.id}/export`, {
      headers: { authorization: `Bearer ${org.key}`, "x-forwarded-for": freshIp() },
    });
    const file = join(mkdtempSync(join(tmpdir(), "incident-clocks-")), "report.pdf");
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const text = execFileSync("pdftotext", ["-layout", file, "-"]).toString();
    expect(clockLines(text)).toHaveLength(1);
    expect(text).not.toContain("HIPAA 45 CFR");

    // The first organization's incidents keep both clocks.
    const other = await open("Both clocks");
    expect(other.deadlines.map((d) => d.regulation)).toEqual(["gdpr", "hipaa"]);

    const member = await gw.createUser(org.orgId, "member");
    const memberKey = (await gw.createApiKey(org.orgId, member.id)).key;
    const refused = await gw.request("PATCH", "/api/incident-settings", {
      key: memberKey,
      ip: freshIp(),
      body: { regulations: { gdpr: false } },
    });
    expect([refused.status, errorCode(refused)]).toEqual([403, "forbidden"]);
    const bad = await gw.request("PATCH", "/api/incident-settings", {
      ...as2(),
      body: { regulations: { sox: false } },
    });
    expect([bad.status, errorCode(bad)]).toEqual([400, "invalid_input"]);
  });
});

describe("incident.deadline.approaching", () => {
  it("is emitted once per incident and regulation, inside the notice window only", async () => {
    // 50 h after the opening: inside GDPR's last 24 hours; HIPAA's notice is 7 days before day 60.
    const near = await open("GDPR due within a day", 50 * HOUR);
    const early = await open("Nothing due yet", 10 * HOUR);
    const hipaaNear = await open("HIPAA due within a week", 55 * DAY);
    const resolved = await open("Resolved before notice", 50 * HOUR);
    await move(resolved.id, "CLOSED");
    const off = await gw.createActor({ plan: "business" });
    await gw.request("PATCH", "/api/incident-settings", {
      key: off.key,
      ip: freshIp(),
      body: { regulations: { gdpr: false } },
    });
    const offInc = await gw.request("POST", "/api/incidents", {
      key: off.key,
      ip: freshIp(),
      body: { title: "GDPR turned off", priority: "P1" },
    });
    const offId = (offInc.body as TDetail).id;
    await gw.db.db
      .update(incidents)
      .set({ openedAt: new Date(Date.now() - 50 * HOUR) })
      .where(eq(incidents.id, offId));

    const deps = { jobs: gw.gateway.deps.jobs, publicUrl: gw.gateway.deps.runtime.publicUrl };
    const mine = new Set([near.id, early.id, hipaaNear.id, resolved.id, offId]);
    const first = (await announceApproachingDeadlines(gw.db.db, deps)).filter((x) => mine.has(x.incidentId));
    expect(first.sort((x, y) => x.regulation.localeCompare(y.regulation))).toEqual([
      { incidentId: near.id, regulation: "gdpr" },
      { incidentId: hipaaNear.id, regulation: "hipaa" },
    ]);
    const again = (await announceApproachingDeadlines(gw.db.db, deps)).filter((x) => mine.has(x.incidentId));
    expect(again).toEqual([]);

    const sent = await gw.db.db
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.orgId, a.orgId), eq(events.type, "incident.deadline.approaching")));
    const byIncident = sent.map((e) => JSON.parse(e.data) as Record<string, unknown>);
    expect(byIncident.map((d) => [d.incidentId, d.regulation, d.dueAt])).toEqual(
      expect.arrayContaining([
        [near.id, "gdpr", near.deadlines[0]?.dueAt],
        [hipaaNear.id, "hipaa", hipaaNear.deadlines[1]?.dueAt],
      ]),
    );
    expect(byIncident).toHaveLength(2);
    expect(byIncident.find((d) => d.incidentId === near.id)).toMatchObject({
      title: "GDPR due within a day",
      status: "OPEN",
      priority: "P1",
      link: `${deps.publicUrl.replace(/\/$/, "")}/api/incidents/${near.id}`,
    });
    const offEvents = await gw.db.db
      .select({ id: events.id })
      .from(events)
      .where(and(eq(events.orgId, off.orgId), eq(events.type, "incident.deadline.approaching")));
    expect(offEvents).toEqual([]);
  });
});

describe("the incident report of a partner-managed organization", () => {
  it("carries the partner's brand, as its posture and gap reports do (issue 33, item 8)", async () => {
    const partner = await gw.createOrg({ plan: "enterprise", isPartner: true, name: "Northwind MSP" });
    await gw.db.db
      .insert(partnerSettings)
      .values({ orgId: partner.id, name: "Northwind Security", accentColor: "#0E7C66" });
    const client = await gw.createOrg({ plan: "business", managedByOrgId: partner.id, name: "Client Co" });
    const c = await gw.createActor({ orgId: client.id });
    const res = await gw.request("POST", "/api/incidents", {
      key: c.key,
      ip: freshIp(),
      body: { title: "Branded", priority: "P2" },
    });
    expect(res.status, res.text).toBe(201);
    const text = await pdfText((res.body as TDetail).id, c.key);
    const pages = text.split("\f").filter((p) => p.trim() !== "");
    // The cover names the partner (its band and the "Prepared by" line); every other page's header too.
    expect(pages[0]).toContain("NORTHWIND SECURITY");
    expect(pages[0]).toContain("Prepared by Northwind Security");
    for (const page of pages.slice(1)) expect(page).toContain("Northwind Security");
    expect(text).not.toContain("Security Posture");
    expect(text).not.toMatch(/SECURITY POSTURE/);

    // An organization of its own keeps the product's name and says nothing of a partner.
    const own = await open("Unbranded");
    const plain = await pdfText(own.id);
    expect(plain).toContain("SECURITY POSTURE");
    expect(plain).not.toContain("Prepared by");
  });
});
