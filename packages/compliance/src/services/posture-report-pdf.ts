import { categoryCap, categoryLabel, type Db } from "@posture/db";
import { audit, type TActor } from "@posture/platform";
import { createReport, DEFAULT_THEME, SEVERITY_COLORS, type TCell, type TTheme } from "@posture/pdf";
import { postureReportData, type TPostureReportData, type TPostureReportDeps } from "./posture-report-data";
import { reportTheme } from "@posture/pdf/org-theme";

export function renderPostureReport(d: TPostureReportData, theme: TTheme, now = new Date()): Promise<Buffer> {
  const r = createReport({ title: `Security posture report: ${d.orgName}`, theme, createdAt: now });
  r.cover({
    title: "Security posture report",
    subtitle: d.orgName,
    lines: [
      `Period: last ${d.periodDays} days (${d.from.slice(0, 10)} to ${d.to.slice(0, 10)})`,
      `Generated: ${now.toISOString().replace("T", " ").slice(0, 16)} UTC`,
      theme.brandName !== DEFAULT_THEME.brandName ? `Prepared by ${theme.brandName}` : "",
    ].filter(Boolean),
  });
  r.newPage().heading("Summary");
  r.stats([
    { label: "Posture score (0-100)", value: d.score === null ? "-" : String(d.score) },
    { label: "Grade", value: d.grade ?? "-" },
    { label: "Open critical", value: String(d.openBySeverity.CRITICAL), color: SEVERITY_COLORS.CRITICAL },
    { label: "Open high", value: String(d.openBySeverity.HIGH), color: SEVERITY_COLORS.HIGH },
  ]);
  if (d.score === null)
    r.paragraph("No completed scan yet: connect a source and run a scan to measure the posture.");
  const first = d.trend[0];
  const last = d.trend.at(-1);
  if (first && last && d.trend.length > 1) {
    const delta = last.score - first.score;
    r.paragraph(
      `Over the period the score moved from ${first.score} to ${last.score} (${delta >= 0 ? "+" : ""}${delta} points) across ${d.trend.length} days with a completed scan.`,
    );
  }
  r.lineChart({
    title: "Score trend (last score of each day)",
    points: d.trend.map((p) => ({ label: p.day.slice(5), value: p.score })),
    min: 0,
    max: 100,
  });

  r.heading("Breakdown by category");
  r.barChart({
    title: "Points deducted (bar against the category's maximum)",
    bars: d.categories.map((c) => ({
      label: `${categoryLabel(c.category)} (${c.findingCount})`,
      value: c.deductionPoints,
    })),
    max: Math.max(...d.categories.map((c) => categoryCap(c.category) || c.deductionPoints), 1),
    unit: " pts",
  });

  r.heading("Top findings");
  r.table({
    columns: [
      { header: "Severity", width: 1 },
      { header: "Finding", width: 4 },
      { header: "Resource", width: 2.5 },
      { header: "Detected", width: 1.3 },
    ],
    rows: d.topFindings.map((f): TCell[] => [
      { text: f.severity, color: SEVERITY_COLORS[f.severity], bold: true },
      f.title,
      f.resourceName,
      f.detectedAt.slice(0, 10),
    ]),
    empty: "No open findings.",
  });
  // The posture breakdown's own lists: a group fix (every public link) may be worth points while
  // no single finding is (its category at its cap), so both are shown, and "nothing" only when
  // neither has anything.
  r.heading("Top improvements", 2);
  const points = (n: number) => `+${n} ${n === 1 ? "point" : "points"}`;
  if (d.quickWins.length === 0 && d.improvements.length === 0)
    r.paragraph("No fix raises the score right now: no open finding, alone or with others of its kind.", {
      muted: true,
    });
  if (d.quickWins.length > 0) {
    r.paragraph("Quick wins: one action each, over a group of findings or a tenant setting.", {
      muted: true,
    });
    r.bullets(d.quickWins.map((w) => `${w.title}: ${points(w.scoreDelta)}.`));
  }
  if (d.improvements.length > 0) {
    r.paragraph("Single findings worth the most:", { muted: true });
    r.bullets(d.improvements.map((i) => `${i.title}: ${points(i.scoreDelta)} when fixed.`));
  }

  // The framework table is short: keep it whole with its heading.
  r.ensureSpace(150).heading("Compliance frameworks");
  r.table({
    columns: [
      { header: "Framework", width: 3 },
      { header: "Satisfied %", width: 1.2, align: "right" },
      { header: "Satisfied", width: 1, align: "right" },
      { header: "Partial", width: 1, align: "right" },
      { header: "Gap", width: 1, align: "right" },
    ],
    rows: d.frameworks.map((f) => [f.name, `${f.satisfiedPct}%`, f.satisfied, f.partial, f.gap]),
  });
  r.paragraph("The compliance gap report details every gap and the findings behind it.", {
    muted: true,
    size: 8.5,
  });
  return r.toBuffer();
}

/** GET /api/reports/compliance: the posture report of the last `days` days, white-labelled when managed. */
export async function buildPostureReport(
  db: Db,
  o: { orgId: string; actor: TActor; days: number; now?: Date },
  deps: TPostureReportDeps,
): Promise<Buffer> {
  const [data, theme] = await Promise.all([postureReportData(db, o, deps), reportTheme(db, o.orgId)]);
  const pdf = await renderPostureReport(data, theme, o.now);
  await audit(db, o, {
    action: "POSTURE_REPORT_EXPORTED",
    target: o.orgId,
    metadata: { periodDays: o.days, bytes: pdf.length },
  });
  return pdf;
}
