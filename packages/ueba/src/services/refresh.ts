import { sql } from "drizzle-orm";
import {
  allowLongStatements,
  anomalies,
  behaviorBaselines,
  behaviorWeeklyRisk,
  fromExcluded,
  JOB_STATEMENT_TIMEOUT_MS,
  queryRows,
  type Db,
  type TAnomalyType,
  type TSeverity,
} from "@posture/db";
import type { TJobQueue } from "@posture/platform";
import { withEvents, type TEmit } from "@posture/webhooks";
import { refreshWeeklyAggregates } from "./activity-store";
import { findDormantReturns } from "./dormant";
import {
  baselineAt,
  DETECT_WEEKS,
  emptySeries,
  LEARN_WEEKS,
  organizationStats,
  RATE_METRICS,
  rateCandidates,
  riskCell,
  SEVERITY_POINTS,
  type TCandidate,
  type TRateMetric,
  type TSeries,
} from "./model";
import { labelOfKey, recentWeeks, WEEK_MS } from "./weeks";

/** Weeks the refresh reads: a full learning window behind the oldest evaluated week. */
export const HORIZON_WEEKS = LEARN_WEEKS + DETECT_WEEKS;
const CHUNK = 1_000;

const SEVERITY_RANK: Record<TSeverity, number> = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1 };
const KINDS_OF: Record<TRateMetric, string[]> = {
  external_shares: ["share_external"],
  resource_accesses: ["file_access", "download"],
  oauth_grants: ["oauth_grant"],
  deletions: ["file_delete"],
};

export type TPrincipalSeries = { series: TSeries; firstWeek: number };

export type TNewAnomaly = {
  id: string;
  principal: string;
  type: TAnomalyType;
  severity: TSeverity;
  confidence: number;
  at: Date;
};

export type TRefreshResult = { principals: number; anomalies: number; newAnomalies: TNewAnomaly[] };
/** What announcing new anomalies needs: the queue their deliveries go to once committed, the links' base. */
export type TRefreshDeps = { jobs: TJobQueue; publicUrl: string };

/** One `anomaly.detected` per anomaly new to this refresh, in the refresh's own transaction. */
async function announce(emit: TEmit, orgId: string, fresh: TNewAnomaly[], publicUrl: string) {
  const base = publicUrl.replace(/\/$/, "");
  for (const a of fresh) {
    await emit({
      orgId,
      type: "anomaly.detected",
      data: {
        anomalyId: a.id,
        principal: a.principal,
        type: a.type,
        severity: a.severity,
        confidence: a.confidence,
        at: a.at.toISOString(),
        link: `${base}/api/behavior/anomalies/${a.id}`,
      },
    });
  }
}

/** Weekly series per principal over `weeks` (oldest first); one principal's only with `principal`. */
export async function loadSeries(
  db: Db,
  q: { orgId: string; weeks: string[]; principal?: string },
): Promise<Map<string, TPrincipalSeries>> {
  const { orgId, weeks, principal } = q;
  // One row per principal and metric, its weeks as indexes into `weeks`: a large tenant has a
  // million weekly counts, and an object and a date string each did not fit the scheduler's heap.
  const start = sql`${weeks[0]}::date`;
  const rows = await queryRows<{ principal: string; metric: string; at: number[]; counts: number[] }>(
    db,
    sql`select principal, metric,
          array_agg(case when (week - ${start}) % 7 = 0 then (week - ${start}) / 7 else -1 end order by week) as at,
          array_agg(count order by week) as counts
        from activity_weekly
        where org_id = ${orgId} and week >= ${start}
        ${principal === undefined ? sql`` : sql`and principal = ${principal}`}
        group by principal, metric`,
  );
  const out = new Map<string, TPrincipalSeries>();
  for (const r of rows)
    r.at.forEach((i, k) => {
      if (i < 0 || i >= weeks.length) return;
      let p = out.get(r.principal);
      if (!p) {
        p = { series: emptySeries(weeks.length), firstWeek: i };
        out.set(r.principal, p);
      }
      p.firstWeek = Math.min(p.firstWeek, i);
      if (r.metric !== "logins") p.series[r.metric as TRateMetric][i] = r.counts[k] ?? 0;
    });
  return out;
}

