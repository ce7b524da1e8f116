import type { TIncidentLogEntry, TPostMortem, TSeverity } from "@posture/db";
import { createReport, SEVERITY_COLORS, type TCell } from "@posture/pdf";

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
    log: TIncidentLogEntry[];
    postMortem: TPostMortem | null;
  };
  findings: TReportFinding[];
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

/** The regulatory clocks that may apply, counted from the incident's opening (the moment of awareness). */
export function regulatoryClocks(openedAt: Date, now: Date) {
  const clocks = [
    {
      regime: "GDPR Art. 33",
      obligation: "Notify the supervisory authority of a personal-data breach",
      window: "72 hours",
      deadline: new Date(openedAt.getTime() + 72 * HOUR_MS),
    },
    {
      regime: "HIPAA 45 CFR 164.404(b)",
      obligation: "Notify affected individuals of a breach of unsecured PHI",
      window: "60 calendar days",
      deadline: new Date(openedAt.getTime() + 60 * 24 * HOUR_MS),
    },
  ];
  return clocks.map((c) => {
    const left = c.deadline.getTime() - now.getTime();
    return { ...c, remaining: left >= 0 ? `${duration(left)} left` : `passed ${duration(-left)} ago` };
  });
}

const severityCell = (s: string | null): TCell =>
  s ? { text: s, color: SEVERITY_COLORS[s], bold: true } : "-";

/** The report a responder hands to management or an auditor, on the shared PDF toolkit. */
export async function renderIncidentReport(input: TIncidentReportInput): Promise<Buffer> {
  const { incident: inc, findings } = input;
  const r = createReport({ title: `Incident report: ${inc.title}`, createdAt: input.generatedAt });

  r.cover({
    kicker: "Incident response report",
    title: inc.title,
    badge: { text: `${inc.priority} · ${inc.status}`, color: PRIORITY_COLORS[inc.priority] ?? "#1A1A1A" },
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
    ["Open for", duration((inc.closedAt ?? input.generatedAt).getTime() - inc.openedAt.getTime())],
    [
      "Linked findings",
      findings.length === 0 ? "None" : `${findings.length} (${bySeverity || "no longer present"})`,
    ],
    ["Log entries", String(inc.log.length)],
  ]);

  r.heading("Regulatory clocks");
  r.paragraph(
    "Deadlines run from the moment the organization became aware of the incident, taken here as its opening. They apply only if personal data (GDPR) or unsecured protected health information (HIPAA) was involved; the responder confirms which.",
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
    rows: regulatoryClocks(inc.openedAt, input.generatedAt).map((c) => [
      c.regime,
      c.obligation,
      c.window,
      stamp(c.deadline),
      inc.status === "CLOSED" ? "Incident closed" : c.remaining,
    ]),
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
