import { and, eq, sql } from "drizzle-orm";
import {
  allowLongStatements,
  JOB_STATEMENT_TIMEOUT_MS,
  partnerCampaigns,
  SEVERITY_RANK,
  SEVERITIES,
  type Db,
  type TCampaignKind,
  type TSeverity,
} from "@posture/db";
import type { TJobQueue } from "@posture/platform";
import { withEvents, type TEventData } from "@posture/webhooks";
import { collectSightings, RADAR_MIN_CLIENTS, RADAR_WINDOW_DAYS, type TSighting } from "./radar-sources";

export type TRadarDeps = { db: Db; jobs: TJobQueue; runtime: { publicUrl: string } };

/** A campaign this wide is one level more severe than its subject alone. */
export const RADAR_SPREAD_CLIENTS = 5;

/** What a campaign keeps per client: when the subject first and last showed there, and the records. */
export type TCampaignClientEvidence = {
  orgId: string;
  firstSeenAt: string;
  lastSeenAt: string;
  evidenceIds: string[];
  evidenceCount: number;
};
export type TCampaignDetail = {
  label: string | null;
  publisher: string | null;
  clients: TCampaignClientEvidence[];
};

type TCampaignRow = typeof partnerCampaigns.$inferSelect;
type TOutcome = { detected: number; updated: number; resolved: number };

const raise = (s: TSeverity, levels: number): TSeverity =>
  SEVERITIES[Math.max(0, SEVERITIES.indexOf(s) - levels)] ?? "CRITICAL";

/**
 * Grants: an unverified publisher and broad scopes make HIGH, either one MEDIUM, neither LOW; an
 * AI agent is one level more. Shares and anomalies: their worst record in any client. Then one
 * level more from RADAR_SPREAD_CLIENTS clients (not for anomalies).
 */
export function campaignSeverity(kind: TCampaignKind, sightings: readonly TSighting[]): TSeverity {
  let base: TSeverity;
  if (kind === "oauth_app" || kind === "ai_agent") {
    const known = sightings.some((s) => s.known);
    const broad = sightings.some((s) => s.broad);
    base = !known && broad ? "HIGH" : !known || broad ? "MEDIUM" : "LOW";
    if (kind === "ai_agent") base = raise(base, 1);
  } else {
    base = sightings.reduce<TSeverity>(
      (worst, s) => (SEVERITY_RANK[s.severity] > SEVERITY_RANK[worst] ? s.severity : worst),
      "LOW",
    );
  }
  // Some anomaly of every type turns up somewhere in a large portfolio each month: width is no
  // signal there, and raising it would put the ordinary above a spreading app.
  return kind !== "anomaly" && sightings.length >= RADAR_SPREAD_CLIENTS ? raise(base, 1) : base;
}

/** jsonb hands keys back in its own order: compare with sorted keys. */
const canonical = (v: unknown) =>
  JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b)))
      : x,
  );

const clients = (n: number) => (n === 1 ? "1 client" : `${n} clients`);

export function titleOf(kind: TCampaignKind, subject: string, label: string | null, n: number): string {
  switch (kind) {
    case "oauth_app":
      return `OAuth app '${label ?? subject}' granted in ${clients(n)}`;
    case "ai_agent":
      return `AI agent '${label ?? subject}' granted in ${clients(n)}`;
    case "outside_domain":
      return `Outside domain ${subject} receiving shares in ${clients(n)}`;
    case "anomaly":
      return `Anomaly '${subject.replace(/_/g, " ")}' in ${clients(n)} within ${RADAR_WINDOW_DAYS} days`;
  }
}

const keyOf = (kind: string, subject: string) => `${kind}\u0000${subject}`;

export const PARTNER_RADAR_JOB = "partner.radar.refresh";
export const PARTNER_RADAR_SWEEP_JOB = "partner.radar.sweep";
/** Requests for one partner's radar within this span share one pass, run at the span's end. */
export const RADAR_COALESCE_MS = 5_000;

/** The pass that covers a request made at `atMs`: the one starting at the end of its span. */
export function radarJobId(partnerOrgId: string, atMs: number): string {
  return `partner-radar-${partnerOrgId}-${(Math.floor(atMs / RADAR_COALESCE_MS) + 1) * RADAR_COALESCE_MS}`;
}

