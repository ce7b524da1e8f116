import type { TIncidentLogEntry, TPostMortem, TSeverity } from "@posture/db";
import { createReport, DEFAULT_THEME, SEVERITY_COLORS, type TCell, type TTheme } from "@posture/pdf";
import { CLOCKS, deadlinesOf, type TClockIncident, type TDeadline } from "../services/deadlines";

export type TReportFinding = {
  id: string;
  severity: TSeverity | null;
  title: string;
  resourceName: string;
  resourceType: string;
  ruleId: string;
  status: string;
  detectedAt: Date | null;
};

export type TIncidentReportInput = {
  organization: string;
  generatedAt: Date;
  incident: {
    id: string;
    title: string;
    summary: string;
    status: string;
    priority: string;
    assignee: string;
    openedAt: Date;
    updatedAt: Date;
    closedAt: Date | null;
    /** When it last moved to RESOLVED or CLOSED: the clocks stop there. */
    resolvedAt: Date | null;
    log: TIncidentLogEntry[];
    postMortem: TPostMortem | null;
  };
  findings: TReportFinding[];
  /** The regulations the organization turned off (incident settings): their clocks are not shown. */
  regulationsOff: readonly string[];
  /** The organization's report theme: its managing partner's brand when white-labelled. */
  theme?: TTheme;
};

const HOUR_MS = 3_600_000;
const PRIORITY_COLORS: Record<string, string> = {
  P1: "#B42318",
  P2: "#D9480F",
  P3: "#B08800",
  P4: "#4A5568",
};
const SEVERITY_ORDER: Record<string, number> = { CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3 };

