import { sql } from "drizzle-orm";
import { partnerClientHealth, queryRows } from "@posture/db";
import { withEvents } from "@posture/webhooks";
import type { TReportDeps } from "./scheduled-reports";

/** A drop of this many points or more between two checks is announced. */
export const SCORE_DROP_POINTS = 10;

type TClientRow = {
  partner_id: string;
  org_id: string;
  name: string;
  score: number | null;
  last_score: number | null;
  seen: boolean;
  previous_unhealthy: string[] | null;
  unhealthy: Array<{ connectorId: string; name: string; healthStatus: string }> | null;
};

/**
 * Periodic: for partners with notifyUnhealthy, compares each managed organization with what the
 * last check saw and sends client.unhealthy when a source turned unhealthy or the score dropped by
 * 10 points or more. The first check of a client only records its state (nothing "turned").
 */
export async function sweepClientHealth(deps: TReportDeps): Promise<number> {
  const { db } = deps;
  const rows = await queryRows<TClientRow>(
    db,
    sql`SELECT ps.org_id AS partner_id, o.id AS org_id, o.name, sm.posture_score AS score,
        h.last_score, h.org_id IS NOT NULL AS seen, h.unhealthy_sources AS previous_unhealthy,
        (SELECT json_agg(json_build_object('connectorId', c.id, 'name', c.display_name, 'healthStatus', c.health_status) ORDER BY c.id)
           FROM connectors c WHERE c.org_id = o.id AND c.health_status <> 'healthy') AS unhealthy
      FROM partner_settings ps
      JOIN organizations p ON p.id = ps.org_id AND p.is_partner
      JOIN organizations o ON o.managed_by_org_id = ps.org_id
      -- A client that withdrew its partner's access is not the partner's to hear about.
      JOIN partner_access pa ON pa.client_org_id = o.id AND pa.partner_org_id = ps.org_id AND pa.withdrawn_at IS NULL
      LEFT JOIN partner_client_health h ON h.org_id = o.id
      LEFT JOIN org_posture_summary sm ON sm.org_id = o.id
      WHERE ps.notify_unhealthy`,
  );
  let sent = 0;
  const link = (orgId: string) =>
    `${deps.runtime.publicUrl.replace(/\/$/, "")}/api/partner/reports/client/${orgId}`;
  for (const r of rows) {
    const unhealthy = r.unhealthy ?? [];
    const score = r.score === null ? null : Number(r.score);
    const last = r.last_score === null ? null : Number(r.last_score);
    // The events and the state they were judged against commit together (the transactional
    // outbox): a crash cannot lose an announcement, nor announce one change twice.
    sent += await withEvents(db, deps.jobs, async (tx, emit) => {
      let n = 0;
      if (r.seen) {
        const before = new Set(r.previous_unhealthy ?? []);
        const turned = unhealthy.filter((s) => !before.has(s.connectorId));
        const base = { orgId: r.org_id, name: r.name, score, previousScore: last, link: link(r.org_id) };
        if (turned.length > 0) {
          await emit({
            orgId: r.partner_id,
            type: "client.unhealthy",
            data: { ...base, reason: "source_unhealthy", sources: turned },
          });
          n++;
        }
        if (score !== null && last !== null && last - score >= SCORE_DROP_POINTS) {
          await emit({
            orgId: r.partner_id,
            type: "client.unhealthy",
            data: { ...base, reason: "score_drop", sources: unhealthy },
          });
          n++;
        }
      }
      const state = {
        lastScore: score,
        unhealthySources: unhealthy.map((s) => s.connectorId),
        checkedAt: new Date(),
      };
      await tx
        .insert(partnerClientHealth)
        .values({ orgId: r.org_id, ...state })
        .onConflictDoUpdate({ target: partnerClientHealth.orgId, set: state });
      return n;
    });
  }
  return sent;
}
