import { z } from "zod";
import {
  type TTrackerClient,
  type TTrackerRequest,
  isSuccess,
  malformed,
  send,
  statusError,
  trimBaseUrl,
} from "../http";
import type { TCloseComment, TCloseResult, TIssueDraft, TTicket, TTicketingConfig } from "../types";

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
  draft: TIssueDraft,
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
    body: { title: draft.title, body: draft.markdown },
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

const ZComments = z.array(z.object({ body: z.string().nullish() }));
const ZIssueState = z.object({ state: z.string() });
const COMMENT_PAGE = 100;
const MAX_COMMENT_PAGES = 10;

/**
 * Comments on the issue unless a comment already carries the marker, then closes it as completed
 * unless it is closed: GET/POST /repos/{owner}/{repo}/issues/{n}/comments, GET and PATCH
 * /repos/{owner}/{repo}/issues/{n} {state: "closed", state_reason: "completed"}
 * (https://docs.github.com/en/rest/issues/comments#list-issue-comments,
 * https://docs.github.com/en/rest/issues/comments#create-an-issue-comment,
 * https://docs.github.com/en/rest/issues/issues#update-an-issue).
 */
export async function closeGithubIssue(
  client: TTrackerClient,
  config: TTicketingConfig,
  externalId: string,
  comment: TCloseComment,
): Promise<TCloseResult> {
  const m = /^([^/]+)\/([^#]+)#(\d+)$/.exec(externalId);
  if (!m) throw new Error(`not a GitHub issue id: ${externalId}`);
  const issue = `${trimBaseUrl(config.baseUrl)}/repos/${encodeURIComponent(m[1] ?? "")}/${encodeURIComponent(m[2] ?? "")}/issues/${m[3]}`;
  const headers = {
    authorization: `Bearer ${config.token}`,
    accept: "application/vnd.github+json",
    "x-github-api-version": GITHUB_API_VERSION,
  };
  const call = async (req: TTrackerRequest) => {
    const res = await send(client, req);
    if (!isSuccess(res)) {
      const error = ZGithubError.safeParse(res.json);
      throw statusError(client, res, error.success ? error.data.message : undefined);
    }
    return res;
  };
  let commented = false;
  let seen = false;
  for (let page = 1; page <= MAX_COMMENT_PAGES && !seen; page++) {
    const res = await call({
      method: "GET",
      url: `${issue}/comments?per_page=${COMMENT_PAGE}&page=${page}`,
      headers,
    });
    const list = ZComments.safeParse(res.json);
    if (!list.success) throw malformed(client, res);
    seen = list.data.some((c) => c.body?.includes(comment.marker) === true);
    if (list.data.length < COMMENT_PAGE) break;
  }
  if (!seen) {
    await call({ method: "POST", url: `${issue}/comments`, headers, body: { body: comment.text } });
    commented = true;
  }
  const current = await call({ method: "GET", url: issue, headers });
  const state = ZIssueState.safeParse(current.json);
  if (!state.success) throw malformed(client, current);
  if (state.data.state === "closed") return { commented, transitioned: false };
  await call({
    method: "PATCH",
    url: issue,
    headers,
    body: { state: "closed", state_reason: "completed" },
  });
  return { commented, transitioned: true };
}
