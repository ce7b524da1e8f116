import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { connectors, findings, queryRows, scans, type Db } from "@posture/db";
import { audit, iso, type TActor } from "@posture/platform";
import {
  activeFilters,
  findingFilterConditions,
  findingView,
  type TFindingFilters,
  type TFindingView,
  type TTenantDetails,
} from "./findings";
import {
  csvHeader,
  csvRow,
  ndjsonRow,
  ocsfRow,
  type TExportFinding,
  type TExportFormat,
} from "./findings-export-formats";

/** Rows per query: 1,000,000 findings are 1,000 round trips; fewer rows in flight, less promoted garbage (docs/benchmarks.md). */
export const EXPORT_BATCH = 1_000;
const CHUNK_ROWS = 250;

// Timestamps as text made by the database, in UTC whatever the session's settings: the view's
// ISO form (milliseconds, as iso() writes a Date) and the keyset cursor's full microseconds, which
// a JavaScript Date would drop. Parsing a Date per column per row is most of the CPU otherwise.
const ISO_MS = sql.raw(`'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`);
const UTC_MICROS = sql.raw(`'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`);

type TRawRow = {
  id: string;
  severity: TFindingView["severity"];
  title: string;
  resource_name: string;
  connector_type: string;
  status: TFindingView["status"];
  detected_at: string;
  category: string;
  rule_id: string;
  connector_id: string;
  resolved_at: string | null;
  tenant: TTenantDetails | null;
  resource_id: string;
  resource_type: string;
  last_seen_scan_id: string | null;
  cursor_at: string;
};

/**
 * One exported finding from its text row: the view by the list's own builder (the export's rows
 * already carry ISO text, so no Date is made), plus the export's resource and last-seen fields.
 *
 * Last seen: every completed scan of a connector sees each of its open findings (a
 * full scan resolves what it did not detect; an incremental one confirms that the files it did not
 * re-read are unchanged, and diffs everything not on a file in full), so theirs is the end of the
 * connector's latest scan, and no scan rewrites a million rows to say so. A tenant check's finding
 * is seen only by the scans that could evaluate the check, an accepted one only while detected (no
 * scan resolves it), and a resolved one last before it resolved: theirs is the scan their row names
 * (persistScan, the remediation's resolution and a sharing approval keep it).
 */
export function exportFinding(
  r: TRawRow,
  seen: ReadonlyMap<string, string | undefined>,
  connectorSeen: ReadonlyMap<string, string | undefined> = new Map(),
): TExportFinding {
  const byConnector =
    r.status === "OPEN" && r.category !== "tenant_configuration"
      ? connectorSeen.get(r.connector_id)
      : undefined;
  const scanAt = byConnector ?? (r.last_seen_scan_id ? seen.get(r.last_seen_scan_id) : undefined);
  return {
    view: findingView({
      id: r.id,
      severity: r.severity,
      title: r.title,
      resourceName: r.resource_name,
      connectorType: r.connector_type,
      status: r.status,
      detectedAt: r.detected_at,
      category: r.category,
      ruleId: r.rule_id,
      connectorId: r.connector_id,
      resolvedAt: r.resolved_at,
      tenant: r.tenant,
    }),
    resourceId: r.resource_id,
    resourceType: r.resource_type,
    lastSeenAt: scanAt ?? r.detected_at,
  };
}

type TCursor = { at: string; id: string };

export type TFindingsExportQuery = { orgId: string; filters: TFindingFilters; cutoff: string };

/**
 * The organization's findings that match the list's filters, in keyset batches ordered by
 * (detected_at, id) over findings_org_detected_idx: memory holds one batch, whatever the count.
 * Only findings detected up to `cutoff` (the export's start) are read, so a finding re-opened
 * during the export (its detected_at moves to then) is never read twice. Rows come back as plain
 * text columns (no Date, no ORM mapping): at a million rows that is the difference that counts.
 */
export async function* exportBatches(db: Db, q: TFindingsExportQuery): AsyncGenerator<TExportFinding[]> {
  const filters = findingFilterConditions({ orgId: q.orgId, ...activeFilters(q.filters) });
  const lastSeen = new LastSeen(db, q.orgId);
  let after: TCursor | null = null;
  for (;;) {
    const conditions: SQL[] = [...filters, sql`${findings.detectedAt} <= ${q.cutoff}::timestamptz`];
    if (after) {
      conditions.push(
        sql`(${findings.detectedAt}, ${findings.id}) > (${after.at}::timestamptz, ${after.id})`,
      );
    }
    const rows = await queryRows<TRawRow>(
      db,
      sql`SELECT id, severity, title, resource_name, connector_type, status,
          to_char(detected_at AT TIME ZONE 'UTC', ${ISO_MS}) AS detected_at, category, rule_id, connector_id,
          to_char(resolved_at AT TIME ZONE 'UTC', ${ISO_MS}) AS resolved_at,
          CASE WHEN category = 'tenant_configuration' THEN details END AS tenant,
          resource_id, resource_type, last_seen_scan_id,
          to_char(detected_at AT TIME ZONE 'UTC', ${UTC_MICROS}) AS cursor_at
        FROM ${findings} WHERE ${and(...conditions)}
        -- The table's columns, not the text aliases of the same names.
        ORDER BY ${findings.detectedAt}, ${findings.id} LIMIT ${EXPORT_BATCH}`,
    );
    const last = rows.at(-1);
    if (!last) return;
    const seen = await lastSeen.of(rows.map((r) => r.last_seen_scan_id));
    const connectorSeen = await lastSeen.ofConnectors(rows.map((r) => r.connector_id));
    yield rows.map((r) => exportFinding(r, seen, connectorSeen));
    if (rows.length < EXPORT_BATCH) return;
    after = { at: last.cursor_at, id: last.id };
  }
}

