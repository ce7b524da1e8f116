import { and, desc, eq, sql } from "drizzle-orm";
import {
  activityEvents,
  allowLongStatements,
  canCopy,
  copyRows,
  createWritePipeline,
  isUniqueViolation,
  JOB_STATEMENT_TIMEOUT_MS,
  queryRows,
  unnestRows,
  type Db,
  type TArrayColumn,
} from "@posture/db";

/** One event as a source adapter reports it (structurally the connectors' TActivityEvent). */
export type TActivityInput = {
  id: string;
  at: string;
  actorEmail: string;
  type: string;
  resourceId?: string | undefined;
  target?: string | undefined;
};

// Rows per statement: each column travels as one array parameter, so the statement text and its
// parse and bind cost do not grow with the batch.
const BATCH = 10_000;

const EVENT_COLUMNS: readonly TArrayColumn[] = [
  ["external_id", "text"],
  ["principal", "text"],
  ["kind", "text"],
  ["at", "timestamptz"],
  ["resource_id", "text"],
  ["target", "text"],
];
/** COPY's columns: the organization and connector, then EVENT_COLUMNS. */
const COPY_COLUMNS = ["org_id", "connector_id", ...EVENT_COLUMNS.map(([n]) => n)];
/** First ingestion of a connector reads this far back; afterwards from the last event stored. */
export const FIRST_INGEST_DAYS = 180;
/** Sources publish late (Google Reports: hours): each ingestion re-reads this overlap, deduplicated by id. */
const OVERLAP_MS = 24 * 3_600_000;
const DAY_MS = 86_400_000;

/** Where a connector's next ingestion starts, and whether it is its first (nothing stored yet). */
export async function ingestSince(
  db: Db,
  q: { orgId: string; connectorId: string; now: Date },
): Promise<{ since: Date; first: boolean }> {
  const [last] = await db
    .select({ at: activityEvents.at })
    .from(activityEvents)
    .where(and(eq(activityEvents.orgId, q.orgId), eq(activityEvents.connectorId, q.connectorId)))
    .orderBy(desc(activityEvents.at))
    .limit(1);
  const floor = q.now.getTime() - FIRST_INGEST_DAYS * DAY_MS;
  return {
    since: new Date(last ? Math.max(floor, last.at.getTime() - OVERLAP_MS) : floor),
    first: last === undefined,
  };
}

/**
 * Stores a stream of activity compactly, in bulk, idempotently: an event already stored (same
 * connector and source id) is skipped, so re-reading a window never double-counts. Returns how
 * many were new and the earliest time touched, from which the weekly aggregates are refreshed.
 *
 * `first`: the connector has no stored events, so none can conflict and batches are inserted
 * plainly (ON CONFLICT's speculative insertion costs about 15 % a row, hundreds of thousands of
 * rows on a first scan) until one collides: a source repeating an id, or a second ingestion of the
 * connector running at once. That batch is retried deduplicated, and so is every later one. On
 * node-postgres a plain batch is loaded with COPY (no statement to parse, no arrays to build and
 * unnest; a COPY is one statement, so a collision leaves nothing of its batch behind); PGlite keeps
 * the array insert.
 */
