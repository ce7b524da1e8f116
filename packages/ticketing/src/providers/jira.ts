import { z } from "zod";
import { SEVERITY_LABEL, adfComment } from "../content";
import {
  type TTrackerClient,
  type TTrackerResponse,
  isSuccess,
  malformed,
  send,
  statusError,
  trimBaseUrl,
  upstreamError,
} from "../http";
import type { TCloseComment, TCloseResult, TIssueDraft, TTicket, TTicketingConfig } from "../types";

/** Status of a freshly created issue in Jira's default workflows, used when it cannot be read. */
export const JIRA_FALLBACK_STATUS = "To Do";

const ZCreated = z.object({ id: z.string(), key: z.string().min(1), self: z.string() });
const ZIssueStatus = z.object({ fields: z.object({ status: z.object({ name: z.string().min(1) }) }) });
const ZJiraError = z.object({
  errorMessages: z.array(z.string()).optional(),
  errors: z.record(z.string(), z.string()).optional(),
});

/**
 * Jira Cloud takes Basic auth with `email:api_token`; anything without a colon is treated as a
 * bearer token (an OAuth access token or a Data Center personal access token).
 */
export function jiraAuthorization(token: string): { header: string; secrets: string[] } {
  if (token.includes(":")) {
    const encoded = Buffer.from(token, "utf8").toString("base64");
    const apiToken = token.slice(token.indexOf(":") + 1);
    return { header: `Basic ${encoded}`, secrets: [token, encoded, apiToken] };
  }
  return { header: `Bearer ${token}`, secrets: [token] };
}

function jiraErrorDetail(res: TTrackerResponse): string | undefined {
  const parsed = ZJiraError.safeParse(res.json);
  if (!parsed.success) return undefined;
  const parts = [...(parsed.data.errorMessages ?? []), ...Object.values(parsed.data.errors ?? {})];
  return parts.length > 0 ? parts.join("; ") : undefined;
}

export async function createJiraIssue(
  client: TTrackerClient,
  config: TTicketingConfig,
  draft: TIssueDraft,
  issueType: string,
  authorization: string,
): Promise<TTicket> {
  const base = trimBaseUrl(config.baseUrl);
  const headers = { authorization, accept: "application/json" };
  const res = await send(client, {
    method: "POST",
    url: `${base}/rest/api/3/issue`,
    headers,
    body: {
      fields: {
        project: { key: config.project },
        issuetype: { name: issueType },
        summary: draft.title,
        description: draft.adf,
        labels: ["security-posture", SEVERITY_LABEL[draft.severity]],
      },
    },
  });
  if (!isSuccess(res)) throw statusError(client, res, jiraErrorDetail(res));
  const created = ZCreated.safeParse(res.json);
  if (!created.success) throw malformed(client, res);
  const key = created.data.key;

  return {
    provider: "jira",
    externalId: key,
    url: `${base}/browse/${encodeURIComponent(key)}`,
    status: await readStatus(client, base, key, headers),
  };
}

/**
 * The create response carries no status, so it is read back. The issue exists by now: a failed
 * read must not fail the call (the caller would record no ticket and a retry would file a
 * duplicate), so it falls back to the default workflow's initial status.
 */
async function readStatus(
  client: TTrackerClient,
  base: string,
  key: string,
  headers: Record<string, string>,
): Promise<string> {
  try {
    const res = await send(client, {
      method: "GET",
      url: `${base}/rest/api/3/issue/${encodeURIComponent(key)}?fields=status`,
      headers,
    });
    const parsed = ZIssueStatus.safeParse(res.json);
    return isSuccess(res) && parsed.success ? parsed.data.fields.status.name : JIRA_FALLBACK_STATUS;
  } catch {
    return JIRA_FALLBACK_STATUS;
  }
}

const ZComments = z.object({ comments: z.array(z.object({ body: z.unknown() })) });
const ZStatusCategory = z.object({
  fields: z.object({ status: z.object({ statusCategory: z.object({ key: z.string() }) }) }),
});
const ZTransitions = z.object({
  transitions: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      to: z.object({ statusCategory: z.object({ key: z.string() }) }).optional(),
    }),
  ),
});

/**
 * Comments on the issue unless a comment carries the marker, then moves it to a done-category
 * status unless it is in one. Jira Cloud REST v3: GET/POST /rest/api/3/issue/{key}/comment (ADF
 * body), GET /rest/api/3/issue/{key}?fields=status, GET /rest/api/3/issue/{key}/transitions (the
 * workflow's transitions from the current status) and POST with `{transition: {id}}` for the one
 * whose `to.statusCategory.key` is `done`
 * (https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/#api-rest-api-3-issue-issueidorkey-transitions-post,
 * https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-comments/).
 * A workflow with no transition to done from where the issue is fails the close, retried later.
 */
export async function closeJiraIssue(
  client: TTrackerClient,
  config: TTicketingConfig,
  key: string,
  comment: TCloseComment,
  authorization: string,
): Promise<TCloseResult> {
  const issue = `${trimBaseUrl(config.baseUrl)}/rest/api/3/issue/${encodeURIComponent(key)}`;
  const headers = { authorization, accept: "application/json" };
  const call = async (req: { method: "GET" | "POST"; url: string; body?: unknown }) => {
    const res = await send(client, { ...req, headers });
    if (!isSuccess(res)) throw statusError(client, res, jiraErrorDetail(res));
    return res;
  };
  // Newest first: a previous try's comment is among the latest.
  const listed = await call({ method: "GET", url: `${issue}/comment?orderBy=-created&maxResults=100` });
  const comments = ZComments.safeParse(listed.json);
  if (!comments.success) throw malformed(client, listed);
  const seen = comments.data.comments.some((c) => JSON.stringify(c.body ?? "").includes(comment.marker));
  if (!seen)
    await call({ method: "POST", url: `${issue}/comment`, body: { body: adfComment(comment.text) } });
  const current = await call({ method: "GET", url: `${issue}?fields=status` });
  const status = ZStatusCategory.safeParse(current.json);
  if (!status.success) throw malformed(client, current);
  if (status.data.fields.status.statusCategory.key === "done") {
    return { commented: !seen, transitioned: false };
  }
  const available = await call({ method: "GET", url: `${issue}/transitions` });
  const transitions = ZTransitions.safeParse(available.json);
  if (!transitions.success) throw malformed(client, available);
  const done = transitions.data.transitions.find((t) => t.to?.statusCategory.key === "done");
  if (!done) {
    throw upstreamError(
      client,
      "rejected",
      `no transition to a done status from the issue's status (${key})`,
    );
  }
  await call({ method: "POST", url: `${issue}/transitions`, body: { transition: { id: done.id } } });
  return { commented: !seen, transitioned: true };
}
