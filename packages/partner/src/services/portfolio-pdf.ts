import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@posture/db";
import { createReport, SEVERITY_COLORS, type TCell, type TTheme } from "@posture/pdf";

export type TPeriodClient = {
  orgId: string;
  name: string;
  score: number | null;
  startScore: number | null;
  openCritical: number;
  openHigh: number;
  /** Open internal-exposure findings (what Copilot and Gemini can surface to anyone inside). */
  openInternalExposure: number;
  unhealthySources: number;
};

/**
 * Every figure of a period's report, as it stood at the period's end (one time base): each
 * client's latest score completed before the end, and before the start (for the change); the
 * critical and high findings open at the end (detected before it and not resolved by it; an
 * ACCEPTED finding is not open, its acceptance time is not kept), and the open internal-exposure
 * findings the same way; its sources whose last scan
 * before the end failed. Clients are the organizations the partner manages when the report is built
 * (those of one of its groups, with `groupId`).
 */
export async function portfolioForPeriod(
  db: Db,
  o: { partnerOrgId: string; start: Date; end: Date; groupId?: string | null },
): Promise<TPeriodClient[]> {
  const groupId = o.groupId ?? null;
  const openAtEnd = (which: ReturnType<typeof sql>) =>
    sql`(SELECT count(*)::int FROM findings f WHERE f.org_id = o.id AND ${which}
           AND f.status <> 'ACCEPTED' AND f.detected_at < ${o.end}
           AND (f.resolved_at IS NULL OR f.resolved_at >= ${o.end}))`;
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`SELECT o.id, o.name,
        (SELECT posture_score FROM scans s WHERE s.org_id = o.id AND s.status = 'COMPLETE' AND s.posture_score IS NOT NULL
           AND s.completed_at < ${o.end} ORDER BY s.completed_at DESC, s.id DESC LIMIT 1) AS score,
        (SELECT posture_score FROM scans s WHERE s.org_id = o.id AND s.status = 'COMPLETE' AND s.posture_score IS NOT NULL
           AND s.completed_at < ${o.start} ORDER BY s.completed_at DESC, s.id DESC LIMIT 1) AS start_score,
        ${openAtEnd(sql`f.severity_rank = 4`)} AS critical,
        ${openAtEnd(sql`f.severity_rank = 3`)} AS high,
        ${openAtEnd(sql`f.category = 'internal_exposure'`)} AS internal,
        (SELECT count(*)::int FROM connectors c WHERE c.org_id = o.id AND c.created_at < ${o.end}
           AND (SELECT s.status FROM scans s WHERE s.connector_id = c.id AND s.status IN ('COMPLETE', 'FAILED')
                  AND s.completed_at < ${o.end} ORDER BY s.completed_at DESC, s.id DESC LIMIT 1) = 'FAILED') AS unhealthy
      FROM organizations o JOIN partner_access pa ON pa.client_org_id = o.id AND pa.partner_org_id = o.managed_by_org_id AND pa.withdrawn_at IS NULL
      WHERE o.managed_by_org_id = ${o.partnerOrgId}
        AND (${groupId}::text IS NULL OR EXISTS (SELECT 1 FROM partner_group_members m
          WHERE m.group_id = ${groupId}::text AND m.client_org_id = o.id))
      ORDER BY o.name, o.id`,
  );
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return rows.map((r) => ({
    orgId: String(r.id),
    name: String(r.name),
    score: num(r.score),
    startScore: num(r.start_score),
    openCritical: Number(r.critical),
    openHigh: Number(r.high),
    openInternalExposure: Number(r.internal),
    unhealthySources: Number(r.unhealthy),
  }));
}

const needsAttention = (c: TPeriodClient) =>
  c.openCritical > 0 ||
  c.unhealthySources > 0 ||
  (c.score !== null && c.score < 60) ||
  (c.score !== null && c.startScore !== null && c.startScore - c.score >= 10);

const change = (c: TPeriodClient): TCell =>
  c.score === null || c.startScore === null
    ? "-"
    : {
        text: `${c.score - c.startScore >= 0 ? "+" : ""}${c.score - c.startScore}`,
        color: c.score < c.startScore ? SEVERITY_COLORS.CRITICAL : "#2B8A3E",
      };

