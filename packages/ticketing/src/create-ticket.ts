import { DEFAULT_TIMEOUT_MS, type TTrackerClient } from "./http";
import { createGithubIssue } from "./providers/github";
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