/** When the week's running count first reached the threshold: the moment the behaviour turned anomalous. */
async function crossedAt(
  db: Db,
  orgId: string,
  principal: string,
  c: TCandidate,
  weekKey: string,
): Promise<Date> {
  const start = new Date(`${weekKey}T00:00:00Z`);
  const end = new Date(start.getTime() + WEEK_MS);
  const kinds = sql.join(
    KINDS_OF[c.metric].map((k) => sql`${k}`),
    sql`, `,
  );
  const inWeek = sql`org_id = ${orgId} and principal = ${principal} and kind in (${kinds})
    and at >= ${start.toISOString()}::timestamptz and at < ${end.toISOString()}::timestamptz`;
  // Deletions count files (activity-store): each file's first deletion of the week adds one.
  const events =
    c.metric === "deletions"
      ? sql`select min(at) as at, coalesce(resource_id, external_id) as k, 1 as count
            from activity_events where ${inWeek} group by 2`
      : sql`select at, id as k, count from activity_events where ${inWeek}`;
  const [row] = await queryRows<{ at: Date | string }>(
    db,
    sql`select at from (select at, sum(count) over (order by at, k) as run from (${events}) e) s
        where run >= ${c.threshold} order by at limit 1`,
  );
  return row ? new Date(row.at) : start;
}

type TAnomalyRow = typeof anomalies.$inferInsert;

/**
 * Recomputes an organization's behaviour: weekly aggregates, each principal's baseline, the
 * heatmap cells and the anomalies of the last two weeks. Idempotent: anomalies are keyed by
 * (principal, type, window) and updated in place; only those new to this run are announced
 * (`anomaly.detected`, committed with them: the transactional outbox) and returned.
 */