export async function storeActivity(
  db: Db,
  input: { orgId: string; connectorId: string; events: AsyncIterable<TActivityInput>; first?: boolean },
): Promise<{ inserted: number; earliest: Date | null }> {
  let batch: unknown[][] = [];
  let inserted = 0;
  let earliest: number | null = null;
  let plain = input.first === true;
  // The next batch is read and built while the database stores this one.
  const pipeline = createWritePipeline();
  const copy = canCopy(db);
  const insert = async (rows: unknown[][], dedupe: boolean) => {
    if (copy && !dedupe) {
      const n = await copyRows(
        db,
        "activity_events",
        COPY_COLUMNS,
        rows.map((r) => [input.orgId, input.connectorId, ...r]),
      );
      // Every row is inserted or none is: the earliest is the batch's (ISO strings sort by time).
      let earliest: string | null = null;
      for (const r of rows) if (earliest === null || (r[3] as string) < earliest) earliest = r[3] as string;
      return { n, earliest };
    }
    const [row] = await queryRows<{ n: number; earliest: Date | string | null }>(
      db,
      sql`WITH ins AS (
          INSERT INTO activity_events (org_id, connector_id, external_id, principal, kind, at, resource_id, target, count)
          SELECT ${input.orgId}, ${input.connectorId}, u.external_id, u.principal, u.kind, u.at, u.resource_id, u.target, 1
          FROM ${unnestRows(EVENT_COLUMNS, rows)}
          ${dedupe ? sql`ON CONFLICT (connector_id, external_id) DO NOTHING` : sql``}
          RETURNING at)
        SELECT count(*)::int AS n, min(at) AS earliest FROM ins`,
    );
    return row;
  };
  const write = async (rows: unknown[][]) => {
    let row: Awaited<ReturnType<typeof insert>> | null = null;
    if (plain) {
      try {
        row = await insert(rows, false);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        plain = false;
      }
    }
    row ??= await insert(rows, true);
    inserted += row?.n ?? 0;
    if (row?.earliest) {
      const t = new Date(row.earliest).getTime();
      if (earliest === null || t < earliest) earliest = t;
    }
  };
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    await pipeline.send(() => write(rows));
  };
  for await (const e of input.events) {
    const at = new Date(e.at);
    if (Number.isNaN(at.getTime()) || !e.actorEmail) continue;
    // In EVENT_COLUMNS' order.
    batch.push([e.id, e.actorEmail.toLowerCase(), e.type, at.toISOString(), e.resourceId, e.target]);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  await pipeline.drain();
  return { inserted, earliest: earliest === null ? null : new Date(earliest) };
}

/** How activity kinds fold into the baselined metrics. */
export const METRIC_OF_KIND = sql`case kind
  when 'share_external' then 'external_shares'
  when 'file_access' then 'resource_accesses'
  when 'download' then 'resource_accesses'
  when 'oauth_grant' then 'oauth_grants'
  when 'file_delete' then 'deletions'
  when 'login' then 'logins'
end`;

/**
 * Rebuilds the organization's weekly aggregates (deletions as distinct files a week) from `from` on (whole ISO weeks), in one
 * transaction: readers see the old weeks or the new ones, never half.
 */
export async function refreshWeeklyAggregates(db: Db, q: { orgId: string; from: Date }): Promise<number> {
  return db.transaction(async (tx) => {
    // A large tenant's fourteen weeks of events: past the per-request statement bound.
    await tx.execute(allowLongStatements(JOB_STATEMENT_TIMEOUT_MS));
    await tx.execute(
      sql`delete from activity_weekly where org_id = ${q.orgId} and week >= date_trunc('week', ${q.from.toISOString()}::timestamptz at time zone 'UTC')::date`,
    );
    const rows = await queryRows<{ n: number }>(
      tx,
      sql`with ins as (
        insert into activity_weekly (org_id, principal, metric, week, count)
        select org_id, principal, ${METRIC_OF_KIND} as metric,
               date_trunc('week', at at time zone 'UTC')::date as week,
               -- Deletions count files, not events: binning then purging a file (Drive trash then
               -- delete, SharePoint FileRecycled then FileDeletedFirstStageRecycleBin) is one file.
               (case when min(kind) = 'file_delete'
                 then count(distinct coalesce(resource_id, external_id))
                 else sum(count) end)::int
        from activity_events
        where org_id = ${q.orgId}
          and at >= date_trunc('week', ${q.from.toISOString()}::timestamptz at time zone 'UTC') at time zone 'UTC'
          and kind in ('share_external', 'file_access', 'download', 'oauth_grant', 'file_delete', 'login')
        group by 1, 2, 3, 4
        returning 1)
      select count(*)::int as n from ins`,
    );
    return rows[0]?.n ?? 0;
  });
}
