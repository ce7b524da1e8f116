import { sql, type SQL } from "drizzle-orm";
import {
  AI_REACH_WORST,
  ANY_ASSISTANT,
  EXPOSURES,
  queryRows,
  reachRowOf,
  refreshAiReach,
  SENSITIVITIES,
  type Db,
  type TExposure,
  type TReachCounts,
  type TReachFileRow,
  type TReachRow,
  type TSensitivity,
  type TSeverity,
} from "@posture/db";
import { exposureStateKey, memoised } from "./answer-memo";

// The stored AI reach (ai_reach_summaries, ai_reach_files; packages/db/src/reach/materialise.ts),
// as GET /api/exposure/ai and its files page read it. Each connector's rows are written at the
// end of its scans; a connector whose store changed since (a remediation applied between scans)
// is computed again before the read, so the answer is always the store's.

export const WORST_FILES = AI_REACH_WORST;

export type TSummaryRow = {
  connectorId: string;
  subject: string;
  kind: "assistant" | "agent";
  label: string;
  access: "application" | "delegated" | undefined;
  users: number;
  counts: TReachCounts;
  worst: TReachRow[];
};

/** Computes again the connectors whose stored reach is not from their store as it now is. */
export async function freshAiReach(db: Db, { orgId }: { orgId: string }): Promise<void> {
  // A connector's store without a snapshot row (written without a scan) has the version -1.
  const stale = await queryRows<{ connector_id: string }>(
    db,
    sql`SELECT c.id AS connector_id FROM connectors c LEFT JOIN workspace_snapshots s ON s.connector_id = c.id
        WHERE c.org_id = ${orgId} AND NOT EXISTS (
          SELECT 1 FROM ai_reach_summaries a WHERE a.connector_id = c.id AND a.subject = '*'
            AND a.scan_id IS NOT DISTINCT FROM s.scan_id AND a.store_version = coalesce(s.store_version, -1))
        ORDER BY 1`,
  );
  for (const c of stale) await refreshAiReach(db, { orgId, connectorId: c.connector_id });
}

export async function aiReachRows(db: Db, { orgId }: { orgId: string }): Promise<TSummaryRow[]> {
  const rows = await queryRows<{
    connector_id: string;
    subject: string;
    kind: "assistant" | "agent";
    label: string;
    access: "application" | "delegated" | null;
    users: number;
    counts: TReachCounts;
    worst: TReachRow[];
  }>(
    db,
    sql`SELECT connector_id, subject, kind, label, access, users, counts, worst FROM ai_reach_summaries
        WHERE org_id = ${orgId} ORDER BY connector_id, subject`,
  );
  return rows.map((r) => ({
    connectorId: r.connector_id,
    subject: r.subject,
    kind: r.kind,
    label: r.label,
    access: r.access ?? undefined,
    users: Number(r.users),
    counts: r.counts,
    worst: r.worst,
  }));
}

/** The subjects' counts over connectors (a file belongs to one connector: the sets are disjoint). */
export function mergeCounts(rows: readonly Pick<TSummaryRow, "counts">[]): TReachCounts {
  const out: TReachCounts = {
    total: 0,
    sensitive: 0,
    orgWide: 0,
    bySensitivity: Object.fromEntries(SENSITIVITIES.map((s) => [s, 0])) as Record<TSensitivity, number>,
    byExposure: Object.fromEntries(EXPOSURES.map((e) => [e, 0])) as Record<TExposure, number>,
  };
  for (const { counts: c } of rows) {
    out.total += c.total;
    out.sensitive += c.sensitive;
    out.orgWide += c.orgWide;
    for (const s of SENSITIVITIES) out.bySensitivity[s] += c.bySensitivity[s] ?? 0;
    for (const e of EXPOSURES) out.byExposure[e] += c.byExposure[e] ?? 0;
  }
  return out;
}

