import { and, count, desc, eq, gt, sql } from "drizzle-orm";
import { workspaceShares, workspaceUsers, type Db } from "@posture/db";
import { rowsOf } from "../store/rows";
import { listActiveApprovals } from "./approvals";
import { notApproved } from "./sharing-items";
import { orgTotals } from "./snapshots";
import { listTrustedDomains } from "./trusted-domains";

const TOP = 10;

/**
 * The sharing summary: the spec's overview (external files, public links, outside domains by
 * files reached, counts by type), trusted domains, plus cards, top sharers and active approvals.
 */
export async function getSharingOverview(db: Db, { orgId }: { orgId: string }) {
  const [totals, domains, critical, sharers, trusted, approvals] = await Promise.all([
    orgTotals(db, { orgId }),
    db.execute(sql`
      SELECT d AS key, count(DISTINCT s.file_id)::int AS count, (count(*) OVER ())::int AS domains
      FROM workspace_shares s CROSS JOIN LATERAL unnest(s.target_domains) d
      WHERE s.org_id = ${orgId}
      GROUP BY d ORDER BY count(DISTINCT s.file_id) DESC, d LIMIT 25`),
    db
      .select({ n: count() })
      .from(workspaceShares)
      .where(and(eq(workspaceShares.orgId, orgId), eq(workspaceShares.severityRank, 4), notApproved())),
    db
      .select({
        email: workspaceUsers.email,
        name: workspaceUsers.name,
        externalShares: workspaceUsers.externalSharesOwned,
      })
      .from(workspaceUsers)
      .where(and(eq(workspaceUsers.orgId, orgId), gt(workspaceUsers.externalSharesOwned, 0)))
      .orderBy(desc(workspaceUsers.externalSharesOwned), workspaceUsers.email)
      .limit(TOP),
    listTrustedDomains(db, { orgId }),
    listActiveApprovals(db, { orgId }),
  ]);
  const m = totals.metrics;
  const domainRows = rowsOf<{ key: string; count: number; domains: number }>(domains);
  const externalDomains = domainRows.map(({ key, count: n }) => ({ key, count: n }));
  const trustedSet = trusted.rows.map((t) => t.domain);
  const overview = {
    totalExternalFiles: m.filesPublic + m.filesExternal,
    publicLinks: m.sharesPublic,
    externalDomains,
    byType: {
      public: m.sharesPublic,
      external_user: m.sharesExternalUser,
      external_domain: m.sharesExternalDomain,
    },
  };
  return {
    overview,
    trustedDomains: trustedSet,
    cards: [
      { key: "external_files", label: "Files shared outside", value: overview.totalExternalFiles },
      { key: "public_links", label: "Public links", value: overview.publicLinks },
      { key: "external_domains", label: "Outside domains", value: domainRows[0]?.domains ?? 0 },
      { key: "critical_shares", label: "Critical shares", value: critical[0]?.n ?? 0 },
      { key: "sensitive_files", label: "Sensitive files", value: m.filesSensitive },
      { key: "active_approvals", label: "Active approvals", value: approvals.length },
    ],
    topSharers: sharers,
    activeApprovals: approvals,
    scannedAt: totals.takenAt ? totals.takenAt.toISOString() : null,
  };
}
