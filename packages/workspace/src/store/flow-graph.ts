import { sql, type SQL } from "drizzle-orm";
import { arrayLiteral, SHARE_TYPES, type Db, type TFlowNodeType } from "@posture/db";
import { affected } from "./bulk-insert";
import { rowsOf } from "./rows";

const SCORE =
  sql.raw(`(CASE s.severity WHEN 'CRITICAL' THEN 85 WHEN 'HIGH' THEN 65 WHEN 'MEDIUM' THEN 40 ELSE 15 END
  + CASE s.sensitivity WHEN 'high' THEN 10 WHEN 'medium' THEN 5 ELSE 0 END)`);
const SEV = (rank: string) =>
  sql.raw(`(CASE ${rank} WHEN 4 THEN 'CRITICAL' WHEN 3 THEN 'HIGH' WHEN 2 THEN 'MEDIUM' ELSE 'LOW' END)`);

/** Which shares a part of the graph is derived from: all of the organization's, or some. */
type TWhere = { shares: SQL; domains: SQL };
const ALL: TWhere = { shares: sql`true`, domains: sql`true` };

/**
 * Derives the organization's external data-flow graph from its resource store: who (user) shares
 * which file with which outside domain or a public link, and which shared drives admit outsiders.
 * Approved shares stay in the graph (an approval accepts a flow, it does not remove it). Runs inside the caller's transaction (a snapshot commit or a
 * trusted-domain change); an advisory lock serialises two connectors of one organization.
 */