/** The files page's order: most sensitive, widest reach, then id. */
function byPageOrder(a: TReachRow, b: TReachRow): number {
  return (
    SENSITIVITIES.indexOf(a.sensitivity) - SENSITIVITIES.indexOf(b.sensitivity) ||
    b.reach.people - a.reach.people ||
    (a.fileId < b.fileId ? -1 : a.fileId > b.fileId ? 1 : 0)
  );
}

/** The worst files of the subject over its connectors: each connector's first ones, merged. */
export const mergeWorst = (rows: readonly Pick<TSummaryRow, "worst">[]): TReachRow[] =>
  rows
    .flatMap((r) => r.worst)
    .sort(byPageOrder)
    .slice(0, WORST_FILES);

type TPageRow = TReachFileRow & { connector_id: string };

/** A file of the page with an open internal-exposure finding of this severity (its partial index). */
const withFindingOf = (orgId: string, severity: TSeverity) =>
  sql`EXISTS (SELECT 1 FROM findings fi WHERE fi.org_id = ${orgId} AND fi.status = 'OPEN'
        AND fi.category = 'internal_exposure' AND fi.severity = ${severity}
        AND fi.connector_id = a.connector_id AND fi.resource_id = a.external_id)`;

/**
 * One page of the files an assistant's users (absent: any assistant's), or a delegated agent, can open, from
 * ai_reach_files in its index's order. With `severity`, only files with an open internal-exposure
 * finding of that severity: the page walks the index and stops at its last row, and the total is
 * counted once per state of the organization (`exposureStateKey`) and kept; without, `total` is
 * null: the summaries hold it.
 */
export async function assistantFilesPage(
  db: Db,
  q: { orgId: string; assistant?: string; severity?: TSeverity; limit: number; offset: number },
): Promise<{ rows: TReachRow[]; total: number | null }> {
  const filters: SQL[] = [sql`a.org_id = ${q.orgId}`];
  filters.push(
    q.assistant === undefined ? sql`a.any_assistant` : sql`a.assistants @> ARRAY[${q.assistant}]::text[]`,
  );
  if (q.severity !== undefined) filters.push(withFindingOf(q.orgId, q.severity));
  const where = sql.join(filters, sql` AND `);
  const order = sql`ORDER BY a.sens_rank, a.reach_people DESC NULLS LAST, a.file_id`;
  const ids = sql`SELECT a.connector_id, a.file_id, row_number() OVER (${order}) AS n FROM ai_reach_files a
    WHERE ${where} ${order} LIMIT ${q.limit} OFFSET ${q.offset}`;
  const [rows, total] = await Promise.all([
    queryRows<TPageRow>(
      db,
      sql`WITH page AS MATERIALIZED (${ids})
        SELECT f.id, f.connector_id, f.name, f.mime_type, f.owner_email, f.sensitivity, f.exposure, f.labels,
          f.reach_people,
          (f.reach_org_wide OR EXISTS (
            SELECT 1 FROM workspace_permissions op WHERE op.connector_id = f.connector_id AND op.file_id = f.id
              AND (op.sharing_type = 'public' OR (op.sharing_type = 'internal' AND strpos(op.target, '@') = 0)))) AS org_wide
        FROM page JOIN workspace_files f ON f.id = page.file_id AND f.connector_id = page.connector_id
        WHERE f.org_id = ${q.orgId} ORDER BY page.n`,
    ),
    q.severity === undefined
      ? null
      : exposureStateKey(db, { orgId: q.orgId }).then((key) =>
          memoised(`${q.orgId}:files:${q.assistant ?? ANY_ASSISTANT}:${q.severity}`, key, async () => {
            const [c] = await queryRows<{ n: number }>(
              db,
              sql`SELECT count(*)::int AS n FROM ai_reach_files a WHERE ${where}`,
            );
            return Number(c?.n ?? 0);
          }),
        ),
  ]);
  return { rows: rows.map((r) => reachRowOf(r.connector_id, r)), total };
}