const stamp = (d: Date) => `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;

function duration(ms: number): string {
  const h = Math.floor(ms / HOUR_MS);
  if (h < 48) return `${h} h ${Math.floor((ms % HOUR_MS) / 60_000)} min`;
  return `${Math.floor(h / 24)} days ${h % 24} h`;
}

/** A clock as the report states it "as of this report": stopped ones say how they ended. */
function clockState(d: TDeadline, now: Date): string {
  const due = d.dueAt.getTime();
  if (d.stoppedAt) {
    const at = d.stoppedAt.getTime();
    return d.status === "met"
      ? `Met: resolved ${duration(due - at)} before the deadline`
      : `Missed: resolved ${duration(at - due)} after the deadline`;
  }
  const left = due - now.getTime();
  return left >= 0 ? `Running: ${duration(left)} left` : `Overdue: passed ${duration(-left)} ago`;
}

/** The regulatory clocks the report shows: the API's (deadlines.ts), with their wording. */
export function regulatoryClocks(inc: TClockIncident, off: readonly string[], now: Date) {
  return deadlinesOf(inc, off, now).map((d) => ({
    ...d,
    ...CLOCKS[d.regulation],
    state: clockState(d, now),
  }));
}

const severityCell = (s: string | null): TCell =>
  s ? { text: s, color: SEVERITY_COLORS[s], bold: true } : "-";

/** The report a responder hands to management or an auditor, on the shared PDF toolkit. */
export async function renderIncidentReport(input: TIncidentReportInput): Promise<Buffer> {
  const { incident: inc, findings } = input;
  const theme = input.theme ?? DEFAULT_THEME;
  const r = createReport({ title: `Incident report: ${inc.title}`, theme, createdAt: input.generatedAt });

  r.cover({
    kicker: "Incident response report",
    title: inc.title,
    badge: { text: `${inc.priority} · ${inc.status}`, color: PRIORITY_COLORS[inc.priority] ?? "#1A1A1A" },
    // As the posture and gap reports do: a managed organization's documents name who prepared them.
    lines: theme.brandName !== DEFAULT_THEME.brandName ? [`Prepared by ${theme.brandName}`] : [],
  });
  r.keyValues([
    ["Organization", input.organization],
    ["Incident", inc.id],
    ["Priority", inc.priority],
    ["Status", inc.status],
    ["Assignee", inc.assignee || "Unassigned"],
    ["Opened", stamp(inc.openedAt)],
    ["Last updated", stamp(inc.updatedAt)],
    ["Closed", inc.closedAt ? stamp(inc.closedAt) : "Not closed"],
    ["Report generated", stamp(input.generatedAt)],
  ]);

  r.newPage().heading("Summary");
  const bySeverity = ["CRITICAL", "HIGH", "MEDIUM", "LOW"]
    .map((s) => [s, findings.filter((f) => f.severity === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s.toLowerCase()}`)
    .join(", ");
  r.paragraph(inc.summary || `Incident "${inc.title}", opened ${stamp(inc.openedAt)}.`);
  r.keyValues([
    ["Current status", inc.status],
    inc.resolvedAt
      ? [
          "Was open for",
          `${duration(inc.resolvedAt.getTime() - inc.openedAt.getTime())} (resolved ${stamp(inc.resolvedAt)})`,
        ]
      : ["Open for", duration(input.generatedAt.getTime() - inc.openedAt.getTime())],
    [
      "Linked findings",
      findings.length === 0 ? "None" : `${findings.length} (${bySeverity || "no longer present"})`,
    ],
    ["Log entries", String(inc.log.length)],
  ]);

  r.heading("Regulatory clocks");
  r.paragraph(
    "Deadlines run from the moment the organization became aware of the incident, taken here as its opening, and stop when it is resolved. They apply only if personal data (GDPR) or unsecured protected health information (HIPAA) was involved; the responder confirms which.",
    { muted: true },
  );
  r.table({
    columns: [
      { header: "Regime", width: 2 },
      { header: "Obligation", width: 4 },
      { header: "Window", width: 1.6 },
      { header: "Deadline", width: 2.2 },
      { header: "As of this report", width: 2.2 },
    ],
    rows: regulatoryClocks(inc, input.regulationsOff, input.generatedAt).map((c) => [
      c.regime,
      c.obligation,
      c.window,
      stamp(c.dueAt),
      c.state,
    ]),
    empty: "The organization has turned every regulatory clock off.",
  });

  r.heading("Timeline");
  r.table({
    columns: [
      { header: "When", width: 2.2 },
      { header: "Who", width: 2.4 },
      { header: "What", width: 6 },
    ],
    rows: inc.log.map((e) => [stamp(new Date(e.at)), e.actor, e.note]),
    empty: "Nothing logged yet.",
  });

  r.heading("Linked findings");
  const sorted = [...findings].sort(
    (a, b) =>
      (SEVERITY_ORDER[a.severity ?? ""] ?? 9) - (SEVERITY_ORDER[b.severity ?? ""] ?? 9) ||
      a.title.localeCompare(b.title),
  );
  r.table({
    columns: [
      { header: "Severity", width: 1.5 },
      { header: "Finding", width: 4 },
      { header: "Resource", width: 3.2 },
      { header: "Status", width: 1.9 },
      { header: "Detected", width: 1.8 },
    ],
    rows: sorted.map((f) => [
      severityCell(f.severity),
      f.title,
      f.resourceName ? `${f.resourceName} (${f.resourceType})` : "No longer present",
      f.status,
      f.detectedAt ? f.detectedAt.toISOString().slice(0, 10) : "-",
    ]),
    empty: "No findings are linked to this incident.",
  });

  r.heading("Post-mortem");
  const pm = inc.postMortem;
  if (!pm) r.paragraph("No post-mortem has been written yet.", { muted: true });
  else {
    r.heading("Summary", 2).paragraph(pm.summary || "-");
    r.heading("Root cause", 2).paragraph(pm.rootCause || "-");
    r.heading("Lessons learned", 2).paragraph(pm.lessons || "-");
    r.heading("Action items", 2).table({
      columns: [
        { header: "Action", width: 6 },
        { header: "Owner", width: 3 },
        { header: "Done", width: 1 },
      ],
      rows: pm.actionItems.map((a) => [a.title, a.owner, a.done ? "Yes" : "No"]),
      empty: "None recorded.",
    });
  }
  return r.toBuffer();
}