/**
 * Asks for a pass of the partner's radar after one of its clients changed (the job every managed
 * client's scan queues). A pass reads every client, so 500 clients scanned together must not mean
 * 500 passes: requests within one RADAR_COALESCE_MS span queue the same job (same id), due at
 * the span's end. A request made while that job runs falls in a later span, so its own pass
 * starts after it: no change is missed, and a partner's radar runs at most once per span.
 */
export async function refreshRadar(deps: TRadarDeps, partnerOrgId: string): Promise<void> {
  const now = Date.now();
  const due = (Math.floor(now / RADAR_COALESCE_MS) + 1) * RADAR_COALESCE_MS;
  await deps.jobs.enqueue(
    PARTNER_RADAR_JOB,
    { partnerOrgId },
    { jobId: radarJobId(partnerOrgId, now), delayMs: due - now },
  );
}

/**
 * Recomputes one partner's cross-client campaigns in one pass over its consenting clients
 * (issue 17, item 4). A subject becomes a campaign when it is new (first seen within the window)
 * in RADAR_MIN_CLIENTS or more clients; the campaign then lists every client where it is present
 * and stays ACTIVE while that is RADAR_MIN_CLIENTS or more, RESOLVED below. New or back after
 * resolving: `portfolio.campaign.detected`; more clients or a higher severity:
 * `portfolio.campaign.updated`. One pass per partner at a time (an advisory lock), so concurrent
 * refreshes never announce one change twice; events and rows commit together.
 */
