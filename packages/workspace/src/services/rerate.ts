import { sql } from "drizzle-orm";
import {
  arrayLiteral,
  lockOrg,
  lowerRankSql,
  outsideGrantRankSql,
  rankOfSeveritySql,
  severityOfRankSql,
  type Db,
} from "@posture/db";
import { rebuildFlowGraph } from "../store/flow-graph";
import { rowsOf } from "../store/rows";

// The share scale's SQL is generated from its TypeScript (`share-rating.ts` in @posture/db).
const SEVERITY_OF = (rank: string) => severityOfRankSql(sql.raw(rank));
const RANK_OF = (severity: string) => rankOfSeveritySql(sql.raw(severity));
/** `d` is one of the organization's trusted domains or below one. */
const trusted = (orgId: string, d: string) =>
  sql`EXISTS (SELECT 1 FROM trusted_domains t WHERE t.org_id = ${orgId}
    AND (${sql.raw(d)} = t.domain OR right(${sql.raw(d)}, length(t.domain) + 1) = '.' || t.domain))`;
const reaches = (domain: string, d: string) =>
  sql`(${sql.raw(d)} = ${domain} OR right(${sql.raw(d)}, ${domain.length + 1}) = ${`.${domain}`})`;

/**
 * After a trusted domain is added or removed: every share and open finding that reaches `domain`
 * is rated again with the organization's trusted domains as they now are, in the caller's
 * transaction, and the flow graph follows. Returns how many sharing items changed severity.
 */
export async function rerateDomain(
  tx: Db,
  q: { orgId: string; domain: string },
): Promise<{ items: number; findings: number }> {
  const { orgId, domain } = q;
  // Before any finding row, as the scan pipeline does (see syncFindings in approvals.ts).
  await tx.execute(lockOrg(orgId, "findings"));
  const changed = rowsOf<{ file_id: string }>(
    await tx.execute(sql`
      WITH x AS (
        SELECT s.id, CASE
            WHEN cardinality(s.target_domains) > 0
              AND NOT EXISTS (SELECT 1 FROM unnest(s.target_domains) d WHERE NOT ${trusted(orgId, "d")})
            THEN ${lowerRankSql(RANK_OF("s.base_severity"))}
            ELSE ${RANK_OF("s.base_severity")} END AS rank
        FROM workspace_shares s
        WHERE s.org_id = ${orgId} AND s.sharing_type <> 'public'
          AND EXISTS (SELECT 1 FROM unnest(s.target_domains) d WHERE ${reaches(domain, "d")}))
      UPDATE workspace_shares s
      SET severity_rank = x.rank, severity = ${SEVERITY_OF("x.rank")}, risk_rank = s.risk_rank % 1000 + x.rank * 1000
      FROM x WHERE s.id = x.id AND s.severity_rank <> x.rank
      RETURNING s.file_id`),
  );
  // Their files' rows are no longer those their digests were taken of: the next full scan writes them.
  const fileIds = [...new Set(changed.map((c) => c.file_id))];
  if (fileIds.length > 0)
    await tx.execute(sql`
      UPDATE workspace_files SET digest = NULL
      WHERE org_id = ${orgId} AND id = ANY(${arrayLiteral(fileIds)}::text[]) AND digest IS NOT NULL`);
  // The findings follow the rule engine's own scale (`outsideGrantSeverity`, per outside grant,
  // raised on a highly sensitive file), so the next scan agrees with this one.
  const findings = rowsOf<{ id: string }>(
    await tx.execute(sql`
      WITH g AS (
        SELECT p.connector_id, wf.external_id,
          max(${outsideGrantRankSql(sql.raw("p.role"), trusted(orgId, "p.target_domain"), sql.raw("wf.sensitivity = 'high'"))}) AS rank,
          bool_and(${trusted(orgId, "p.target_domain")}) AS all_trusted
        FROM workspace_permissions p JOIN workspace_files wf ON wf.id = p.file_id
        WHERE p.org_id = ${orgId} AND p.sharing_type IN ('external_user', 'external_domain')
          AND p.file_id IN (SELECT p2.file_id FROM workspace_permissions p2
                            WHERE p2.org_id = ${orgId} AND ${reaches(domain, "p2.target_domain")})
        GROUP BY p.connector_id, wf.external_id)
      UPDATE findings f
      SET severity_rank = g.rank, severity = ${SEVERITY_OF("g.rank")},
        title = regexp_replace(f.title, ' \\(trusted domain\\)$', '') || CASE WHEN g.all_trusted THEN ' (trusted domain)' ELSE '' END
      FROM g
      WHERE f.org_id = ${orgId} AND f.connector_id = g.connector_id AND f.resource_id = g.external_id
        AND f.rule_id = 'external_share' AND f.status IN ('OPEN', 'ACCEPTED')
        AND (f.severity_rank <> g.rank OR f.title <> regexp_replace(f.title, ' \\(trusted domain\\)$', '') || CASE WHEN g.all_trusted THEN ' (trusted domain)' ELSE '' END)
      RETURNING f.id`),
  );
  await rebuildFlowGraph(tx, orgId);
  return { items: changed.length, findings: findings.length };
}
