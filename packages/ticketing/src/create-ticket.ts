import { findingDraft } from "./content";
import { DEFAULT_TIMEOUT_MS, type TTrackerClient } from "./http";
import { closeGithubIssue, createGithubIssue } from "./providers/github";
import { closeJiraIssue, createJiraIssue, jiraAuthorization } from "./providers/jira";
import { closeLinearIssue, createLinearIssue } from "./providers/linear";
import type {
  TCloseComment,
  TCloseResult,
  TCreateTicketOptions,
  TIssueDraft,
  TTicket,
  TTicketFinding,
  TTicketingConfig,
} from "./types";

function clientFor(config: TTicketingConfig, opts: TCreateTicketOptions) {
  const base = {
    provider: config.provider,
    fetch: opts.fetch ?? globalThis.fetch,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  if (config.provider === "jira") {
    const auth = jiraAuthorization(config.token);
    return { client: { ...base, secrets: auth.secrets } as TTrackerClient, authorization: auth.header };
  }
  return { client: { ...base, secrets: [config.token] } as TTrackerClient, authorization: "" };
}

/**
 * Files one issue in the configured tracker. Every tracker failure (HTTP error, network error,
 * timeout, unexpected body) throws AppError("upstream_unavailable") naming the provider, never
 * the token.
 */
export async function createIssue(
  config: TTicketingConfig,
  draft: TIssueDraft,
  opts: TCreateTicketOptions = {},
): Promise<TTicket> {
  const { client, authorization } = clientFor(config, opts);
  switch (config.provider) {
    case "jira":
      return createJiraIssue(client, config, draft, opts.jiraIssueType ?? "Task", authorization);
    case "github":
      return createGithubIssue(client, config, draft);
    case "linear":
      return createLinearIssue(client, config, draft);
  }
}

/** Files one issue for a finding in the configured tracker (see {@link createIssue}). */
export async function createTicket(
  config: TTicketingConfig,
  finding: TTicketFinding,
  opts: TCreateTicketOptions = {},
): Promise<TTicket> {
  return createIssue(config, findingDraft(finding), opts);
}

/**
 * Comments on a ticket with what resolved its finding and closes it in the tracker: GitHub
 * (closed as completed), Jira (the workflow's transition to a done-category status), Linear (the
 * team's completed state). Safe to repeat: a comment already carrying `comment.marker` is not
 * written again, and an issue already closed / done / completed is not transitioned again.
 */
export async function closeTicket(
  config: TTicketingConfig,
  externalId: string,
  comment: TCloseComment,
  opts: TCreateTicketOptions = {},
): Promise<TCloseResult> {
  const { client, authorization } = clientFor(config, opts);
  switch (config.provider) {
    case "jira":
      return closeJiraIssue(client, config, externalId, comment, authorization);
    case "github":
      return closeGithubIssue(client, config, externalId, comment);
    case "linear":
      return closeLinearIssue(client, config, externalId, comment);
  }
}
