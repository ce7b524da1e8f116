import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, connectors, findings, scans } from "@posture/db";
import { useTestGateway } from "../../testing";

// GET /api/findings/export over HTTP: the three formats' bytes and headers, the list's filters,
// the credential kinds, bad input, another organization's rows, and the audit row.
const gw = useTestGateway();

const CSV_COLUMNS = [
  "id",
  "severity",
  "status",
  "category",
  "ruleId",
  "title",
  "resourceId",
  "resourceName",
  "resourceType",
  "connectorId",
  "connectorType",
  "detectedAt",
  "lastSeenAt",
  "resolvedAt",
  "benchmarkName",
  "benchmarkVersion",
  "benchmarkId",
];

const BENCHMARK = { name: "CIS Google Workspace Foundations", version: "1.3.0", id: "3.1.2.1.1" };
const SCAN_DONE = new Date("2026-03-04T05:06:07.890Z");
const RESOLVED_AT = new Date("2026-03-01T00:00:00.000Z");

/** RFC 4180, as a spreadsheet reads it: quoted fields may hold commas, quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += c;
  }
  expect(field).toBe("");
  expect(row).toEqual([]);
  return rows;
}

const lines = (text: string) => {
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
};

type TSeeded = Awaited<ReturnType<typeof seed>>;

async function seed(orgId: string) {
  const db = gw.db.db;
  const [c] = await db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: "Export", mode: "demo" })
    .returning();
  if (!c) throw new Error("connector");
  const [scan] = await db
    .insert(scans)
    .values({
      orgId,
      connectorId: c.id,
      connectorName: "Export",
      trigger: "manual",
      status: "COMPLETE",
      startedAt: new Date(SCAN_DONE.getTime() - 60_000),
      completedAt: SCAN_DONE,
    })
    .returning();
  const base = {
    orgId,
    connectorId: c.id,
    connectorType: "google_workspace",
    resourceType: "file",
    lastSeenScanId: scan?.id ?? null,
  };
  const rows = await db
    .insert(findings)
    .values([
      {
        ...base,
        fingerprint: "inject",
        ruleId: "public_link",
        category: "public_exposure",
        severity: "CRITICAL",
        severityRank: 4,
        title: '=HYPERLINK("http://evil.example","click")',
        resourceId: "file-1",
        resourceName: '@SUM(A1) "q", and\r\nmore',
        detectedAt: new Date("2026-01-01T00:00:00.000Z"),
      },
      {
        ...base,
        fingerprint: "resolved",
        ruleId: "external_share",
        category: "external_sharing",
        severity: "HIGH",
        severityRank: 3,
        title: "+Shared outside",
        resourceId: "file-2",
        resourceName: "Plan.docx",
        status: "RESOLVED",
        resolvedAt: RESOLVED_AT,
        detectedAt: new Date("2026-01-02T00:00:00.000Z"),
      },
      {
        ...base,
        fingerprint: "tenant",
        ruleId: "gws_2sv_enforced",
        category: "tenant_configuration",
        severity: "HIGH",
        severityRank: 3,
        title: "Not met: 2-step verification is enforced",
        resourceId: "gws_2sv_enforced",
        resourceName: "2-step verification is enforced",
        resourceType: "tenant_setting",
        details: {
          benchmark: BENCHMARK,
          settings: { "security.2sv.enforced": false },
          expected: "enforced for every user",
          fix: "Admin console > Security > 2-step verification",
        },
        detectedAt: new Date("2026-01-03T00:00:00.000Z"),
      },
      {
        ...base,
        fingerprint: "accepted",
        ruleId: "external_share",
        category: "external_sharing",
        severity: "MEDIUM",
        severityRank: 2,
        title: "-Approved share",
        resourceId: "file-4",
        resourceName: "Deck.pptx",
        status: "ACCEPTED",
        detectedAt: new Date("2026-01-04T00:00:00.000Z"),
      },
      {
        ...base,
        fingerprint: "unicode",
        ruleId: "public_link",
        category: "public_exposure",
        severity: "LOW",
        severityRank: 1,
        title: "Ünïcødé 日本語 📄",
        resourceId: "file-5",
        resourceName: "\tTabbed.txt",
        lastSeenScanId: null,
        detectedAt: new Date("2026-01-05T00:00:00.000Z"),
      },
    ])
    .returning();
  const [inject, resolved, tenant, accepted, unicode] = rows;
  if (!inject || !resolved || !tenant || !accepted || !unicode) throw new Error("seed");
  return { connectorId: c.id, inject, resolved, tenant, accepted, unicode };
}

describe("GET /api/findings/export", () => {
  let a: Awaited<ReturnType<typeof gw.createActor>>;
  let s: TSeeded;
  let otherIds: string[];

  beforeAll(async () => {
    a = await gw.createActor({ plan: "business", role: "member" });
    s = await seed(a.orgId);
    const b = await gw.createActor({ plan: "business" });
    const other = await seed(b.orgId);
    otherIds = [other.inject.id, other.resolved.id, other.tenant.id, other.accepted.id, other.unicode.id];
  });

  it("csv: an RFC 4180 attachment with the stable columns, open findings by default, formulas defused", async () => {
    const res = await gw.request("GET", "/api/findings/export?format=csv", { key: a.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="findings-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.csv"/,
    );
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const [header, ...rows] = parseCsv(res.text);
    expect(header).toEqual(CSV_COLUMNS);
    const byId = new Map(rows.map((r) => [r[0], Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, r[i]]))]));
    // The list's default: open findings only, oldest detection first.
    expect(rows.map((r) => r[0])).toEqual([s.inject.id, s.tenant.id, s.unicode.id]);
    expect(byId.get(s.inject.id)).toMatchObject({
      severity: "CRITICAL",
      status: "OPEN",
      title: `'=HYPERLINK("http://evil.example","click")`,
      resourceName: `'@SUM(A1) "q", and\r\nmore`,
      resourceId: "file-1",
      resourceType: "file",
      connectorId: s.connectorId,
      detectedAt: "2026-01-01T00:00:00.000Z",
      lastSeenAt: SCAN_DONE.toISOString(),
      resolvedAt: "",
      benchmarkId: "",
    });
    expect(byId.get(s.tenant.id)).toMatchObject({
      benchmarkName: BENCHMARK.name,
      benchmarkVersion: BENCHMARK.version,
      benchmarkId: BENCHMARK.id,
    });
    // UTF-8 kept; a leading tab is defused too; no scan known: last seen is the detection.
    expect(byId.get(s.unicode.id)).toMatchObject({
      title: "Ünïcødé 日本語 📄",
      resourceName: "'\tTabbed.txt",
      lastSeenAt: "2026-01-05T00:00:00.000Z",
    });

    const all = await gw.request("GET", "/api/findings/export?format=csv&status=all", { key: a.key });
    const allRows = parseCsv(all.text).slice(1);
    expect(allRows.map((r) => r[0])).toEqual([
      s.inject.id,
      s.resolved.id,
      s.tenant.id,
      s.accepted.id,
      s.unicode.id,
    ]);
    const resolved = allRows.find((r) => r[0] === s.resolved.id);
    expect(resolved?.[CSV_COLUMNS.indexOf("title")]).toBe("'+Shared outside");
    expect(resolved?.[CSV_COLUMNS.indexOf("resolvedAt")]).toBe(RESOLVED_AT.toISOString());
    expect(allRows.find((r) => r[0] === s.accepted.id)?.[CSV_COLUMNS.indexOf("title")]).toBe(
      "'-Approved share",
    );
    for (const id of otherIds) expect(all.text).not.toContain(id);
  });

  it("ndjson: each line is exactly GET /api/findings/{id}; the list's filters apply", async () => {
    const res = await gw.request("GET", "/api/findings/export?format=ndjson&status=all", { key: a.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    expect(res.headers.get("content-disposition")).toMatch(/filename="findings-[^"]+\.ndjson"/);
    const rows = lines(res.text);
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      const one = await gw.request("GET", `/api/findings/${String(row.id)}`, { key: a.key });
      expect(one.status).toBe(200);
      expect(row).toEqual(one.body);
    }

    const high = await gw.request("GET", "/api/findings/export?format=ndjson&status=all&severity=HIGH", {
      key: a.key,
    });
    expect(lines(high.text).map((r) => r.id)).toEqual([s.resolved.id, s.tenant.id]);
    const tenant = await gw.request(
      "GET",
      "/api/findings/export?format=ndjson&category=tenant_configuration",
      { key: a.key },
    );
    expect(lines(tenant.text)).toEqual([expect.objectContaining({ id: s.tenant.id, benchmark: BENCHMARK })]);
    const accepted = await gw.request("GET", "/api/findings/export?format=ndjson&status=ACCEPTED", {
      key: a.key,
    });
    expect(lines(accepted.text).map((r) => r.id)).toEqual([s.accepted.id]);
    // Nothing matches: an empty attachment, not an error.
    const none = await gw.request(
      "GET",
      "/api/findings/export?format=ndjson&status=RESOLVED&category=identity",
      { key: a.key },
    );
    expect(none.status).toBe(200);
    expect(none.text).toBe("");
  });

  it("ocsf: OCSF 1.3.0 events with their class's required attributes, one per line", async () => {
    const res = await gw.request("GET", "/api/findings/export?format=ocsf&status=all", { key: a.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    expect(res.headers.get("content-disposition")).toMatch(/filename="findings-[^"]+\.ocsf\.ndjson"/);
    const events = lines(res.text);
    expect(events).toHaveLength(5);
    const severityIds: Record<string, number> = { CRITICAL: 5, HIGH: 4, MEDIUM: 3, LOW: 2 };
    const seeded = [s.inject, s.resolved, s.tenant, s.accepted, s.unicode];
    for (const e of events) {
      const info = e.finding_info as Record<string, unknown>;
      const f = seeded.find((x) => x.id === info.uid);
      expect(f).toBeDefined();
      if (!f) continue;
      // Base event and classification: required in every class.
      expect(e.category_uid).toBe(2);
      expect([2003, 2004]).toContain(e.class_uid);
      expect([1, 2, 3]).toContain(e.activity_id);
      expect(e.type_uid).toBe((e.class_uid as number) * 100 + (e.activity_id as number));
      expect(e.severity_id).toBe(severityIds[f.severity]);
      expect(typeof e.time).toBe("number");
      expect(e.metadata).toMatchObject({
        version: "1.3.0",
        product: { name: expect.any(String), vendor_name: expect.any(String) },
        tenant_uid: a.orgId,
      });
      // Finding: finding_info's required uid and title, and the times and types it carries.
      expect(info).toMatchObject({
        uid: f.id,
        title: f.title,
        created_time: f.detectedAt.getTime(),
        first_seen_time: f.detectedAt.getTime(),
        types: [f.category],
      });
      expect(e.resources).toEqual([{ uid: f.resourceId, name: f.resourceName, type: f.resourceType }]);
    }
    const byId = new Map(events.map((e) => [(e.finding_info as { uid: string }).uid, e]));

    // Compliance Finding: `compliance` is required, with `standards`; the control is the benchmark's id.
    expect(byId.get(s.tenant.id)).toMatchObject({
      class_uid: 2003,
      class_name: "Compliance Finding",
      activity_id: 1,
      type_uid: 200301,
      status_id: 1,
      severity_id: 4,
      compliance: {
        standards: ["CIS Google Workspace Foundations v1.3.0"],
        control: "3.1.2.1.1",
        status_id: 3,
        status: "Fail",
      },
      remediation: { desc: "Admin console > Security > 2-step verification" },
      finding_info: { last_seen_time: SCAN_DONE.getTime() },
    });
    // Detection Finding for the others; a resolved one is a Close at its resolution.
    expect(byId.get(s.resolved.id)).toMatchObject({
      class_uid: 2004,
      class_name: "Detection Finding",
      activity_id: 3,
      type_uid: 200403,
      status_id: 4,
      status: "Resolved",
      time: RESOLVED_AT.getTime(),
    });
    expect(byId.get(s.resolved.id)).not.toHaveProperty("compliance");
    expect(byId.get(s.accepted.id)).toMatchObject({ activity_id: 2, type_uid: 200402, status_id: 3 });
    expect(byId.get(s.inject.id)).toMatchObject({
      activity_id: 1,
      status_id: 1,
      time: s.inject.detectedAt.getTime(),
      severity_id: 5,
    });
    for (const id of otherIds) expect(res.text).not.toContain(id);
  });

  it("refuses a missing or unknown format and bad filters with 400 invalid_input", async () => {
    for (const q of [
      "",
      "?format=xlsx",
      "?format=CSV",
      "?format=csv&severity=URGENT",
      "?format=csv&status=open",
      "?format=csv&limit=5",
    ]) {
      const res = await gw.request("GET", `/api/findings/export${q}`, { key: a.key });
      expect(res.status, q).toBe(400);
      expect(res.body, q).toMatchObject({ error: "invalid_input" });
    }
  });

  it("accepts an API key or a session, as the list does; no credential is 401; a key without API access 402", async () => {
    const bySession = await gw.request("GET", "/api/findings/export?format=ndjson", { cookie: a.cookie });
    expect(bySession.status).toBe(200);
    expect(lines(bySession.text).map((r) => r.id)).toEqual([s.inject.id, s.tenant.id, s.unicode.id]);
    const anonymous = await gw.request("GET", "/api/findings/export?format=ndjson");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ error: "unauthenticated" });
    // No plan gate of its own: a team organization exports from a session; its key is refused
    // as every key of a plan without apiAccess.
    const team = await gw.createActor({ plan: "team" });
    expect((await gw.request("GET", "/api/findings/export?format=csv", { cookie: team.cookie })).status).toBe(
      200,
    );
    const teamKey = await gw.request("GET", "/api/findings/export?format=csv", { key: team.key });
    expect(teamKey.status).toBe(402);
    expect(teamKey.body).toMatchObject({ error: "plan_upgrade_required" });
  });

  it("audits who exported which format and filters", async () => {
    const b = await gw.createActor({ plan: "business" });
    const res = await gw.request("GET", "/api/findings/export?format=ocsf&severity=LOW&status=all", {
      key: b.key,
    });
    expect(res.status).toBe(200);
    const rows = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, b.orgId), eq(auditLog.action, "FINDINGS_EXPORTED")));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      target: b.orgId,
      userEmail: b.user.email,
      metadata: { format: "ocsf", filters: { status: "all", severity: "LOW" } },
    });
  });

  it("reads past a batch: 5,003 findings sharing one detection time, each exactly once", async () => {
    const c = await gw.createActor({ plan: "business" });
    const [conn] = await gw.db.db
      .insert(connectors)
      .values({ orgId: c.orgId, type: "google_workspace", displayName: "Many", mode: "demo" })
      .returning();
    await gw.db.db.execute(sql`
      INSERT INTO findings (id, org_id, connector_id, connector_type, fingerprint, rule_id, category, severity,
        severity_rank, title, resource_id, resource_name, resource_type, detected_at)
      SELECT 'fnd_many_' || g, ${c.orgId}, ${conn?.id ?? ""}, 'google_workspace', md5(g::text), 'public_link',
        'public_exposure', 'LOW', 1, 'Finding ' || g, 'r' || g, 'File ' || g, 'file',
        '2026-02-01T00:00:00.123456Z'::timestamptz + (g % 3) * interval '1 microsecond'
      FROM generate_series(1, 5003) g`);
    const res = await gw.request("GET", "/api/findings/export?format=ndjson", { key: c.key });
    expect(res.status).toBe(200);
    const ids = lines(res.text).map((r) => r.id as string);
    expect(ids).toHaveLength(5003);
    expect(new Set(ids).size).toBe(5003);
    const csv = await gw.request("GET", "/api/findings/export?format=csv", { key: c.key });
    expect(parseCsv(csv.text)).toHaveLength(5004);
  });
});
