import { DEFAULT_TIMEOUT_MS, type TTrackerClient } from "./http";
import { closeGithubIssue, createGithubIssue } from "./providers/github";
import { createJiraIssue, jiraAuthorization } from "./providers/jira";
import { createLinearIssue } from "./providers/linear";
import type { TCreateTicketOptions, TTicket, TTicketFinding, TTicketingConfig } from "./types";

/**
 * Files one issue for a finding in the configured tracker. Every tracker failure (HTTP error,
 * network error, timeout, unexpected body) throws AppError("upstream_unavailable") naming the
 * provider, never the token.
 */
export async function createTicket(
  config: TTicketingConfig,
  finding: TTicketFinding,
  opts: TCreateTicketOptions = {},
): Promise<TTicket> {
  const base = {
    provider: config.provider,
    fetch: opts.fetch ?? globalThis.fetch,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  switch (config.provider) {
    case "jira": {
      const auth = jiraAuthorization(config.token);
      const client: TTrackerClient = { ...base, secrets: auth.secrets };
      return createJiraIssue(client, config, finding, opts.jiraIssueType ?? "Task", auth.header);
    }
    case "github":
      return createGithubIssue({ ...base, secrets: [config.token] }, config, finding);
    case "linear":
      return createLinearIssue({ ...base, secrets: [config.token] }, config, finding);
  }
}

/**
 * Comments on a ticket with what resolved its finding and closes it in the tracker. GitHub only
 * for now (Jira needs its workflow's transition to a done status, Linear its team's completed
 * state: not built yet); other providers answer false and the ticket is left as it is.
 */
export async function closeTicket(
  config: TTicketingConfig,
  externalId: string,
  comment: string,
  opts: TCreateTicketOptions = {},
): Promise<boolean> {
  const base = {
    provider: config.provider,
    fetch: opts.fetch ?? globalThis.fetch,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  if (config.provider !== "github") return false;
  await closeGithubIssue({ ...base, secrets: [config.token] }, config, externalId, comment);
  return true;
}
