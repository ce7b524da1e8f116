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

export type TTicket = { provider: string; externalId: string; url: string; status: string };

export type TCreateTicketOptions = {
  fetch?: typeof fetch;
  /** Per request to the tracker; default 10 s. */
  timeoutMs?: number;
  /** Jira issue type name; default "Task". */
  jiraIssueType?: string;
};