/**
 * When each scan ended, looked up once per scan for the whole export: a batch of 5,000 findings
 * names a handful of scans. Bounded, so an organization with very many scans costs lookups, not memory.
 */
class LastSeen {
  private readonly known = new Map<string, string | undefined>();

  constructor(
    private readonly db: Db,
    private readonly orgId: string,
  ) {}

  async of(ids: readonly (string | null)[]): Promise<Map<string, string | undefined>> {
    const missing = [...new Set(ids)].filter((id): id is string => id !== null && !this.known.has(id));
    if (missing.length > 0) {
      if (this.known.size + missing.length > 10_000) this.known.clear();
      const rows = await this.db
        .select({
          id: scans.id,
          at: sql<
            Date | string | null
          >`coalesce(${scans.completedAt}, ${scans.startedAt}, ${scans.createdAt})`,
        })
        .from(scans)
        .where(and(eq(scans.orgId, this.orgId), inArray(scans.id, missing)));
      for (const id of missing) this.known.set(id, undefined);
      for (const r of rows) this.known.set(r.id, r.at === null ? undefined : iso(new Date(r.at)));
    }
    return this.known;
  }

  private readonly connectors = new Map<string, string | undefined>();

  /** When each connector's latest scan ended (connectors.last_scan_at): an organization has a handful. */
  async ofConnectors(ids: readonly string[]): Promise<Map<string, string | undefined>> {
    const missing = [...new Set(ids)].filter((id) => !this.connectors.has(id));
    if (missing.length > 0) {
      const rows = await this.db
        .select({ id: connectors.id, at: connectors.lastScanAt })
        .from(connectors)
        .where(and(eq(connectors.orgId, this.orgId), inArray(connectors.id, missing)));
      for (const id of missing) this.connectors.set(id, undefined);
      for (const r of rows) this.connectors.set(r.id, r.at === null ? undefined : iso(r.at));
    }
    return this.connectors;
  }
}

const CONTENT_TYPES: Record<TExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson",
  ocsf: "application/x-ndjson",
};

const EXTENSIONS: Record<TExportFormat, string> = { csv: "csv", ndjson: "ndjson", ocsf: "ocsf.ndjson" };

/** The bytes of an export, one chunk per batch (a header line first for CSV). */
export async function* exportBytes(
  db: Db,
  q: TFindingsExportQuery & { format: TExportFormat },
): AsyncGenerator<Uint8Array> {
  if (q.format === "csv") yield Buffer.from(csvHeader(), "utf8");
  const row =
    q.format === "csv"
      ? csvRow
      : q.format === "ndjson"
        ? ndjsonRow
        : (f: TExportFinding) => ocsfRow(f, q.orgId);
  for await (const batch of exportBatches(db, q)) {
    // Chunks of CHUNK_ROWS rows: the gateway's stream buffers a few chunks ahead of the socket,
    // so their size, not the batch's, bounds what waits in memory.
    for (let i = 0; i < batch.length; i += CHUNK_ROWS) {
      let text = "";
      for (const f of batch.slice(i, i + CHUNK_ROWS)) text += row(f);
      yield Buffer.from(text, "utf8");
    }
  }
}

/**
 * GET /api/findings/export: fixes the export's cutoff on the database's clock, records who
 * exported what (the audit row is written before the first byte, so an export cut short is
 * still on record), and hands back the file, read as it is sent.
 */
export async function startFindingsExport(
  db: Db,
  o: { orgId: string; actor: TActor; format: TExportFormat; filters: TFindingFilters },
) {
  const [clock] = await queryRows<{ now: string }>(
    db,
    sql`SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', ${UTC_MICROS}) AS now`,
  );
  const cutoff = clock?.now ?? new Date().toISOString();
  const filters = Object.fromEntries(Object.entries(o.filters).filter(([, v]) => v !== undefined));
  await audit(db, o, {
    action: "FINDINGS_EXPORTED",
    target: o.orgId,
    metadata: { format: o.format, filters, cutoff },
  });
  const stamp = cutoff.slice(0, 19).replace(/:/g, "-");
  return {
    filename: `findings-${stamp}Z.${EXTENSIONS[o.format]}`,
    contentType: CONTENT_TYPES[o.format],
    cutoff,
    body: () => exportBytes(db, { orgId: o.orgId, filters: o.filters, cutoff, format: o.format }),
  };
}