export async function runRadar(deps: TRadarDeps, partnerOrgId: string): Promise<TOutcome> {
  const outcome: TOutcome = { detected: 0, updated: 0, resolved: 0 };
  const base = deps.runtime.publicUrl.replace(/\/$/, "");
  await withEvents(deps.db, deps.jobs, async (tx, emit) => {
    // A background pass over every client's shares: bounded as jobs' long statements are.
    await tx.execute(allowLongStatements(JOB_STATEMENT_TIMEOUT_MS));
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`partner-radar:${partnerOrgId}`}))`);
    const now = await dbNow(tx);
    const since = now.getTime() - RADAR_WINDOW_DAYS * 86_400_000;
    const sightings = await collectSightings(tx, partnerOrgId, now);
    const existing = await tx
      .select()
      .from(partnerCampaigns)
      .where(eq(partnerCampaigns.partnerOrgId, partnerOrgId));
    const current = new Map(existing.map((c) => [keyOf(c.kind, c.subject), c]));
    const groups = new Map<string, TSighting[]>();
    for (const s of sightings) {
      const k = keyOf(s.kind, s.subject);
      const list = groups.get(k) ?? [];
      list.push(s);
      groups.set(k, list);
    }
    const seen = new Set<string>();
    for (const [k, present] of groups) {
      const before = current.get(k);
      const recent = present.filter((s) => s.firstSeenAt.getTime() >= since).length;
      const active =
        recent >= RADAR_MIN_CLIENTS || (before?.status === "ACTIVE" && present.length >= RADAR_MIN_CLIENTS);
      if (!active) continue;
      seen.add(k);
      const change = await upsert(tx, partnerOrgId, before, present, now);
      if (change.event === null) continue;
      const row = change.row;
      const data: TEventData<"portfolio.campaign.detected"> = {
        campaignId: row.id,
        kind: row.kind,
        subject: row.subject,
        title: row.title,
        severity: row.severity,
        clientOrgIds: row.clientOrgIds,
        clientCount: row.clientCount,
        firstSeenAt: row.firstSeenAt.toISOString(),
        link: `${base}/api/partner/campaigns/${row.id}`,
      };
      await emit({ orgId: partnerOrgId, type: change.event, data });
      if (change.event === "portfolio.campaign.detected") outcome.detected++;
      else outcome.updated++;
    }
    // Below the threshold, or gone from every client: resolved. The record keeps the clients and
    // evidence of its last active pass (where it had spread); no event: the contract's events
    // announce spread, not its end, and the list shows the status.
    for (const c of existing) {
      if (c.status !== "ACTIVE" || seen.has(keyOf(c.kind, c.subject))) continue;
      await tx
        .update(partnerCampaigns)
        .set({ status: "RESOLVED", resolvedAt: now, updatedAt: now })
        .where(and(eq(partnerCampaigns.id, c.id), eq(partnerCampaigns.partnerOrgId, partnerOrgId)));
      outcome.resolved++;
    }
  });
  return outcome;
}

async function dbNow(tx: Db): Promise<Date> {
  const res = (await tx.execute(sql`SELECT now() AS now`)) as unknown as {
    rows: Array<{ now: Date | string }>;
  };
  return new Date(res.rows[0]?.now ?? Date.now());
}

function detailOf(present: readonly TSighting[]): TCampaignDetail {
  const first = present.find((s) => s.label !== null);
  return {
    label: first?.label ?? null,
    publisher: first?.publisher ?? null,
    clients: [...present]
      .sort((a, b) => a.orgId.localeCompare(b.orgId))
      .map((s) => ({
        orgId: s.orgId,
        firstSeenAt: s.firstSeenAt.toISOString(),
        lastSeenAt: s.lastSeenAt.toISOString(),
        evidenceIds: s.evidenceIds,
        evidenceCount: s.evidenceCount,
      })),
  };
}

type TChange = {
  row: TCampaignRow;
  event: "portfolio.campaign.detected" | "portfolio.campaign.updated" | null;
};

async function upsert(
  tx: Db,
  partnerOrgId: string,
  before: TCampaignRow | undefined,
  present: readonly TSighting[],
  now: Date,
): Promise<TChange> {
  const first = present[0];
  if (!first) throw new Error("a campaign without clients");
  const detail = detailOf(present);
  const clientOrgIds = detail.clients.map((c) => c.orgId);
  const severity = campaignSeverity(first.kind, present);
  const values = {
    title: titleOf(first.kind, first.subject, detail.label, present.length),
    severity,
    status: "ACTIVE" as const,
    clientOrgIds,
    clientCount: clientOrgIds.length,
    detail,
    firstSeenAt: new Date(Math.min(...present.map((s) => s.firstSeenAt.getTime()))),
    lastSeenAt: new Date(Math.max(...present.map((s) => s.lastSeenAt.getTime()))),
    updatedAt: now,
    resolvedAt: null,
  };
  if (!before) {
    const [row] = await tx
      .insert(partnerCampaigns)
      .values({ partnerOrgId, kind: first.kind, subject: first.subject, ...values })
      .returning();
    if (!row) throw new Error("campaign insert returned no row");
    return { row, event: "portfolio.campaign.detected" };
  }
  const unchanged =
    before.status === "ACTIVE" &&
    before.severity === severity &&
    before.title === values.title &&
    before.clientOrgIds.join() === clientOrgIds.join() &&
    canonical(before.detail) === canonical(detail);
  if (unchanged) return { row: before, event: null };
  const [row] = await tx
    .update(partnerCampaigns)
    .set(values)
    .where(eq(partnerCampaigns.id, before.id))
    .returning();
  if (!row) throw new Error("campaign update returned no row");
  if (before.status !== "ACTIVE") return { row, event: "portfolio.campaign.detected" };
  const had = new Set(before.clientOrgIds);
  const wider = clientOrgIds.some((id) => !had.has(id));
  const worse = SEVERITY_RANK[severity] > SEVERITY_RANK[before.severity];
  return { row, event: wider || worse ? "portfolio.campaign.updated" : null };
}

/**
 * Every partner's radar, one after another: anomalies land after the scan that queued the
 * partner's refresh (behaviour analytics runs later), and the window moves on without any scan.
 */
export async function sweepRadar(deps: TRadarDeps): Promise<{ partners: number }> {
  const res = (await deps.db.execute(
    sql`SELECT DISTINCT pa.partner_org_id AS id FROM partner_access pa
        JOIN organizations p ON p.id = pa.partner_org_id AND p.is_partner
        WHERE pa.withdrawn_at IS NULL
        UNION SELECT DISTINCT partner_org_id FROM partner_campaigns WHERE status = 'ACTIVE'`,
  )) as unknown as { rows: Array<{ id: string }> };
  for (const r of res.rows) await runRadar(deps, r.id);
  return { partners: res.rows.length };
}
