import { eq, sql, type SQL } from "drizzle-orm";
import {
  allowLongStatements,
  analyzeAfterWrite,
  arrayLiteral,
  connectors,
  JOB_STATEMENT_TIMEOUT_MS,
  newId,
  queryRows,
  scans,
  tenantCheckResults,
  unnestRows,
  type Db,
  type TArrayColumn,
  type TSeverity,
} from "@posture/db";
import type { TAppGrant, TCoverageGap } from "@posture/connectors";
import type { TCheckResult } from "@posture/benchmarks";
import { lockOrg } from "./locks";
import { computeOrgPosture } from "./posture";
import { dropDetections } from "./scan-detections";

function* chunks<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

export type TPersistInput = {
  scanId: string;
  orgId: string;
  connector: { id: string; type: string; displayName: string };
  /** The run whose detections were staged (scan_detections.run_id). */
  runId: string;
  /**
   * An incremental scan's files: the source ids of every file it re-evaluated or removed. Open
   * findings on other files were not looked at and stay as they are; every finding that is not
   * on a file is diffed in full. Absent for a full scan, which diffs everything.
   */
  fileScope?: readonly string[];
  grants: TAppGrant[];
  resourceCount: number;
  /** Every tenant check's result this scan: replaces the connector's stored results. */
  tenantChecks?: readonly TCheckResult[];
  /** What the scan could not read (stored on the scan). */
  coverage?: TCoverageGap[];
  now: Date;
  /** Runs in the scan's transaction once its results are written (the event outbox). */
  withinTransaction?: (tx: Db, result: TPersistResult) => Promise<void>;
};

export type TFindingRef = {
  id: string;
  ruleId: string;
  category: string;
  severity: TSeverity;
  title: string;
  resourceName: string;
};

export type TPersistResult = {
  newCount: number;
  resolvedCount: number;
  /**
   * The findings this scan opened (new or reopened) and resolved, read on demand from the scan's
   * transaction: a first scan of a large tenant opens hundreds of thousands, which only a
   * subscriber to their events needs to see.
   */
  newFindings: () => Promise<TFindingRef[]>;
  resolvedFindings: () => Promise<TFindingRef[]>;
  findingsTotal: number;
  postureScore: number;
};

const REF_COLUMNS = sql`id, rule_id AS "ruleId", category, severity, title, resource_name AS "resourceName"`;

/**
 * Applies one scan's staged detections to the stored findings in a single transaction, in
 * set-based statements (nothing the size of the workspace passes through this process): new
 * fingerprints are inserted, resolved ones that are back reopened, changed ones updated, open ones
 * no longer detected resolved. Unchanged rows are not written, so an unchanged rescan writes no
 * finding. A retried job re-runs this against the same state and, once the scan row is COMPLETE,
 * is skipped altogether. The staged detections are deleted either way.
 */
