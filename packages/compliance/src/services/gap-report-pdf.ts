import type { Db } from "@posture/db";
import { createReport, SEVERITY_COLORS, type TCell, type TTheme } from "@posture/pdf";
import { KIND_THEMES, type TEvidenceKind } from "../catalogs";
import { satisfiedPct, type TControlStatus } from "../engine/evaluate";
import type { TFindingRef } from "../engine/signals";
import { evaluateOrg, type TOrgEvaluation } from "./evaluation";
import { reportTheme } from "@posture/pdf/org-theme";

const STATUS_COLORS: Record<TControlStatus, string> = {
  SATISFIED: "#2B8A3E",
  PARTIAL: "#B08800",
  GAP: "#B42318",
};
const day = (iso: string) => iso.slice(0, 10);
/** A finding's source as a reader knows it (a connector type otherwise as stored). */
const SOURCE_NAMES: Record<string, string> = {
  google_workspace: "Google Workspace",
  microsoft_365: "Microsoft 365",
};
const sourceName = (type: string) => SOURCE_NAMES[type] ?? type;
const SEVERITY_ORDER = ["CRITICAL", "HIGH", "MEDIUM", "LOW"];

/** What to fix first: failing themes ranked by how many controls they hold back (a GAP weighs 2, a PARTIAL 1). */
export function fixFirst(
  e: TOrgEvaluation,
): Array<{ kind: TEvidenceKind; weight: number; controls: number; reason: string; status: string }> {
  const acc = new Map<TEvidenceKind, { weight: number; controls: number; reason: string; status: string }>();
  for (const r of e.results)
    for (const c of r.controls) {
      if (c.status === "SATISFIED") continue;
      for (const ev of c.evidence) {
        if (ev.status === "pass") continue;
        const a = acc.get(ev.kind) ?? { weight: 0, controls: 0, reason: ev.reason, status: ev.status };
        a.weight += c.status === "GAP" ? 2 : 1;
        a.controls += 1;
        acc.set(ev.kind, a);
      }
    }
  const rank = (s: string) => (s === "fail" ? 0 : s === "partial" ? 1 : 2);
  return [...acc.entries()]
    .map(([kind, a]) => ({ kind, ...a }))
    .sort((a, b) => rank(a.status) - rank(b.status) || b.weight - a.weight);
}

export function renderGapReport(e: TOrgEvaluation, theme: TTheme, now = new Date()): Promise<Buffer> {
  const r = createReport({ title: `Compliance gap report: ${e.org.name}`, theme, createdAt: now });
  r.cover({
    title: "Compliance gap report",
    subtitle: e.org.name,
    lines: [
      `Period: last ${e.signals.period.days} days (${day(e.signals.period.from)} to ${day(e.signals.period.to)})`,
      `Frameworks: ${e.results.map((x) => x.name).join(", ")}`,
      `Generated: ${now.toISOString().replace("T", " ").slice(0, 16)} UTC`,
    ],
  });
  r.newPage().heading("Summary");
  r.stats(e.results.map((x) => ({ label: x.name, value: `${satisfiedPct(x)}%` })));
  r.table({
    columns: [
      { header: "Framework", width: 3 },
      { header: "Controls", width: 1, align: "right" },
      { header: "Satisfied", width: 1, align: "right" },
      { header: "Partial", width: 1, align: "right" },
      { header: "Gap", width: 1, align: "right" },
    ],
    rows: e.results.map((x) => [
      `${x.name} (${x.version})`,
      x.controls.length,
      x.satisfied,
      x.partial,
      x.gap,
    ]),
  });
  r.paragraph(
    "A control is SATISFIED when every piece of its evidence passes, PARTIAL when some is incomplete or missing, and a GAP when any evidence fails or none could be collected.",
    { muted: true, size: 8.5 },
  );

  r.heading("What to fix first");
  const first = fixFirst(e).slice(0, 8);
  if (first.length === 0) r.paragraph("Nothing: every control is satisfied.");
  else r.bullets(first.map((f) => `${KIND_THEMES[f.kind]} (${f.controls} controls): ${f.reason}.`));

  r.heading("Cross-framework themes");
  r.table({
    columns: [
      { header: "Theme", width: 2 },
      { header: "Failing in", width: 3 },
      { header: "Why", width: 5 },
    ],
    // Framework names, as the summary prints them: the ids (nist_csf) are the API's.
    rows: e.crossGaps.map((g) => [
      g.theme,
      g.frameworks.map((id) => e.results.find((x) => x.framework === id)?.name ?? id).join(", "),
      g.reason,
    ]),
    empty: "No theme fails in two or more frameworks.",
  });

  const findingsById = new Map<string, TFindingRef>(e.signals.topFindings.map((f) => [f.id, f]));
  for (const x of e.results) {
    r.heading(`${x.name}: gaps and partials`);
    const open = x.controls.filter((c) => c.status !== "SATISFIED");
    r.table({
      columns: [
        { header: "Control", width: 1.4 },
        { header: "Title", width: 3 },
        { header: "Status", width: 1.1 },
        { header: "Why", width: 4.5 },
      ],
      rows: open.map((c): TCell[] => [
        c.id,
        c.title,
        { text: c.status, color: STATUS_COLORS[c.status], bold: true },
        c.reason,
      ]),
      empty: "Every control is satisfied.",
      fontSize: 8,
    });
    const behind = [...new Set(open.flatMap((c) => c.findingIds))]
      .flatMap((id) => findingsById.get(id) ?? [])
      .sort(
        (a, b) =>
          SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) ||
          a.title.localeCompare(b.title) ||
          a.source.localeCompare(b.source),
      );
    if (behind.length > 0) {
      r.heading("Findings behind these controls", 2);
      r.table({
        columns: [
          { header: "Severity", width: 1.2 },
          { header: "Finding", width: 3.4 },
          { header: "Source", width: 1.8 },
          { header: "Resource", width: 2.4 },
          { header: "Controls", width: 2.2 },
        ],
        rows: behind.map((f): TCell[] => [
          { text: f.severity, color: SEVERITY_COLORS[f.severity], bold: true },
          f.title,
          sourceName(f.source),
          f.resourceName,
          open
            .filter((c) => c.findingIds.includes(f.id))
            .map((c) => c.id)
            .join(", "),
        ]),
        fontSize: 8,
      });
    }
  }
  return r.toBuffer();
}

/** GET /api/compliance/gap-report: all five frameworks over the last `days` days, as a PDF. */
export async function buildGapReport(
  db: Db,
  o: { orgId: string; days: number; now?: Date },
): Promise<{ pdf: Buffer; orgName: string }> {
  const [e, theme] = await Promise.all([evaluateOrg(db, o), reportTheme(db, o.orgId)]);
  return { pdf: await renderGapReport(e, theme, o.now), orgName: e.org.name };
}