export async function rebuildFlowGraph(
  tx: Db,
  orgId: string,
  shares: SQL = sql`workspace_shares`,
): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`flow:${orgId}`}))`);
  await tx.execute(sql`DELETE FROM flow_nodes WHERE org_id = ${orgId}`);
  await tx.execute(sql`DELETE FROM flow_edges WHERE org_id = ${orgId}`);
  await insertFiles(tx, orgId, shares, ALL.shares);
  await insertExternals(tx, orgId, ALL, shares);
  await insertUsers(tx, orgId, ALL.shares, shares);
  await insertDrives(tx, orgId);
  await insertDriveExternals(tx, orgId, ALL.domains);
  await summarise(tx, orgId);
}

/** What an incremental snapshot changed: the parts of the graph derived from it are derived again. */
export type TGraphChanges = {
  /** workspace_files ids of the files written or deleted. */
  fileIds: string[];
  /** Their owners, before and after. */
  owners: string[];
  /** Their sharing items' outside domains, before and after. */
  domains: string[];
  /** Whether the connector's shared drives changed. */
  drives: boolean;
};

/** Past this many changed files a whole rebuild costs less than the piecewise one. */
const PARTIAL_LIMIT = 100_000;

/**
 * Brings the graph up to date after an incremental snapshot, to exactly what `rebuildFlowGraph`
 * would build: the changed files' nodes and edges, their owners' nodes, the outside domains their
 * items reached before or reach now, and (when they changed) the shared drives. Every other node
 * and edge is derived from rows that did not change.
 */
export async function updateFlowGraph(tx: Db, orgId: string, changes: TGraphChanges): Promise<void> {
  if (changes.fileIds.length > PARTIAL_LIMIT) return rebuildFlowGraph(tx, orgId);
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`flow:${orgId}`}))`);
  const domains = new Set(changes.domains);
  const delta: TNodeCounts = {};
  if (changes.drives) {
    const drives = rowsOf<{ id: string; domains: string[] }>(
      await tx.execute(
        sql`SELECT id, domains FROM flow_nodes WHERE org_id = ${orgId} AND type = 'shared_drive'`,
      ),
    );
    for (const d of drives) for (const x of d.domains) domains.add(x);
    const driveIds = drives.map((d) => d.id);
    await tx.execute(sql`DELETE FROM flow_nodes WHERE org_id = ${orgId} AND id = ANY(${list(driveIds)})`);
    await tx.execute(sql`DELETE FROM flow_edges WHERE org_id = ${orgId} AND source = ANY(${list(driveIds)})`);
    add(delta, { shared_drive: drives.length }, -1);
    add(delta, await insertDrives(tx, orgId));
    const now = rowsOf<{ d: string }>(
      await tx.execute(
        sql`SELECT DISTINCT unnest(domains) AS d FROM flow_nodes WHERE org_id = ${orgId} AND type = 'shared_drive'`,
      ),
    );
    for (const d of now) domains.add(d.d);
  }
  const files = list(changes.fileIds.flatMap((id) => [`file:${id}`, `public_link:${id}`]));
  const users = list(changes.owners.map((o) => `user:${o}`));
  const externals = list([...domains].map((d) => `external:${d}`));
  const shareIds = list(changes.fileIds.flatMap((id) => SHARE_TYPES.map((t) => `${id}|${t}`)));
  const domainList = list([...domains]);
  // A file's edges: from its owner to it (found through the file's node, which names the owner),
  // and from it to domains and to its public link.
  await tx.execute(sql`
    DELETE FROM flow_edges e USING flow_nodes n
    WHERE n.org_id = ${orgId} AND n.id = ANY(${files}) AND n.type = 'file'
      AND e.org_id = ${orgId} AND e.source = 'user:' || n.owner_email AND e.target = n.id`);
  await tx.execute(sql`DELETE FROM flow_edges WHERE org_id = ${orgId} AND source = ANY(${files})`);
  const deleted = rowsOf<{ type: TFlowNodeType; n: number }>(
    await tx.execute(sql`
      WITH d AS (DELETE FROM flow_nodes WHERE org_id = ${orgId}
        AND (id = ANY(${files}) OR id = ANY(${users}) OR id = ANY(${externals})) RETURNING type)
      SELECT type, count(*)::int AS n FROM d GROUP BY type`),
  );
  for (const d of deleted) add(delta, { [d.type]: d.n }, -1);
  // The changed files' items, read once for the five statements that derive their part.
  await tx.execute(sql`
    CREATE TEMP TABLE flow_changed_shares ON COMMIT DROP AS
    SELECT * FROM workspace_shares WHERE id = ANY(${shareIds})`);
  add(delta, await insertFiles(tx, orgId, sql`flow_changed_shares`, sql`true`));
  await tx.execute(sql`DROP TABLE flow_changed_shares`);
  add(
    delta,
    await insertExternals(tx, orgId, {
      shares: sql`s.target_domains && ${domainList}`,
      domains: sql`d = ANY(${domainList})`,
    }),
  );
  add(delta, await insertUsers(tx, orgId, sql`s.owner_email = ANY(${list(changes.owners)})`));
  add(delta, await insertDriveExternals(tx, orgId, sql`d = ANY(${domainList})`));
  // The summary moves by what was deleted and inserted: no count of the whole graph.
  const total = Object.values(delta).reduce((a, b) => a + b, 0);
  await tx.execute(sql`
    UPDATE flow_summaries SET total_nodes = total_nodes + ${total},
      external_files = external_files + ${delta.file ?? 0},
      public_links = public_links + ${delta.public_link ?? 0},
      shared_drives_exposed = shared_drives_exposed + ${delta.shared_drive ?? 0},
      risk_score = ${TOP_RISK(orgId)}, built_at = now()
    WHERE org_id = ${orgId}`);
}

/** The average risk of the graph's 20 riskiest nodes (an index range). */
const TOP_RISK = (orgId: string) => sql`coalesce((SELECT round(avg(risk_score))::int FROM (SELECT risk_score
  FROM flow_nodes WHERE org_id = ${orgId} ORDER BY risk_score DESC LIMIT 20) top), 0)`;

const list = (values: readonly string[]) => sql`${arrayLiteral(values)}::text[]`;

/** Nodes inserted or deleted, per type. */
type TNodeCounts = Partial<Record<TFlowNodeType, number>>;

const nodes = async (tx: Db, statement: SQL) => affected(await tx.execute(statement));