export async function persistScan(db: Db, input: TPersistInput): Promise<TPersistResult | null> {
  const { scanId, orgId, now } = input;
  const connectorId = input.connector.id;
  return db.transaction(async (tx) => {
    // A large tenant's scan writes tens of thousands of rows: past the per-request statement bound.
    await tx.execute(allowLongStatements(JOB_STATEMENT_TIMEOUT_MS));
    await tx.execute(lockOrg(orgId, "findings"));
    // Another attempt of the same job may have finished while this one read the source.
    const [current] = await tx.select({ status: scans.status }).from(scans).where(eq(scans.id, scanId));
    if (!current || current.status === "COMPLETE" || current.status === "FAILED") {
      await dropDetections(tx as unknown as Db, scanId);
      return null;
    }

    // One row per fingerprint, the most severe (a resource read twice was detected twice).
    await tx.execute(sql`
      CREATE TEMP TABLE scan_detected ON COMMIT DROP AS
      SELECT DISTINCT ON (fingerprint) * FROM scan_detections WHERE run_id = ${input.runId}
      ORDER BY fingerprint, severity_rank DESC`);
    await tx.execute(sql`CREATE UNIQUE INDEX ON scan_detected (fingerprint)`);
    // Its size and the join key are all the diff's plans need (the details' statistics cost more).
    await tx.execute(sql`ANALYZE scan_detected (fingerprint)`);
    // Every run's staged rows go when this transaction commits (this run's are copied above).
    await dropDetections(tx as unknown as Db, scanId);
    // A tenant check this scan could not evaluate is neither failed nor fixed: its open finding stays.
    const unevaluated = arrayLiteral(
      (input.tenantChecks ?? []).filter((r) => r.status === "unavailable").map((r) => r.check.id),
    );
    const count = async (statement: SQL) => (await queryRows<{ n: number }>(tx, statement))[0]?.n ?? 0;

    const inserted = await count(sql`
      WITH ins AS (
        INSERT INTO findings (id, org_id, connector_id, connector_type, fingerprint, rule_id, category, severity,
          severity_rank, title, resource_id, resource_name, resource_type, details, detected_at, last_seen_scan_id)
        SELECT d.finding_id, ${orgId}, ${connectorId}, ${input.connector.type}, d.fingerprint, d.rule_id, d.category,
          d.severity, d.severity_rank, d.title, d.resource_id, d.resource_name, d.resource_type, d.details,
          ${now.toISOString()}::timestamptz, ${scanId}
        FROM scan_detected d
        WHERE NOT EXISTS (SELECT 1 FROM findings f WHERE f.connector_id = ${connectorId} AND f.fingerprint = d.fingerprint)
        RETURNING 1)
      SELECT count(*)::int AS n FROM ins`);
    const reopened = await count(sql`
      WITH upd AS (
        UPDATE findings f SET status = 'OPEN', resolved_at = NULL, resolved_by = NULL, detected_at = ${now.toISOString()}::timestamptz,
          last_seen_scan_id = ${scanId}
        FROM scan_detected d
        WHERE f.connector_id = ${connectorId} AND f.fingerprint = d.fingerprint AND f.status = 'RESOLVED'
        RETURNING 1)
      SELECT count(*)::int AS n FROM upd`);
    // Details follow what the scan saw (an app's grant and user counts), as severity and title do.
    await tx.execute(sql`
      UPDATE findings f SET severity = d.severity, severity_rank = d.severity_rank, title = d.title, details = d.details
      FROM scan_detected d
      WHERE f.connector_id = ${connectorId} AND f.fingerprint = d.fingerprint
        AND (f.severity <> d.severity OR f.title <> d.title OR f.details IS DISTINCT FROM d.details)`);
    const scope = await inScope(tx as unknown as Db, input.fileScope);
    // An open finding was seen by every completed scan of its connector (see lastSeenAt in
    // findings-export.ts): one that resolves now was last seen by the connector's previous scan,
    // which its row records. A tenant check's finding keeps its own row's scan, moved below.
    const [previous] = await queryRows<{ id: string }>(
      tx,
      sql`SELECT id FROM scans WHERE org_id = ${orgId} AND connector_id = ${connectorId} AND status = 'COMPLETE'
            AND id <> ${scanId} ORDER BY completed_at DESC, id DESC LIMIT 1`,
    );
    const resolvedCount = await count(sql`
      WITH upd AS (
        UPDATE findings f SET status = 'RESOLVED', resolved_at = ${now.toISOString()}::timestamptz,
          last_seen_scan_id = CASE WHEN f.category = 'tenant_configuration' THEN f.last_seen_scan_id
            ELSE coalesce(${previous?.id ?? null}::text, f.last_seen_scan_id) END
        WHERE f.connector_id = ${connectorId} AND f.status = 'OPEN'
          AND NOT EXISTS (SELECT 1 FROM scan_detected d WHERE d.fingerprint = f.fingerprint)
          AND f.rule_id <> ALL(${unevaluated}::text[])
          AND ${scope}
        RETURNING 1)
      SELECT count(*)::int AS n FROM upd`);
    // A tenant check this scan could not evaluate was not seen: its finding's row keeps the last
    // scan that evaluated it, so those rows (a few per connector) carry their own last sight.
    await tx.execute(sql`
      UPDATE findings f SET last_seen_scan_id = ${scanId}
      FROM scan_detected d
      WHERE d.category = 'tenant_configuration' AND f.connector_id = ${connectorId} AND f.fingerprint = d.fingerprint
        AND f.last_seen_scan_id IS DISTINCT FROM ${scanId}`);
    // An accepted finding is not resolved when no longer detected, so it too carries its own last
    // sight: detected now, or on a file an incremental scan confirmed unchanged.
    await tx.execute(sql`
      UPDATE findings f SET last_seen_scan_id = ${scanId}
      WHERE f.org_id = ${orgId} AND f.status = 'ACCEPTED' AND f.connector_id = ${connectorId}
        AND f.last_seen_scan_id IS DISTINCT FROM ${scanId}
        AND (EXISTS (SELECT 1 FROM scan_detected d WHERE d.fingerprint = f.fingerprint) OR NOT ${scope})`);
    // An incremental scan detected only its files' findings: the total is what is open now.
    const findingsTotal = await count(
      input.fileScope
        ? sql`SELECT count(*)::int AS n FROM findings WHERE connector_id = ${connectorId} AND status = 'OPEN'`
        : sql`SELECT count(*)::int AS n FROM scan_detected`,
    );
    // A scan that wrote a good part of the findings (a first scan: all of them) gives the planner
    // their statistics at once, as autovacuum would a minute later (or never, where it is off):
    // without them the posture below and the next scan's diff pick plans many times slower.
    await analyzeAfterWrite(tx as unknown as Db, "findings", {
      connectorId,
      written: inserted + reopened + resolvedCount,
      rows: findingsTotal,
    });

    await replaceGrants(tx as unknown as Db, input);
    if (input.tenantChecks) await replaceTenantCheckResults(tx as unknown as Db, input, input.tenantChecks);
    await tx
      .update(connectors)
      .set({
        resourceCount: input.resourceCount,
        findingCount: findingsTotal,
        lastScanAt: now,
        healthStatus: "healthy",
        healthDetail: null,
      })
      .where(eq(connectors.id, connectorId));

    const posture = await computeOrgPosture(tx as unknown as Db, { orgId });
    const newCount = inserted + reopened;
    await tx
      .update(scans)
      .set({
        status: "COMPLETE",
        resources: input.resourceCount,
        findingsNew: newCount,
        findingsResolved: resolvedCount,
        findingsTotal,
        postureScore: posture.score,
        breakdown: posture as unknown as Record<string, unknown>,
        coverage: input.coverage ?? [],
        completedAt: now,
      })
      .where(eq(scans.id, scanId));

    // Inserted and reopened rows, and only those, carry this scan's id; resolved ones its time
    // (the findings lock keeps every other writer out of this connector's rows meanwhile).
    const result: TPersistResult = {
      newCount,
      resolvedCount,
      newFindings: () =>
        queryRows<TFindingRef>(
          tx,
          sql`SELECT ${REF_COLUMNS} FROM findings WHERE connector_id = ${connectorId} AND last_seen_scan_id = ${scanId}
                AND status = 'OPEN' AND detected_at = ${now.toISOString()}::timestamptz ORDER BY id`,
        ),
      resolvedFindings: () =>
        queryRows<TFindingRef>(
          tx,
          sql`SELECT ${REF_COLUMNS} FROM findings WHERE connector_id = ${connectorId} AND status = 'RESOLVED'
                AND resolved_at = ${now.toISOString()}::timestamptz ORDER BY id`,
        ),
      findingsTotal,
      postureScore: posture.score,
    };
    await input.withinTransaction?.(tx, result);
    return result;
  });
}

