import { describe, expect, it } from "vitest";
import { exportFinding } from "./findings-export";
import { toFindingView, type TFindingRow } from "./findings";

// The list (and the detail) build a finding's view from Drizzle rows with Dates; the export from
// text rows the database formatted. Both go through findingView: the same fields in the same
// order, so an NDJSON line is byte for byte the detail's body.

type TRawRow = Parameters<typeof exportFinding>[0];

const tenant = {
  benchmark: { name: "CIS Google Workspace Foundations", version: "1.3.0", id: "3.1.2.1.1" },
  settings: { allowExternalSharing: true },
  expected: "external sharing off",
  fix: "Turn external sharing off",
};

function pair(over: { category: string; tenant: TFindingRow["tenant"]; resolvedAt: Date | null }) {
  const row: TFindingRow = {
    id: "fnd_1",
    severity: "HIGH",
    title: "Shared with anyone who has the link",
    resourceName: "budget.xlsx",
    connectorType: "google_workspace",
    status: over.resolvedAt ? "RESOLVED" : "OPEN",
    detectedAt: new Date("2026-11-02T08:15:30.123Z"),
    category: over.category,
    ruleId: "public_link",
    connectorId: "con_1",
    resolvedAt: over.resolvedAt,
    tenant: over.tenant,
  };
  const raw: TRawRow = {
    id: row.id,
    severity: row.severity,
    title: row.title,
    resource_name: row.resourceName,
    connector_type: row.connectorType,
    status: row.status,
    detected_at: "2026-11-02T08:15:30.123Z",
    category: row.category,
    rule_id: row.ruleId,
    connector_id: row.connectorId,
    resolved_at: over.resolvedAt ? over.resolvedAt.toISOString() : null,
    tenant: over.tenant,
    resource_id: "file_1",
    resource_type: "file",
    last_seen_scan_id: "scn_1",
    cursor_at: "2026-11-02T08:15:30.123456Z",
  };
  return { row, raw };
}

describe("one finding view for the list and the export", () => {
  it.each([
    ["an open sharing finding", { category: "sharing", tenant: null, resolvedAt: null }],
    [
      "a resolved one",
      { category: "sharing", tenant: null, resolvedAt: new Date("2026-11-03T09:00:00.000Z") },
    ],
    ["a tenant-configuration finding", { category: "tenant_configuration", tenant, resolvedAt: null }],
  ] as const)("%s: the export's view is the list's, key for key", (_, over) => {
    const { row, raw } = pair(over);
    const listed = toFindingView(row);
    const exported = exportFinding(raw, new Map()).view;
    expect(JSON.stringify(exported)).toBe(JSON.stringify(listed));
    if (over.tenant)
      expect(listed).toMatchObject({ benchmark: tenant.benchmark, tenantCheck: { fix: tenant.fix } });
    else expect(Object.keys(listed)).not.toContain("benchmark");
  });

  it("adds the export's own fields: the resource, and when a scan last saw it", () => {
    const { raw } = pair({ category: "sharing", tenant: null, resolvedAt: null });
    const seen = new Map([["scn_1", "2026-11-20T10:00:00.000Z"]]);
    expect(exportFinding(raw, seen)).toMatchObject({
      resourceId: "file_1",
      resourceType: "file",
      lastSeenAt: "2026-11-20T10:00:00.000Z",
    });
    // A scan no longer known: the detection time stands in.
    expect(exportFinding(raw, new Map()).lastSeenAt).toBe(raw.detected_at);
  });
});
