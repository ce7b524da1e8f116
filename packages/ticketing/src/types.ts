import type { TSeverity } from "@posture/db";

export const TICKET_PROVIDER_IDS = ["jira", "github", "linear"] as const;

export type TTicketProvider = (typeof TICKET_PROVIDER_IDS)[number];

export type TTicketingConfig = {
  provider: TTicketProvider;
  baseUrl: string;
  project: string;
  token: string;
};

export type TTicketFinding = {
  id: string;
  title: string;
  severity: TSeverity;
  resourceName: string;
  connectorType: string;
  detectedAt: string;
  link: string;
  details?: Record<string, unknown>;
};

/** An issue as the trackers are sent it (see content.ts: findingDraft, subjectDraft). */
export type TIssueDraft = {
  title: string;
  markdown: string;
  /** Atlassian Document Format, for Jira. */
  adf: unknown;
  severity: TSeverity;
};

/** What the product's close did in the tracker: each is false when it was already so. */
export type TCloseResult = { commented: boolean; transitioned: boolean };

/**
 * The comment the close writes, and a marker it carries: a comment holding the marker means a
 * previous try already commented (the close is repeated only after a crash or a lost answer).
 */
export type TCloseComment = { text: string; marker: string };

export type TTicket = { provider: string; externalId: string; url: string; status: string };

export type TCreateTicketOptions = {
  fetch?: typeof fetch;
  /** Per request to the tracker; default 10 s. */
  timeoutMs?: number;
  /** Jira issue type name; default "Task". */
  jiraIssueType?: string;
};
