import { sql } from "drizzle-orm";
import type { Db } from "@posture/db";
import type { FILE_METRIC_KEYS, TSnapshotMetrics } from "./metrics";
import { rowsOf } from "./rows";

export type TFileMetrics = Pick<TSnapshotMetrics, (typeof FILE_METRIC_KEYS)[number]>;

/** The file-derived part of a snapshot's totals: counts and metrics that files, permissions and shares make. */
export type TFileTotals = {
  files: number;
  permissions: number;
  shares: number;
  metrics: TFileMetrics;
};

/**
 * The connector's file totals counted from the stored rows: what the writer's tallies of a full
 * snapshot come to. Reads every stored file (a second or so at a million): the incremental path
 * uses it only when no stored tallies exist to adjust.
 */
export async function storedFileTotals(tx: Db, connectorId: string): Promise<TFileTotals> {
  const [f] = rowsOf<Record<string, number>>(
    await tx.execute(sql`
      SELECT count(*)::int AS files,
        count(*) FILTER (WHERE exposure = 'public')::int AS "filesPublic",
        count(*) FILTER (WHERE exposure = 'external')::int AS "filesExternal",
        count(*) FILTER (WHERE exposure = 'internal')::int AS "filesInternal",
        count(*) FILTER (WHERE exposure = 'private')::int AS "filesPrivate",
        count(*) FILTER (WHERE sensitivity = 'high')::int AS "filesSensitive",
        count(*) FILTER (WHERE cardinality(labels) > 0)::int AS "filesLabelled",
        count(*) FILTER (WHERE cardinality(labels) > 0 AND sensitivity = 'high')::int AS "filesSensitiveLabelled",
        count(*) FILTER (WHERE reach_org_wide)::int AS "filesOrgWide",
        count(*) FILTER (WHERE reach_org_wide AND sensitivity = 'high')::int AS "filesSensitiveOrgWide"
      FROM workspace_files WHERE connector_id = ${connectorId}`),
  );
  const [p] = rowsOf<{ n: number }>(
    await tx.execute(
      sql`SELECT count(*)::int AS n FROM workspace_permissions WHERE connector_id = ${connectorId}`,
    ),
  );
  const [s] = rowsOf<Record<string, number>>(
    await tx.execute(sql`
      SELECT count(*)::int AS shares,
        count(*) FILTER (WHERE sharing_type = 'public')::int AS "sharesPublic",
        count(*) FILTER (WHERE sharing_type = 'external_user')::int AS "sharesExternalUser",
        count(*) FILTER (WHERE sharing_type = 'external_domain')::int AS "sharesExternalDomain"
      FROM workspace_shares WHERE connector_id = ${connectorId}`),
  );
  return {
    files: f?.files ?? 0,
    permissions: p?.n ?? 0,
    shares: s?.shares ?? 0,
    metrics: {
      filesPublic: f?.filesPublic ?? 0,
      filesExternal: f?.filesExternal ?? 0,
      filesInternal: f?.filesInternal ?? 0,
      filesPrivate: f?.filesPrivate ?? 0,
      filesSensitive: f?.filesSensitive ?? 0,
      filesLabelled: f?.filesLabelled ?? 0,
      filesSensitiveLabelled: f?.filesSensitiveLabelled ?? 0,
      filesOrgWide: f?.filesOrgWide ?? 0,
      filesSensitiveOrgWide: f?.filesSensitiveOrgWide ?? 0,
      sharesPublic: s?.sharesPublic ?? 0,
      sharesExternalUser: s?.sharesExternalUser ?? 0,
      sharesExternalDomain: s?.sharesExternalDomain ?? 0,
    },
  };
}