function add(into: TNodeCounts, counts: TNodeCounts, by = 1): void {
  for (const [type, n] of Object.entries(counts) as Array<[TFlowNodeType, number]>)
    into[type] = (into[type] ?? 0) + by * n;
}

/**
 * File nodes, their public links, and the edges of each file (owner → file → domains, link), from
 * `shares` (the sharing items, or a copy of some of them).
 */
async function insertFiles(tx: Db, orgId: string, shares: SQL, where: SQL): Promise<TNodeCounts> {
  const file = await nodes(
    tx,
    sql`
    INSERT INTO flow_nodes (org_id, id, type, label, risk_score, owner_email, domains)
    SELECT ${orgId}, 'file:' || s.file_id, 'file', min(s.resource_name), max(${SCORE}), min(s.owner_email),
      coalesce(array_agg(DISTINCT d) FILTER (WHERE d IS NOT NULL), '{}')
    FROM ${shares} s LEFT JOIN LATERAL unnest(s.target_domains) d ON true
    WHERE s.org_id = ${orgId} AND ${where}
    GROUP BY s.file_id`,
  );
  const publicLink = await nodes(
    tx,
    sql`
    INSERT INTO flow_nodes (org_id, id, type, label, risk_score, owner_email, domains)
    SELECT ${orgId}, 'public_link:' || s.file_id, 'public_link', 'Public link: ' || s.resource_name, ${SCORE}, s.owner_email, '{}'
    FROM ${shares} s WHERE s.org_id = ${orgId} AND s.sharing_type = 'public' AND ${where}`,
  );
  await tx.execute(sql`
    INSERT INTO flow_edges (org_id, source, target, scope, severity)
    SELECT ${orgId}, 'user:' || min(s.owner_email), 'file:' || s.file_id, 'internal', ${SEV("max(s.severity_rank)")}
    FROM ${shares} s WHERE s.org_id = ${orgId} AND ${where} GROUP BY s.file_id`);
  await tx.execute(sql`
    INSERT INTO flow_edges (org_id, source, target, scope, severity)
    SELECT ${orgId}, 'file:' || s.file_id, 'external:' || d, 'external', ${SEV("max(s.severity_rank)")}
    FROM ${shares} s CROSS JOIN LATERAL unnest(s.target_domains) d
    WHERE s.org_id = ${orgId} AND ${where} GROUP BY s.file_id, d`);
  await tx.execute(sql`
    INSERT INTO flow_edges (org_id, source, target, scope, severity)
    SELECT ${orgId}, 'file:' || s.file_id, 'public_link:' || s.file_id, 'public', s.severity
    FROM ${shares} s WHERE s.org_id = ${orgId} AND s.sharing_type = 'public' AND ${where}`);
  return { file, public_link: publicLink };
}

/** Outside domains: the riskiest share to them, raised by how many files reach them. */
async function insertExternals(
  tx: Db,
  orgId: string,
  where: TWhere,
  shares: SQL = sql`workspace_shares`,
): Promise<TNodeCounts> {
  const external = await nodes(
    tx,
    sql`
    INSERT INTO flow_nodes (org_id, id, type, label, risk_score, owner_email, domains)
    SELECT ${orgId}, 'external:' || d, 'external', d,
      least(100, max(${SCORE}) + least(10, count(DISTINCT s.file_id)::int / 5)), NULL, ARRAY[d]
    FROM ${shares} s CROSS JOIN LATERAL unnest(s.target_domains) d
    WHERE s.org_id = ${orgId} AND ${where.shares} AND ${where.domains}
    GROUP BY d`,
  );
  return { external };
}

/** Users who share outside. */
async function insertUsers(
  tx: Db,
  orgId: string,
  where: SQL,
  shares: SQL = sql`workspace_shares`,
): Promise<TNodeCounts> {
  const user = await nodes(
    tx,
    sql`
    INSERT INTO flow_nodes (org_id, id, type, label, risk_score, owner_email, domains)
    SELECT ${orgId}, 'user:' || s.owner_email, 'user', s.owner_email,
      least(100, max(${SCORE}) + least(10, count(DISTINCT s.file_id)::int / 10)), s.owner_email, '{}'
    FROM ${shares} s WHERE s.org_id = ${orgId} AND ${where}
    GROUP BY s.owner_email`,
  );
  return { user };
}

