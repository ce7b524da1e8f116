import { z } from "zod";
import { markdownDescription, ticketTitle } from "../content";
import { type TTrackerClient, isSuccess, malformed, send, statusError, trimBaseUrl } from "../http";
import type { TTicket, TTicketFinding, TTicketingConfig } from "../types";

export const GITHUB_API_VERSION = "2022-11-28";

const ZCreated = z.object({
  number: z.number().int().positive(),
  html_url: z.string().min(1),
  state: z.string().min(1),
});
const ZGithubError = z.object({ message: z.string() });

export async function createGithubIssue(
  client: TTrackerClient,
  config: TTicketingConfig,
  finding: TTicketFinding,
): Promise<TTicket> {
  const [owner = "", repo = ""] = config.project.split("/");
  const res = await send(client, {
    method: "POST",
    url: `${trimBaseUrl(config.baseUrl)}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/issues`,
    headers: {
      authorization: `Bearer ${config.token}`,
      accept: "application/vnd.github+json",
      "x-github-api-version": GITHUB_API_VERSION,
    },
    // No labels: GitHub drops them silently for tokens without push access, and creates unknown
    // ones in the repository otherwise, which is not ours to clutter.
    body: { title: ticketTitle(finding), body: markdownDescription(finding) },
  });
  if (!isSuccess(res)) {
    const error = ZGithubError.safeParse(res.json);
    throw statusError(client, res, error.success ? error.data.message : undefined);
  }
  const created = ZCreated.safeParse(res.json);
  if (!created.success) throw malformed(client, res);
  return {
    provider: "github",
    // The repository is part of the id: a number alone is ambiguous once the integration moves.
    externalId: `${owner}/${repo}#${created.data.number}`,
    url: created.data.html_url,
    status: created.data.state,
  };
}

/**
 * Comments on the issue, then closes it as completed: POST /repos/{owner}/{repo}/issues/{n}/comments
 * and PATCH /repos/{owner}/{repo}/issues/{n} {state: "closed", state_reason: "completed"}
 * (https://docs.github.com/en/rest/issues/comments#create-an-issue-comment,
 * https://docs.github.com/en/rest/issues/issues#update-an-issue). Both are safe to repeat.
 */
export async function closeGithubIssue(
  client: TTrackerClient,
  config: TTicketingConfig,
  externalId: string,
  comment: string,
): Promise<void> {
  const m = /^([^/]+)\/([^#]+)#(\d+)$/.exec(externalId);
  if (!m) throw new Error(`not a GitHub issue id: ${externalId}`);
  const issue = `${trimBaseUrl(config.baseUrl)}/repos/${encodeURIComponent(m[1] ?? "")}/${encodeURIComponent(m[2] ?? "")}/issues/${m[3]}`;
  const headers = {
    authorization: `Bearer ${config.token}`,
    accept: "application/vnd.github+json",
    "x-github-api-version": GITHUB_API_VERSION,
  };
  for (const req of [
    { method: "POST" as const, url: `${issue}/comments`, headers, body: { body: comment } },
    { method: "PATCH" as const, url: issue, headers, body: { state: "closed", state_reason: "completed" } },
  ]) {
    const res = await send(client, req);
    if (!isSuccess(res)) {
      const error = ZGithubError.safeParse(res.json);
      throw statusError(client, res, error.success ? error.data.message : undefined);
    }
  }
}
