import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db, type TFindingCategory, type TSeverity } from "@posture/db";
import { cursorPage, decodeCursor, encodeCursor, iso, type TCursor } from "@posture/platform";

export type TTimelineItem = {
  id: string;
  kind: "finding" | "scan" | "audit" | "oauth_grant" | "anomaly";
  severity: TSeverity;
  title: string;
  at: string;
  /** A finding's category and rule id; null on the other kinds. */
  category: TFindingCategory | null;
  ruleId: string | null;
};

// Audit actions a security reviewer wants in the "significant" view.
const SIGNIFICANT_AUDIT = [
  "SIGN_IN_FAILED",
  "API_KEY_CREATED",
  "API_KEY_REVOKED",
  "CONNECTOR_CONNECTED",
  "CONNECTOR_DISCONNECTED",
  "CONNECTOR_UPDATED",
  "WEBHOOK_CREATED",
  "WEBHOOK_DELETED",
  "POLICY_CHANGED",
];

type TRow = {
  id: string;
  kind: TTimelineItem["kind"];
  severity: TSeverity;
  title: string;
  at: Date | string;
  at_text: string;
  category: TFindingCategory | null;
  rule_id: string | null;
};

/**
 * Newest first across five sources (one: a `category`'s findings). Each branch is cut to the page size with its own index before
 * the merge, and the keyset (at, id) is strictly decreasing, so items sharing a timestamp are
 * neither skipped nor repeated across pages.
 */
export async function listTimeline(
  db: Db,
  q: {
    orgId: string;
    limit: number;
    before?: string | undefined;
    significant: boolean;
    /** Only the findings of this category (the other kinds are left out). */
    category?: TFindingCategory | undefined;
    /** Audit entries (actions, targets, e-mails) only for readers of the audit log: ADMIN+. */
    includeAudit: boolean;
  },
) {
  const cursor: TCursor | null = q.before ? decodeCursor(q.before) : null;
  const n = q.limit + 1;
  // A bare timestamp cursor (id "") means "strictly older than": every id sorts above "".
  const older = (at: SQL, id: SQL) =>
    cursor ? sql`and (${at}, ${id}) < (${cursor.at}::timestamptz, ${cursor.id})` : sql``;
  const sig = q.significant;
  const significantAudit = sql.join(
    SIGNIFICANT_AUDIT.map((a) => sql`${a}`),
    sql`, `,
  );

  const findingsBranch = sql`(select id, 'finding' as kind, severity, title, detected_at as at,
        category, rule_id from findings
      where org_id = ${q.orgId} ${sig ? sql`and severity in ('CRITICAL','HIGH')` : sql``}
        ${q.category ? sql`and category = ${q.category}` : sql``} ${older(sql`detected_at`, sql`id`)}
      order by detected_at desc, id desc limit ${n})`;
  // A category names findings: the feed is then that branch alone.
  const rows = await queryRows<TRow>(
    db,
    q.category
      ? sql`select id, kind, severity, title, at, at::text as at_text, category, rule_id from ${findingsBranch} u
    order by at desc, id desc limit ${n}`
      : sql`
    select id, kind, severity, title, at, at::text as at_text, category, rule_id from (
    ${findingsBranch}
    union all
    (select id, 'scan', case when findings_new > 0 then 'MEDIUM' else 'LOW' end,
        'Scan of ' || connector_name || ' completed: ' || findings_new || ' new, ' || findings_resolved || ' resolved',
        completed_at, null::text, null::text from scans
      where org_id = ${q.orgId} and status = 'COMPLETE' ${sig ? sql`and findings_new > 0` : sql``} ${older(sql`completed_at`, sql`id`)}
      order by completed_at desc, id desc limit ${n})
    ${
      q.includeAudit
        ? sql`union all
    (select id, 'audit', case when action in (${significantAudit}) then 'MEDIUM' else 'LOW' end,
        action || ' ' || target || ' by ' || user_email, created_at, null::text, null::text from audit_log
      where org_id = ${q.orgId} ${sig ? sql`and action in (${significantAudit})` : sql``} ${older(sql`created_at`, sql`id`)}
      order by created_at desc, id desc limit ${n})`
        : sql``
    }
    union all
    (select id, 'oauth_grant', case when not is_known_publisher then 'HIGH' else 'LOW' end,
        label || ' granted to ' || user_email, granted_at, null::text, null::text from oauth_grants
      where org_id = ${q.orgId} ${sig ? sql`and not is_known_publisher` : sql``} ${older(sql`granted_at`, sql`id`)}
      order by granted_at desc, id desc limit ${n})
    union all
    (select id, 'anomaly', severity,
        initcap(replace(type, '_', ' ')) || ' by ' || principal, at, null::text, null::text from anomalies
      where org_id = ${q.orgId} ${sig ? sql`and severity in ('CRITICAL','HIGH')` : sql``} ${older(sql`at`, sql`id`)}
      order by at desc, id desc limit ${n})
    ) u
    order by at desc, id desc
    limit ${n}`,
  );
  const pageRows = rows.slice(0, q.limit);
  const last = pageRows[pageRows.length - 1];
  const nextCursor = rows.length > q.limit && last ? encodeCursor({ at: last.at_text, id: last.id }) : null;
  const items: TTimelineItem[] = pageRows.map((r) => ({
    id: r.id,
    kind: r.kind,
    severity: r.severity,
    title: r.title,
    at: iso(new Date(r.at)),
    category: r.category,
    ruleId: r.rule_id,
  }));
  return cursorPage(items, nextCursor);
}