export async function refreshBehaviour(
  db: Db,
  q: { orgId: string; now?: Date; changedSince?: Date },
  deps: TRefreshDeps,
): Promise<TRefreshResult> {
  const now = q.now ?? new Date();
  const weeks = recentWeeks(now, HORIZON_WEEKS);
  const last = weeks.length - 1;
  // Only the weeks new events fell into are re-summed (all 14 without a hint).
  const horizonStart = new Date(`${weeks[0]}T00:00:00Z`).getTime();
  const from = new Date(Math.max(horizonStart, q.changedSince?.getTime() ?? horizonStart));
  await refreshWeeklyAggregates(db, { orgId: q.orgId, from });
  const all = await loadSeries(db, { orgId: q.orgId, weeks });

  // The organization's pooled complete weeks: the fallback for principals with a short history.
  const pooled = Object.fromEntries(RATE_METRICS.map((m) => [m, [] as number[]])) as Record<
    TRateMetric,
    number[]
  >;
  for (const p of all.values())
    for (let i = p.firstWeek; i < last; i++)
      for (const m of RATE_METRICS) pooled[m].push(p.series[m][i] ?? 0);
  const org = organizationStats(pooled);

  const candidates: Array<{ principal: string; c: TCandidate }> = [];
  const cells = new Map<string, number[]>();
  const baselineRows: Array<typeof behaviorBaselines.$inferInsert> = [];
  for (const [principal, p] of all) {
    const row = new Array<number>(weeks.length).fill(0);
    for (let i = p.firstWeek; i <= last; i++) {
      const b = baselineAt(p.series, p.firstWeek, i, org);
      row[i] = riskCell(p.series, i, b);
      if (i > last - DETECT_WEEKS)
        for (const c of rateCandidates(p.series, i, b)) candidates.push({ principal, c });
    }
    cells.set(principal, row);
    const b = baselineAt(p.series, p.firstWeek, last, org);
    baselineRows.push({
      orgId: q.orgId,
      principal,
      periodsLearned: b.periodsLearned,
      source: b.source,
      externalShareMedian: b.stats.external_shares.median,
      externalShareScale: b.stats.external_shares.scale,
      resourceAccessMedian: b.stats.resource_accesses.median,
      resourceAccessScale: b.stats.resource_accesses.scale,
      oauthGrantMedian: b.stats.oauth_grants.median,
      oauthGrantScale: b.stats.oauth_grants.scale,
      computedAt: now,
    });
  }

  const found: TAnomalyRow[] = [];
  for (const { principal, c } of candidates) {
    const weekKey = weeks[c.weekIndex] ?? weeks[last] ?? "";
    found.push({
      orgId: q.orgId,
      principal,
      type: c.type,
      window: labelOfKey(weekKey),
      severity: c.severity,
      severityRank: SEVERITY_RANK[c.severity],
      confidence: c.confidence,
      at: await crossedAt(db, q.orgId, principal, c, weekKey),
      observed: c.observed,
      expected: c.expected,
      periodsLearned: c.periodsLearned,
      details: { metric: c.metric, deviation: c.deviation, baseline: c.source, threshold: c.threshold },
    });
  }
  for (const d of await findDormantReturns(db, {
    orgId: q.orgId,
    since: new Date(`${weeks[last - DETECT_WEEKS + 1]}T00:00:00Z`),
  })) {
    found.push({
      orgId: q.orgId,
      principal: d.principal,
      type: "dormant_reactivation",
      window: labelOfKey(d.at.toISOString().slice(0, 10)),
      severity: d.severity,
      severityRank: SEVERITY_RANK[d.severity],
      confidence: d.confidence,
      at: d.at,
      observed: d.gapDays,
      expected: 0,
      periodsLearned: d.periodsLearned,
      details: {
        gapDays: d.gapDays,
        previousActivityAt: d.previousAt?.toISOString() ?? null,
        isAdmin: d.isAdmin,
      },
    });
  }

  // Anomalous weeks are at least as hot on the heatmap as their severity.
  const weekOfLabel = new Map(weeks.map((w, i) => [labelOfKey(w), i]));
  for (const a of found) {
    const row = cells.get(a.principal) ?? new Array<number>(weeks.length).fill(0);
    const i = weekOfLabel.get(a.window);
    if (i !== undefined) row[i] = Math.max(row[i] ?? 0, SEVERITY_POINTS[a.severity]);
    cells.set(a.principal, row);
  }
  const riskTotal = (principal: string) =>
    (cells.get(principal) ?? []).slice(-LEARN_WEEKS).reduce((s, v) => s + v, 0);
  for (const b of baselineRows) b.riskTotal = riskTotal(b.principal);

  const newAnomalies = await withEvents(db, deps.jobs, async (tx, emit) => {
    // Thousands of baselines and heatmap rows for a large tenant: past the per-request bound.
    await tx.execute(allowLongStatements(JOB_STATEMENT_TIMEOUT_MS));
    const fresh: TNewAnomaly[] = [];
    for (let i = 0; i < found.length; i += CHUNK) {
      const rows = await tx
        .insert(anomalies)
        .values(found.slice(i, i + CHUNK))
        .onConflictDoUpdate({
          target: [anomalies.orgId, anomalies.principal, anomalies.type, anomalies.window],
          set: fromExcluded(anomalies, [
            "severity",
            "severityRank",
            "confidence",
            "at",
            "observed",
            "expected",
            "periodsLearned",
            "details",
          ]),
        })
        .returning({
          id: anomalies.id,
          principal: anomalies.principal,
          type: anomalies.type,
          severity: anomalies.severity,
          confidence: anomalies.confidence,
          at: anomalies.at,
          inserted: sql<boolean>`(xmax = 0)`,
        });
      for (const r of rows) if (r.inserted) fresh.push({ ...r, at: new Date(r.at) });
    }
    for (let i = 0; i < baselineRows.length; i += CHUNK) {
      await tx
        .insert(behaviorBaselines)
        .values(baselineRows.slice(i, i + CHUNK))
        .onConflictDoUpdate({
          target: [behaviorBaselines.orgId, behaviorBaselines.principal],
          set: fromExcluded(behaviorBaselines, [
            "periodsLearned",
            "source",
            "externalShareMedian",
            "externalShareScale",
            "resourceAccessMedian",
            "resourceAccessScale",
            "oauthGrantMedian",
            "oauthGrantScale",
            "riskTotal",
            "computedAt",
          ]),
        });
    }
    await tx.execute(
      sql`delete from behavior_baselines where org_id = ${q.orgId} and computed_at < ${now.toISOString()}::timestamptz`,
    );
    await tx.execute(sql`delete from behavior_weekly_risk where org_id = ${q.orgId}`);
    const riskRows: Array<typeof behaviorWeeklyRisk.$inferInsert> = [];
    for (const [principal, row] of cells)
      row.forEach((risk, i) => {
        if (risk > 0) riskRows.push({ orgId: q.orgId, principal, week: labelOfKey(weeks[i] ?? ""), risk });
      });
    for (let i = 0; i < riskRows.length; i += CHUNK * 5)
      await tx.insert(behaviorWeeklyRisk).values(riskRows.slice(i, i + CHUNK * 5));
    await announce(emit, q.orgId, fresh, deps.publicUrl);
    return fresh;
  });
  return { principals: all.size, anomalies: found.length, newAnomalies };
}
