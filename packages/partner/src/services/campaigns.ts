import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db, type TCampaignKind, type TSeverity } from "@posture/db";
import { AppError, managedClients, offsetPage } from "@posture/platform";
import type { TCampaignDetail } from "./radar";
import { titleOf } from "./radar";

export type TCampaignStatus = "ACTIVE" | "RESOLVED";
export type TCampaign = {
  id: string;
  kind: TCampaignKind;
  subject: string;
  title: string;
  severity: TSeverity;
  status: TCampaignStatus;
  clientCount: number;
  clientOrgIds: string[];
  firstSeenAt: string;
  lastSeenAt: string;
  resolvedAt: string | null;
};

export type TListCampaignsInput = {
  limit: number;
  offset: number;
  status?: TCampaignStatus;
  kind?: TCampaignKind;
  groupId?: string;
  minClients?: number;
};

type TRow = {
  id: string;
  kind: TCampaignKind;
  subject: string;
  severity: TSeverity;
  status: TCampaignStatus;
  live_ids: string[];
  label: string | null;
  first_seen_at: Date | string;
  last_seen_at: Date | string;
  resolved_at: Date | string | null;
  total?: number | string;
};

const iso = (v: Date | string) => new Date(v).toISOString();

// The campaign's clients as the partner may see them now: a client that withdrew access since the
// last radar pass is already gone from every answer (the next pass drops it for good).
const campaignsOf = (partnerOrgId: string, where: SQL) => sql`
  WITH live AS (
    SELECT o.id FROM organizations o JOIN partner_access pa ON pa.client_org_id = o.id
    WHERE o.managed_by_org_id = ${partnerOrgId} AND pa.partner_org_id = ${partnerOrgId} AND pa.withdrawn_at IS NULL
  ), c AS (
    SELECT pc.id, pc.kind, pc.subject, pc.severity, pc.status, pc.first_seen_at, pc.last_seen_at, pc.resolved_at,
      pc.detail->>'label' AS label,
      ARRAY(SELECT u FROM unnest(pc.client_org_ids) u WHERE u IN (SELECT id FROM live) ORDER BY u) AS live_ids
    FROM partner_campaigns pc
    WHERE pc.partner_org_id = ${partnerOrgId} AND ${where}
  )`;

function toCampaign(r: TRow): TCampaign {
  return {
    id: r.id,
    kind: r.kind,
    subject: r.subject,
    title: titleOf(r.kind, r.subject, r.label, r.live_ids.length),
    severity: r.severity,
    status: r.status,
    clientCount: r.live_ids.length,
    clientOrgIds: r.live_ids,
    firstSeenAt: iso(r.first_seen_at),
    lastSeenAt: iso(r.last_seen_at),
    resolvedAt: r.resolved_at === null ? null : iso(r.resolved_at),
  };
}

/**
 * The partner's campaigns, most severe first, then the widest, then the most recent. A campaign
 * none of whose clients the partner may still read is not listed. `groupId` keeps campaigns that
 * touch at least one client of the group (another partner's or an unknown group: 404).
 */
export async function listCampaigns(db: Db, o: { partnerOrgId: string } & TListCampaignsInput) {
  let groupMembers: SQL = sql`TRUE`;
  if (o.groupId !== undefined) {
    const [group] = await queryRows<{ id: string }>(
      db,
      sql`SELECT id FROM partner_groups WHERE id = ${o.groupId} AND partner_org_id = ${o.partnerOrgId}`,
    );
    if (!group) throw new AppError("not_found", "Group not found");
    groupMembers = sql`live_ids && ARRAY(SELECT client_org_id FROM partner_group_members WHERE group_id = ${group.id})`;
  }
  const where = sql.join(
    [
      o.status === undefined ? sql`TRUE` : sql`pc.status = ${o.status}`,
      o.kind === undefined ? sql`TRUE` : sql`pc.kind = ${o.kind}`,
    ],
    sql` AND `,
  );
  const rows = await queryRows<TRow>(
    db,
    sql`${campaignsOf(o.partnerOrgId, where)}
      SELECT c.*, count(*) OVER () AS total FROM c
      WHERE cardinality(live_ids) >= ${Math.max(1, o.minClients ?? 1)} AND ${groupMembers}
      ORDER BY CASE c.severity WHEN 'CRITICAL' THEN 4 WHEN 'HIGH' THEN 3 WHEN 'MEDIUM' THEN 2 ELSE 1 END DESC,
        cardinality(live_ids) DESC, c.last_seen_at DESC, c.id
      LIMIT ${o.limit} OFFSET ${o.offset}`,
  );
  let total = rows[0]?.total === undefined ? 0 : Number(rows[0].total);
  // Past the last page the window count is not there: count on its own.
  if (rows.length === 0 && o.offset > 0) {
    const [counted] = await queryRows<{ n: number | string }>(
      db,
      sql`${campaignsOf(o.partnerOrgId, where)}
        SELECT count(*) AS n FROM c WHERE cardinality(live_ids) >= ${Math.max(1, o.minClients ?? 1)} AND ${groupMembers}`,
    );
    total = Number(counted?.n ?? 0);
  }
  return offsetPage(rows.map(toCampaign), { total, limit: o.limit, offset: o.offset });
}

const EVIDENCE_KIND: Record<TCampaignKind, "grant" | "share" | "anomaly"> = {
  oauth_app: "grant",
  ai_agent: "grant",
  outside_domain: "share",
  anomaly: "anomaly",
};

/** One campaign with its clients (names) and per-client evidence; 404 unless it is the partner's and a client is still readable. */
export async function getCampaign(db: Db, o: { partnerOrgId: string; id: string }) {
  const [row] = await queryRows<TRow & { detail: TCampaignDetail }>(
    db,
    sql`${campaignsOf(o.partnerOrgId, sql`pc.id = ${o.id}`)}
      SELECT c.*, pc.detail FROM c JOIN partner_campaigns pc ON pc.id = c.id`,
  );
  if (!row || row.live_ids.length === 0) throw new AppError("not_found", "Campaign not found");
  const names = new Map((await managedClients(db, o.partnerOrgId, row.live_ids)).map((c) => [c.id, c.name]));
  const evidenceType = EVIDENCE_KIND[row.kind];
  return {
    ...toCampaign(row),
    label: row.detail.label ?? null,
    publisher: row.detail.publisher ?? null,
    clients: (row.detail.clients ?? [])
      .filter((c) => names.has(c.orgId))
      .map((c) => ({
        orgId: c.orgId,
        name: names.get(c.orgId) ?? "",
        firstSeenAt: c.firstSeenAt,
        lastSeenAt: c.lastSeenAt,
        evidence: { type: evidenceType, ids: c.evidenceIds, count: c.evidenceCount },
      })),
  };
}