/** The executive portfolio PDF an MSP sends on: totals, who needs attention, every client with its change. */
export function renderPortfolioPdf(o: {
  partnerName: string;
  clients: TPeriodClient[];
  period: { label: string; start: Date; end: Date };
  theme: TTheme;
  now?: Date;
}): Promise<Buffer> {
  const now = o.now ?? new Date();
  const { clients } = o;
  const scored = clients.flatMap((c) => (c.score === null ? [] : [c.score]));
  const avg = scored.length ? Math.round(scored.reduce((a, b) => a + b, 0) / scored.length) : null;
  const attention = clients.filter(needsAttention);
  const unscanned = clients.filter((c) => c.score === null);
  const asOf = new Date(o.period.end.getTime() - 1).toISOString().slice(0, 10);
  const r = createReport({ title: `${o.period.label} portfolio report`, theme: o.theme, createdAt: now });
  r.cover({
    title: `${o.period.label} portfolio report`,
    subtitle: o.partnerName,
    lines: [
      `Period: ${o.period.start.toISOString().slice(0, 10)} to ${asOf}`,
      `${clients.length} client organizations${unscanned.length ? `, ${unscanned.length} not scanned by the period end` : ""}`,
      `Every figure as at the end of ${asOf} UTC`,
      `Generated: ${now.toISOString().replace("T", " ").slice(0, 16)} UTC`,
    ],
  });
  r.newPage().heading("Portfolio summary");
  r.paragraph(
    `As at the end of ${asOf} UTC. Clients not scanned by then are listed as such and left out of the average.`,
    {
      muted: true,
    },
  );
  r.stats([
    { label: "Clients", value: String(clients.length) },
    { label: "Average score", value: avg === null ? "-" : String(avg) },
    { label: "Not scanned", value: String(unscanned.length) },
    {
      label: "Open critical",
      value: String(clients.reduce((n, c) => n + c.openCritical, 0)),
      color: SEVERITY_COLORS.CRITICAL,
    },
    {
      label: "Open inside",
      value: String(clients.reduce((n, c) => n + c.openInternalExposure, 0)),
      color: SEVERITY_COLORS.HIGH,
    },
    {
      label: "Need attention",
      value: String(attention.length),
      color: attention.length ? SEVERITY_COLORS.HIGH : undefined,
    },
  ]);
  const lowest = [...clients]
    .filter((c) => c.score !== null)
    .sort((a, b) => (a.score ?? 0) - (b.score ?? 0))
    .slice(0, 12);
  if (lowest.length > 0) {
    r.barChart({
      title: "Lowest posture scores",
      bars: lowest.map((c) => ({ label: c.name, value: c.score ?? 0 })),
      max: 100,
    });
  } else {
    r.heading("Lowest posture scores", 2);
    r.paragraph(`No client had a completed scan by the end of ${asOf}.`);
  }
  if (unscanned.length > 0) {
    r.paragraph(
      `Not scanned by the end of ${asOf}: ${unscanned
        .slice(0, 20)
        .map((c) => c.name)
        .join(", ")}${unscanned.length > 20 ? ` and ${unscanned.length - 20} more` : ""}.`,
      { muted: true },
    );
  }
  r.heading("Needs attention");
  r.table({
    columns: [
      { header: "Client", width: 3 },
      { header: "Score", width: 1, align: "right" },
      { header: "Change", width: 1, align: "right" },
      { header: "Critical", width: 1, align: "right" },
      { header: "Why", width: 4 },
    ],
    rows: attention.map((c): TCell[] => [
      c.name,
      c.score ?? "not scanned",
      change(c),
      c.openCritical,
      [
        c.openCritical > 0 ? `${c.openCritical} open critical` : "",
        c.unhealthySources > 0 ? `${c.unhealthySources} unhealthy source(s)` : "",
        c.score !== null && c.score < 60 ? "score below 60" : "",
        c.score !== null && c.startScore !== null && c.startScore - c.score >= 10
          ? `score fell ${c.startScore - c.score} points`
          : "",
      ]
        .filter(Boolean)
        .join("; "),
    ]),
    empty: "No client needs attention this period.",
  });
  r.heading("All clients");
  r.table({
    columns: [
      { header: "Client", width: 3.5 },
      { header: "Score", width: 1.5, align: "right" },
      { header: "Change", width: 1, align: "right" },
      { header: "Critical", width: 1, align: "right" },
      { header: "High", width: 1, align: "right" },
      { header: "Open inside", width: 1.2, align: "right" },
    ],
    rows: clients.map((c): TCell[] => [
      c.name,
      c.score ?? "not scanned",
      change(c),
      c.openCritical,
      c.openHigh,
      c.openInternalExposure,
    ]),
    empty: "This partner manages no organization yet.",
  });
  r.paragraph(
    "Open inside: open internal-exposure findings (organization-wide links, grants to everyone and to very large groups), the files Copilot and Gemini can surface to anyone in the client's organization.",
    { muted: true },
  );
  return r.toBuffer();
}