/** Shared drives with outside members, and an edge to each outside member's domain. */
async function insertDrives(tx: Db, orgId: string): Promise<TNodeCounts> {
  const drives = await nodes(
    tx,
    sql`
    INSERT INTO flow_nodes (org_id, id, type, label, risk_score, owner_email, domains)
    SELECT ${orgId}, 'shared_drive:' || w.id, 'shared_drive', min(w.name),
      least(100, 40 + 5 * max(w.external_member_count) + CASE WHEN bool_or(NOT w.domain_users_only) THEN 10 ELSE 0 END),
      NULL, coalesce(array_agg(DISTINCT lower(split_part(m->>'email', '@', 2))), '{}')
    FROM workspace_drives w CROSS JOIN LATERAL jsonb_array_elements(w.members) m
    WHERE w.org_id = ${orgId} AND w.external_member_count > 0 AND (m->>'external')::boolean
    GROUP BY w.id`,
  );
  await tx.execute(sql`
    INSERT INTO flow_edges (org_id, source, target, scope, severity)
    SELECT ${orgId}, n.id, 'external:' || d, 'external', CASE WHEN n.risk_score >= 65 THEN 'HIGH' ELSE 'MEDIUM' END
    FROM flow_nodes n CROSS JOIN LATERAL unnest(n.domains) d
    WHERE n.org_id = ${orgId} AND n.type = 'shared_drive'`);
  return { shared_drive: drives };
}

/** The outside domains only shared drives reach. */
async function insertDriveExternals(tx: Db, orgId: string, where: SQL): Promise<TNodeCounts> {
  // The shared-drive nodes' domains, read from the drives themselves (a few rows, not the graph).
  const external = await nodes(
    tx,
    sql`
    INSERT INTO flow_nodes (org_id, id, type, label, risk_score, owner_email, domains)
    SELECT ${orgId}, 'external:' || d, 'external', d, 40, NULL, ARRAY[d]
    FROM (SELECT DISTINCT lower(split_part(m->>'email', '@', 2)) AS d
      FROM workspace_drives w CROSS JOIN LATERAL jsonb_array_elements(w.members) m
      WHERE w.org_id = ${orgId} AND w.external_member_count > 0 AND (m->>'external')::boolean) x
    WHERE ${where}
    ON CONFLICT DO NOTHING`,
  );
  return { external };
}

/** Node count and summary, kept beside the graph so a page never counts the whole graph. */
async function summarise(tx: Db, orgId: string): Promise<void> {
  await tx.execute(sql`
    INSERT INTO flow_summaries (org_id, total_nodes, external_files, public_links, shared_drives_exposed, risk_score, built_at)
    SELECT ${orgId},
      (SELECT count(*) FROM flow_nodes WHERE org_id = ${orgId}),
      (SELECT count(*) FROM flow_nodes WHERE org_id = ${orgId} AND type = 'file'),
      (SELECT count(*) FROM flow_nodes WHERE org_id = ${orgId} AND type = 'public_link'),
      (SELECT count(*) FROM flow_nodes WHERE org_id = ${orgId} AND type = 'shared_drive'),
      coalesce((SELECT round(avg(risk_score))::int FROM (SELECT risk_score FROM flow_nodes WHERE org_id = ${orgId}
        ORDER BY risk_score DESC LIMIT 20) top), 0),
      now()
    ON CONFLICT (org_id) DO UPDATE SET total_nodes = excluded.total_nodes, external_files = excluded.external_files,
      public_links = excluded.public_links, shared_drives_exposed = excluded.shared_drives_exposed,
      risk_score = excluded.risk_score, built_at = excluded.built_at`);
}
