import { sql } from "drizzle-orm";
import type { Db } from "@posture/db";

const SCORE =
  sql.raw(`(CASE s.severity WHEN 'CRITICAL' THEN 85 WHEN 'HIGH' THEN 65 WHEN 'MEDIUM' THEN 40 ELSE 15 END
  + CASE s.sensitivity WHEN 'high' THEN 10 WHEN 'medium' THEN 5 ELSE 0 END)`);
const SEV = (rank: string) =>
  sql.raw(`(CASE ${rank} WHEN 4 THEN 'CRITICAL' WHEN 3 THEN 'HIGH' WHEN 2 THEN 'MEDIUM' ELSE 'LOW' END)`);

/**
 * Derives the organization's external data-flow graph from its resource store: who (user) shares
 * which file with which outside domain or a public link, and which shared drives admit outsiders.
 * Approved shares stay in the graph (an approval accepts a flow, it does not remove it). Runs inside the caller's transaction (a snapshot commit or a
 * trusted-domain change); an advisory lock serialises two connectors of one organization.
 */
export async function rebuildFlowGraph(tx: Db, orgId: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`flow:${orgId}`}))`);
  await tx.execute(sql`DELETE FROM flow_nodes WHERE org_id = ${orgId}`);
  await tx.execute(sql`DELETE FROM flow_edges WHERE org_id = ${orgId}`);
  // Files and their public links.
  await tx.execute(sql`
    INSERT INTO flow_nodes (org_id, id, type, label, risk_score, owner_email, domains)
    SELECT ${orgId}, 'file:' || s.file_id, 'file', min(s.resource_name), max(${SCORE}), min(s.owner_email),
      coalesce(array_agg(DISTINCT d) FILTER (WHERE d IS NOT NULL), '{}')
    FROM workspace_shares s LEFT JOIN LATERAL unnest(s.target_domains) d ON true
    WHERE s.org_id = ${orgId}
    GROUP BY s.file_id`);
  await tx.execute(sql`
    INSERT INTO flow_nodes (org_id, id, type, label, risk_score, owner_email, domains)
    SELECT ${orgId}, 'public_link:' || s.file_id, 'public_link', 'Public link: ' || s.resource_name, ${SCORE}, s.owner_email, '{}'
    FROM workspace_shares s WHERE s.org_id = ${orgId} AND s.sharing_type = 'public'`);
  // Outside domains: the riskiest share to them, raised by how many files reach them.
  await tx.execute(sql`
    INSERT INTO flow_nodes (org_id, id, type, label, risk_score, owner_email, domains)
    SELECT ${orgId}, 'external:' || d, 'external', d,
      least(100, max(${SCORE}) + least(10, count(DISTINCT s.file_id)::int / 5)), NULL, ARRAY[d]
    FROM workspace_shares s CROSS JOIN LATERAL unnest(s.target_domains) d
    WHERE s.org_id = ${orgId}
    GROUP BY d`);
  // Users who share outside.
  await tx.execute(sql`
    INSERT INTO flow_nodes (org_id, id, type, label, risk_score, owner_email, domains)
    SELECT ${orgId}, 'user:' || s.owner_email, 'user', s.owner_email,
      least(100, max(${SCORE}) + least(10, count(DISTINCT s.file_id)::int / 10)), s.owner_email, '{}'
    FROM workspace_shares s WHERE s.org_id = ${orgId}
    GROUP BY s.owner_email`);
  // Shared drives with outside members, and an edge to each outside member's domain.
  await tx.execute(sql`
    INSERT INTO flow_nodes (org_id, id, type, label, risk_score, owner_email, domains)
    SELECT ${orgId}, 'shared_drive:' || w.id, 'shared_drive', min(w.name),
      least(100, 40 + 5 * max(w.external_member_count) + CASE WHEN bool_or(NOT w.domain_users_only) THEN 10 ELSE 0 END),
      NULL, coalesce(array_agg(DISTINCT lower(split_part(m->>'email', '@', 2))), '{}')
    FROM workspace_drives w CROSS JOIN LATERAL jsonb_array_elements(w.members) m
    WHERE w.org_id = ${orgId} AND w.external_member_count > 0 AND (m->>'external')::boolean
    GROUP BY w.id`);
  await tx.execute(sql`
    INSERT INTO flow_nodes (org_id, id, type, label, risk_score, owner_email, domains)
    SELECT ${orgId}, 'external:' || d, 'external', d, 40, NULL, ARRAY[d]
    FROM (SELECT DISTINCT unnest(domains) d FROM flow_nodes WHERE org_id = ${orgId} AND type = 'shared_drive') x
    ON CONFLICT DO NOTHING`);
  await tx.execute(sql`
    INSERT INTO flow_edges (org_id, source, target, scope, severity)
    SELECT ${orgId}, 'user:' || min(s.owner_email), 'file:' || s.file_id, 'internal', ${SEV("max(s.severity_rank)")}
    FROM workspace_shares s WHERE s.org_id = ${orgId} GROUP BY s.file_id`);
  await tx.execute(sql`
    INSERT INTO flow_edges (org_id, source, target, scope, severity)
    SELECT ${orgId}, 'file:' || s.file_id, 'external:' || d, 'external', ${SEV("max(s.severity_rank)")}
    FROM workspace_shares s CROSS JOIN LATERAL unnest(s.target_domains) d
    WHERE s.org_id = ${orgId} GROUP BY s.file_id, d`);
  await tx.execute(sql`
    INSERT INTO flow_edges (org_id, source, target, scope, severity)
    SELECT ${orgId}, 'file:' || s.file_id, 'public_link:' || s.file_id, 'public', s.severity
    FROM workspace_shares s WHERE s.org_id = ${orgId} AND s.sharing_type = 'public'`);
  await tx.execute(sql`
    INSERT INTO flow_edges (org_id, source, target, scope, severity)
    SELECT ${orgId}, n.id, 'external:' || d, 'external', CASE WHEN n.risk_score >= 65 THEN 'HIGH' ELSE 'MEDIUM' END
    FROM flow_nodes n CROSS JOIN LATERAL unnest(n.domains) d
    WHERE n.org_id = ${orgId} AND n.type = 'shared_drive'`);
  await summarise(tx, orgId);
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
