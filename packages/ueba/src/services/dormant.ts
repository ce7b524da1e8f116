import { sql } from "drizzle-orm";
import { queryRows, type Db, type TSeverity } from "@posture/db";
import { dormantConfidence, dormantSeverity, DORMANT_DAYS } from "./model";

const DAY_MS = 86_400_000;

export type TDormantReturn = {
  principal: string;
  at: Date;
  previousAt: Date | null;
  gapDays: number;
  isAdmin: boolean;
  severity: TSeverity;
  confidence: number;
  periodsLearned: number;
};

type TRow = {
  principal: string;
  first_at: Date | string;
  prev_at: Date | string | null;
  created_at: Date | string | null;
  is_admin: boolean | null;
  coverage_from: Date | string | null;
};

/**
 * Accounts that came back after at least DORMANT_DAYS of silence since `since`. The silence is
 * measured from the principal's own previous event; without one, from the account's creation in
 * the workspace snapshot, and only when stored activity reaches back far enough to prove the
 * silence (a new hire or a freshly connected source is never "dormant").
 */
export async function findDormantReturns(
  db: Db,
  q: { orgId: string; since: Date },
): Promise<TDormantReturn[]> {
  const rows = await queryRows<TRow>(
    db,
    sql`with recent as (
          select principal, min(at) as first_at from activity_events
          where org_id = ${q.orgId} and at >= ${q.since.toISOString()}::timestamptz
          group by principal),
        coverage as (select min(at) as coverage_from from activity_events where org_id = ${q.orgId}),
        -- Once per organization and joined by hash: a lookup per principal read every user each
        -- time (no index on lower(email)), past the statement bound at 25,000 users.
        accounts as (
          select lower(email) as principal, min(source_created_at) as created_at, bool_or(is_admin) as is_admin
          from workspace_users where org_id = ${q.orgId} group by 1)
        select r.principal, r.first_at,
          (select max(e.at) from activity_events e
             where e.org_id = ${q.orgId} and e.principal = r.principal and e.at < r.first_at) as prev_at,
          a.created_at, a.is_admin, c.coverage_from
        from recent r cross join coverage c left join accounts a on a.principal = r.principal`,
  );
  const out: TDormantReturn[] = [];
  for (const r of rows) {
    const at = new Date(r.first_at);
    const prev = r.prev_at ? new Date(r.prev_at) : null;
    let silentSince: number | null = prev ? prev.getTime() : null;
    if (!prev && r.created_at && r.coverage_from) {
      // No earlier event: the account existed and the store covered the whole silence.
      silentSince = Math.max(new Date(r.created_at).getTime(), new Date(r.coverage_from).getTime());
    }
    if (silentSince === null) continue;
    const gapDays = Math.floor((at.getTime() - silentSince) / DAY_MS);
    if (gapDays < DORMANT_DAYS) continue;
    const isAdmin = r.is_admin === true;
    out.push({
      principal: r.principal,
      at,
      previousAt: prev,
      gapDays,
      isAdmin,
      severity: dormantSeverity(gapDays, isAdmin),
      confidence: dormantConfidence(gapDays, prev !== null),
      periodsLearned: Math.floor(gapDays / 7),
    });
  }
  return out;
}