/**
 * The findings a scan may resolve: all of them for a full scan; for an incremental one, those not
 * on a file and those on its files (held in a temporary table: an array compared per row would
 * cost the open findings times the changed files).
 */
async function inScope(tx: Db, fileScope: readonly string[] | undefined): Promise<SQL> {
  if (!fileScope) return sql`true`;
  await tx.execute(sql`CREATE TEMP TABLE scan_file_scope (resource_id text PRIMARY KEY) ON COMMIT DROP`);
  for (const batch of chunks([...fileScope], 10_000))
    await tx.execute(
      sql`INSERT INTO scan_file_scope SELECT DISTINCT unnest(${arrayLiteral(batch)}::text[]) ON CONFLICT DO NOTHING`,
    );
  await tx.execute(sql`ANALYZE scan_file_scope`);
  return sql`(f.resource_type <> 'file' OR f.resource_id IN (SELECT resource_id FROM scan_file_scope))`;
}

/** The connector's tenant-check results as of this scan (the compliance evidence of their controls). */
async function replaceTenantCheckResults(db: Db, input: TPersistInput, results: readonly TCheckResult[]) {
  await db.delete(tenantCheckResults).where(eq(tenantCheckResults.connectorId, input.connector.id));
  for (const batch of chunks([...results], 500))
    await db.insert(tenantCheckResults).values(
      batch.map((r) => ({
        orgId: input.orgId,
        connectorId: input.connector.id,
        checkId: r.check.id,
        benchmark: r.check.benchmark,
        status: r.status,
        observed: r.observed,
        reason: r.reason ?? null,
        scanId: input.scanId,
        checkedAt: input.now,
      })),
    );
}

const GRANT_COLUMNS: readonly TArrayColumn[] = [
  ["id", "text"],
  ["external_id", "text"],
  ["client_id", "text"],
  ["label", "text"],
  ["kind", "text"],
  ["publisher", "text"],
  ["is_known_publisher", "bool"],
  ["_scopes", "text"],
  ["user_email", "text"],
  ["granted_at", "timestamptz"],
  ["access", "text"],
  ["agent_source", "text"],
];

