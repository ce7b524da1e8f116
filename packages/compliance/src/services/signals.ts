import { sql } from "drizzle-orm";
import { labelSensitiveSql, queryRows, type Db, type TSeverity } from "@posture/db";
import type { TFindingRef, TSignals } from "../engine/signals";
import { tenantCheckSignals, type TTenantCheckStatus } from "../engine/tenant-checks";
import type { TTenantCheck } from "@posture/benchmarks";
import { verifyAuditChain } from "./evidence-files";

const DAY_MS = 86_400_000;
/** Reasons name the worst findings of each rule, not all of them. */
const TOP_PER_RULE = 5;

type TCounts = Record<string, string | number | boolean | null>;
const n = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

const GRADES: ReadonlyArray<readonly [number, string]> = [
  [90, "A"],
  [80, "B"],
  [70, "C"],
  [60, "D"],
  [0, "F"],
];
export const gradeOf = (score: number): string => GRADES.find(([min]) => score >= min)?.[1] ?? "F";

/**
 * The facts of one organization over the last `days` days, read from the shared tables (findings,
 * scans, workspace snapshot, OAuth grants, audit trail, incidents, activity). Every query is
 * filtered by org_id and aggregated in the database, so a million-file workspace costs one pass.
 */
export async function gatherSignals(
  db: Db,
  o: { orgId: string; days: number; now?: Date; tenantChecks?: readonly TTenantCheck[] },
): Promise<TSignals> {
  const to = o.now ?? new Date();
  const from = new Date(to.getTime() - o.days * DAY_MS);
  const org = o.orgId;

  const [src] = await queryRows<TCounts>(
    db,
    sql`SELECT
      (SELECT count(*) FROM connectors WHERE org_id = ${org}) AS connected,
      (SELECT count(*) FROM connectors WHERE org_id = ${org} AND health_status <> 'healthy') AS unhealthy,
      (SELECT count(*) FROM scans WHERE org_id = ${org} AND status = 'COMPLETE' AND completed_at >= ${from} AND completed_at <= ${to}) AS scans,
      (SELECT max(completed_at) FROM scans WHERE org_id = ${org} AND status = 'COMPLETE') AS last_scan_at,
      (SELECT posture_score FROM scans WHERE org_id = ${org} AND status = 'COMPLETE' AND posture_score IS NOT NULL
         ORDER BY completed_at DESC, id DESC LIMIT 1) AS score,
      (SELECT count(*) FROM findings WHERE org_id = ${org} AND status = 'RESOLVED' AND resolved_at >= ${from}) AS resolved,
      (SELECT count(*) FROM trusted_domains WHERE org_id = ${org}) AS trusted,
      (SELECT count(*) FROM activity_events WHERE org_id = ${org} AND at >= ${from} AND at <= ${to}) AS activity`,
  );
  const byRule = await queryRows<{ rule_id: string; severity: TSeverity; c: string }>(
    db,
    sql`SELECT rule_id, severity, count(*) AS c FROM findings WHERE org_id = ${org} AND status = 'OPEN' GROUP BY rule_id, severity`,
  );
  const top = await queryRows<{
    id: string;
    rule_id: string;
    severity: TSeverity;
    title: string;
    resource_name: string;
    connector_type: string;
  }>(
    db,
    sql`SELECT id, rule_id, severity, title, resource_name, connector_type FROM (
          SELECT id, rule_id, severity, title, resource_name, connector_type,
                 row_number() OVER (PARTITION BY rule_id ORDER BY severity_rank DESC, detected_at DESC, id) AS rn
          FROM findings WHERE org_id = ${org} AND status = 'OPEN') t
        WHERE rn <= ${TOP_PER_RULE} ORDER BY rule_id, rn`,
  );
  const [users] = await queryRows<TCounts>(
    db,
    sql`SELECT count(*) AS total,
      count(*) FILTER (WHERE status = 'active') AS active,
      count(*) FILTER (WHERE status = 'active' AND mfa_enabled) AS mfa,
      count(*) FILTER (WHERE is_admin AND status = 'active') AS admins,
      count(*) FILTER (WHERE is_admin AND status = 'active' AND NOT mfa_enabled) AS admins_no_mfa,
      count(*) FILTER (WHERE dormant AND status = 'active') AS dormant,
      count(*) FILTER (WHERE status = 'active' AND external_shares_owned > 0) AS risky
      FROM workspace_users WHERE org_id = ${org}`,
  );
  // Data classification: a highly sensitive file (by its label or its name) counts as classified
  // when a source label says it is sensitive (Confidential and above, `labelSensitivity` of
  // @posture/db): a payroll sheet a default policy stamped "General" is labelled, not classified.
  const [files] = await queryRows<TCounts>(
    db,
    sql`SELECT count(*) AS total,
      count(*) FILTER (WHERE exposure = 'public') AS public,
      count(*) FILTER (WHERE exposure IN ('public', 'external')) AS external,
      count(*) FILTER (WHERE sensitivity = 'high') AS sensitive,
      count(*) FILTER (WHERE reach_org_wide) AS org_wide,
      count(*) FILTER (WHERE reach_org_wide AND sensitivity = 'high') AS org_wide_sensitive,
      count(*) FILTER (WHERE sensitivity = 'high' AND cardinality(labels) > 0
        AND EXISTS (SELECT 1 FROM unnest(labels) l WHERE ${labelSensitiveSql(sql.raw("l"))})) AS labelled
      FROM workspace_files WHERE org_id = ${org}`,
  );
  const [apps] = await queryRows<TCounts>(
    db,
    sql`SELECT count(*) AS total, count(*) FILTER (WHERE NOT is_known_publisher) AS unverified,
      count(*) FILTER (WHERE kind = 'ai_agent') AS agents FROM oauth_grants WHERE org_id = ${org}`,
  );
  const [audit] = await queryRows<TCounts>(
    db,
    sql`SELECT count(*) AS total, count(*) FILTER (WHERE created_at >= ${from}) AS in_period
      FROM audit_log WHERE org_id = ${org}`,
  );
  const [inc] = await queryRows<TCounts>(
    db,
    sql`SELECT count(*) FILTER (WHERE created_at >= ${from}) AS in_period,
      count(*) FILTER (WHERE status NOT IN ('RESOLVED', 'CLOSED')) AS open,
      count(*) FILTER (WHERE status IN ('RESOLVED', 'CLOSED')) AS resolved,
      count(*) FILTER (WHERE status IN ('RESOLVED', 'CLOSED') AND post_mortem IS NOT NULL AND post_mortem <> 'null'::jsonb) AS with_pm
      FROM incidents WHERE org_id = ${org}`,
  );

  // Each tenant check's latest result per connector, from the scans of the period.
  const tenantRows = await queryRows<{ check_id: string; status: TTenantCheckStatus }>(
    db,
    sql`SELECT check_id, status FROM tenant_check_results
        WHERE org_id = ${org} AND checked_at >= ${from} AND checked_at <= ${to}`,
  );

  const openByRule: TSignals["openByRule"] = {};
  for (const r of byRule) (openByRule[r.rule_id] ??= {})[r.severity] = n(r.c);
  const topFindings: TFindingRef[] = top.map((f) => ({
    id: f.id,
    ruleId: f.rule_id,
    severity: f.severity,
    title: f.title,
    resourceName: f.resource_name,
    source: f.connector_type,
  }));
  const score = src?.score === null || src?.score === undefined ? null : n(src.score);
  const lastScan = src?.last_scan_at ? new Date(String(src.last_scan_at)).toISOString() : null;
  const chain = await verifyAuditChain(db, { orgId: o.orgId });
  return {
    period: { days: o.days, from: from.toISOString(), to: to.toISOString() },
    sources: {
      connected: n(src?.connected),
      unhealthy: n(src?.unhealthy),
      scansInPeriod: n(src?.scans),
      lastScanAt: lastScan,
    },
    posture: { score, grade: score === null ? null : gradeOf(score) },
    openByRule,
    topFindings,
    resolvedInPeriod: n(src?.resolved),
    users: {
      total: n(users?.total),
      active: n(users?.active),
      mfa: n(users?.mfa),
      admins: n(users?.admins),
      adminsWithoutMfa: n(users?.admins_no_mfa),
      dormant: n(users?.dormant),
      riskySharers: n(users?.risky),
    },
    files: {
      total: n(files?.total),
      public: n(files?.public),
      external: n(files?.external),
      sensitive: n(files?.sensitive),
      sensitiveLabelled: n(files?.labelled),
      orgWide: n(files?.org_wide),
      orgWideSensitive: n(files?.org_wide_sensitive),
    },
    apps: { total: n(apps?.total), unverified: n(apps?.unverified), aiAgents: n(apps?.agents) },
    trustedDomains: n(src?.trusted),
    audit: {
      entriesInPeriod: n(audit?.in_period),
      total: n(audit?.total),
      chainIntact: chain.verified,
      brokenAtSeq: chain.brokenAtSeq,
    },
    incidents: {
      inPeriod: n(inc?.in_period),
      open: n(inc?.open),
      resolved: n(inc?.resolved),
      withPostMortem: n(inc?.with_pm),
    },
    activityEventsInPeriod: n(src?.activity),
    tenantChecks: tenantCheckSignals(
      o.tenantChecks ?? [],
      tenantRows.map((r) => ({ checkId: r.check_id, status: r.status })),
    ),
  };
}
