import type { TIssueDraft, TTicketFinding } from "./types";

// Jira's summary limit; GitHub (256) and Linear accept at least as much.
const MAX_TITLE = 255;
const MAX_DETAILS = 20;
const MAX_VALUE = 200;

// Control characters (newlines included) would break a one-line title or a Markdown line.
const CONTROL = /[\u0000-\u001f\u007f]+/g;

function oneLine(text: string): string {
  return text.replace(CONTROL, " ").replace(/\s+/g, " ").trim();
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function ticketTitle(finding: TTicketFinding): string {
  const title = oneLine(finding.title) || "Security finding";
  const resource = oneLine(finding.resourceName);
  const subject = resource && !title.includes(resource) ? `${title} on '${resource}'` : title;
  return truncate(`[${finding.severity}] ${subject}`, MAX_TITLE);
}

export type TDescriptionLine = { label: string; value: string; href?: string };

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

function detailValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return truncate(oneLine(String(value)), MAX_VALUE);
  }
  try {
    return truncate(oneLine(JSON.stringify(value)), MAX_VALUE);
  } catch {
    return null;
  }
}

/** The facts every ticket carries, in order, shared by the Markdown and ADF renderings. */
export function descriptionLines(finding: TTicketFinding): TDescriptionLine[] {
  const link = oneLine(finding.link);
  const lines: TDescriptionLine[] = [
    { label: "Severity", value: finding.severity },
    { label: "Resource", value: oneLine(finding.resourceName) || "(unnamed)" },
    { label: "Source", value: oneLine(finding.connectorType) || "(unknown)" },
    { label: "Detected", value: oneLine(finding.detectedAt) || "(unknown)" },
    { label: "Finding", value: link || "(no link)", href: isHttpUrl(link) ? link : undefined },
    { label: "Finding id", value: oneLine(finding.id) || "(none)" },
  ];
  for (const [key, raw] of Object.entries(finding.details ?? {}).slice(0, MAX_DETAILS)) {
    const value = detailValue(raw);
    const label = oneLine(key);
    if (value && label) lines.push({ label: truncate(label, 60), value });
  }
  return lines;
}

/**
 * Values come from scanned workspaces (file names, user names), so they go into code spans:
 * a file called "@everyone" must not notify anyone, and "**x**" must not render as bold.
 */
function codeSpan(value: string): string {
  const longestRun = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longestRun + 1);
  const pad = value.startsWith("`") || value.endsWith("`") ? " " : "";
  return `${fence}${pad}${value}${pad}${fence}`;
}

/** GitHub and Linear both take CommonMark. */
export function markdownDescription(finding: TTicketFinding): string {
  const body = descriptionLines(finding).map((line) => {
    const value = line.href ? `<${line.href.replace(/[<>\s]/g, encodeURIComponent)}>` : codeSpan(line.value);
    return `- **${line.label.replace(/[\\`*_[\]<>#|~]/g, "\\$&")}:** ${value}`;
  });
  return ["A security posture finding needs attention.", "", ...body].join("\n");
}

export type TAdfText = {
  type: "text";
  text: string;
  marks?: Array<{ type: string; attrs?: Record<string, string> }>;
};
export type TAdfNode =
  | { type: "paragraph"; content: TAdfText[] }
  | { type: "bulletList"; content: Array<{ type: "listItem"; content: TAdfNode[] }> };
export type TAdfDoc = { type: "doc"; version: 1; content: TAdfNode[] };

/** Jira Cloud v3 takes rich text only as Atlassian Document Format; empty text nodes are invalid. */
export function adfDescription(finding: TTicketFinding): TAdfDoc {
  const items = descriptionLines(finding).map((line) => {
    const value: TAdfText = line.href
      ? { type: "text", text: line.value, marks: [{ type: "link", attrs: { href: line.href } }] }
      : { type: "text", text: line.value };
    const paragraph: TAdfNode = {
      type: "paragraph",
      content: [{ type: "text", text: `${line.label}: `, marks: [{ type: "strong" }] }, value],
    };
    return { type: "listItem" as const, content: [paragraph] };
  });
  return {
    type: "doc",
    version: 1,
    content: [
      { type: "paragraph", content: [{ type: "text", text: "A security posture finding needs attention." }] },
      { type: "bulletList", content: items },
    ],
  };
}

export const SEVERITY_LABEL: Record<TTicketFinding["severity"], string> = {
  CRITICAL: "severity-critical",
  HIGH: "severity-high",
  MEDIUM: "severity-medium",
  LOW: "severity-low",
};

/** What every tracker is sent for a finding: the title, the Markdown body, the ADF body, the severity. */
export function findingDraft(finding: TTicketFinding): TIssueDraft {
  return {
    title: ticketTitle(finding),
    markdown: markdownDescription(finding),
    adf: adfDescription(finding),
    severity: finding.severity,
  };
}

/**
 * An issue about several findings (a quick-win group, an incident): a one-line title, an intro
 * and one bullet per line, the same shapes as a finding's ticket.
 */
export function subjectDraft(o: {
  title: string;
  severity: TTicketFinding["severity"];
  intro: string;
  lines: TDescriptionLine[];
}): TIssueDraft {
  const title = truncate(oneLine(o.title) || "Security posture", MAX_TITLE);
  const intro = oneLine(o.intro) || "Security posture work.";
  const lines = o.lines.map((l) => ({ ...l, value: truncate(oneLine(l.value), MAX_VALUE) || "-" }));
  const markdown = [
    intro,
    "",
    ...lines.map((line) => {
      const value = line.href
        ? `<${line.href.replace(/[<>\s]/g, encodeURIComponent)}>`
        : codeSpan(line.value);
      return `- **${line.label.replace(/[\\`*_[\]<>#|~]/g, "\\$&")}:** ${value}`;
    }),
  ].join("\n");
  const items = lines.map((line) => {
    const value: TAdfText = line.href
      ? { type: "text", text: line.value, marks: [{ type: "link", attrs: { href: line.href } }] }
      : { type: "text", text: line.value };
    const paragraph: TAdfNode = {
      type: "paragraph",
      content: [{ type: "text", text: `${line.label}: `, marks: [{ type: "strong" }] }, value],
    };
    return { type: "listItem" as const, content: [paragraph] };
  });
  const adf: TAdfDoc = {
    type: "doc",
    version: 1,
    content: [
      { type: "paragraph", content: [{ type: "text", text: intro }] },
      ...(items.length > 0 ? [{ type: "bulletList" as const, content: items }] : []),
    ],
  };
  return { title, markdown, adf, severity: o.severity };
}

/** A plain-text comment as ADF: one paragraph per blank-line-separated block (Jira v3 comments). */
export function adfComment(text: string): TAdfDoc {
  const blocks = text
    .split(/\n{2,}/)
    .map((b) => b.replace(CONTROL, " ").trim())
    .filter((b) => b !== "");
  return {
    type: "doc",
    version: 1,
    content: (blocks.length > 0 ? blocks : ["-"]).map((b) => ({
      type: "paragraph" as const,
      content: [{ type: "text" as const, text: b }],
    })),
  };
}