/**
 * The connector's apps and agents as of this scan (used by the timeline and agent views). The
 * stored grants are read once and compared here: the gone ones are deleted, and only new grants
 * and those whose label, client, scopes or publisher standing changed are sent and upserted (the
 * upsert probes again, so a concurrent writer cannot make it rewrite an equal row). An unchanged
 * tenant's tens of thousands of grants cost one read and no write (measured at 1M files with
 * 37,500 grants: 2.5 s before, in 75 upserts of 500 rows that rewrote every row; see docs/decisions.md).
 */
async function replaceGrants(db: Db, input: TPersistInput): Promise<void> {
  let written = 0;
  const connectorId = input.connector.id;
  // A grant read twice is written once (an upsert may not touch a row twice): the last read wins.
  const read = new Map(input.grants.map((g) => [g.id, g]));
  const stored = await queryRows<{
    external_id: string;
    label: string;
    client_id: string;
    scopes: string[];
    is_known_publisher: boolean;
    kind: string;
    publisher: string;
    access: string;
    agent_source: string | null;
  }>(
    db,
    sql`SELECT external_id, label, client_id, scopes, is_known_publisher, kind, publisher, access, agent_source
      FROM oauth_grants WHERE connector_id = ${connectorId}`,
  );
  const before = new Map(stored.map((r) => [r.external_id, r]));
  const gone = stored.filter((r) => !read.has(r.external_id)).map((r) => r.external_id);
  const grants = [...read.values()].filter((g) => {
    const s = before.get(g.id);
    return (
      !s ||
      s.label !== g.label ||
      s.client_id !== g.clientId ||
      s.is_known_publisher !== g.isKnownPublisher ||
      // What the source says the app is, and how it reads (issue 30: registries, catalog, access).
      s.kind !== g.kind ||
      s.publisher !== g.publisher ||
      s.access !== (g.access ?? "delegated") ||
      s.agent_source !== (g.agentSource ?? null) ||
      s.scopes.length !== g.scopes.length ||
      s.scopes.some((scope, i) => scope !== g.scopes[i])
    );
  });
  if (gone.length > 0)
    written += rowCount(
      await db.execute(sql`
        DELETE FROM oauth_grants WHERE connector_id = ${connectorId} AND external_id = ANY(${arrayLiteral(gone)}::text[])`),
    );
  for (const batch of chunks(grants, 10_000)) {
    const rows = batch.map((g) => [
      newId("grt"),
      g.id,
      g.clientId,
      g.label,
      g.kind,
      g.publisher,
      g.isKnownPublisher,
      JSON.stringify(g.scopes),
      g.userEmail,
      new Date(g.grantedAt),
      g.access ?? "delegated",
      g.agentSource ?? null,
    ]);
    const upserted = await db.execute(sql`
      WITH v AS (
        SELECT u.id, u.external_id, u.client_id, u.label, u.kind, u.publisher, u.is_known_publisher,
          ARRAY(SELECT jsonb_array_elements_text(u._scopes::jsonb)) AS scopes, u.user_email, u.granted_at,
          u.access, u.agent_source
        FROM ${unnestRows(GRANT_COLUMNS, rows)})
      INSERT INTO oauth_grants AS t (id, org_id, connector_id, external_id, client_id, label, kind, publisher,
        is_known_publisher, scopes, user_email, granted_at, access, agent_source)
      SELECT v.id, ${input.orgId}, ${connectorId}, v.external_id, v.client_id, v.label, v.kind, v.publisher,
        v.is_known_publisher, v.scopes, v.user_email, v.granted_at, v.access, v.agent_source
      FROM v
      WHERE NOT EXISTS (SELECT 1 FROM oauth_grants x WHERE x.connector_id = ${connectorId} AND x.external_id = v.external_id
        AND (x.label, x.client_id, x.scopes, x.is_known_publisher, x.kind, x.publisher, x.access, x.agent_source)
          IS NOT DISTINCT FROM (v.label, v.client_id, v.scopes, v.is_known_publisher, v.kind, v.publisher, v.access, v.agent_source))
      ON CONFLICT (connector_id, external_id) DO UPDATE SET label = excluded.label, client_id = excluded.client_id,
        scopes = excluded.scopes, is_known_publisher = excluded.is_known_publisher, kind = excluded.kind,
        publisher = excluded.publisher, access = excluded.access, agent_source = excluded.agent_source`);
    written += rowCount(upserted);
  }
  await analyzeAfterWrite(db, "oauth_grants", { connectorId, written, rows: read.size });
}

/** Rows a statement touched: node-postgres says `rowCount`, PGlite `affectedRows`. */
const rowCount = (result: unknown) => {
  const r = result as { rowCount?: number | null; affectedRows?: number };
  return r.rowCount ?? r.affectedRows ?? 0;
};
