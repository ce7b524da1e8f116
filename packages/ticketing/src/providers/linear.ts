import { z } from "zod";
import { isLinearTeamId } from "../config";
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

export const LINEAR_ISSUE_CREATE = `mutation IssueCreate($input: IssueCreateInput!) {
  issueCreate(input: $input) { success issue { id identifier url state { name } } }
}`;

export const LINEAR_TEAM_BY_KEY = `query TeamByKey($key: String!) {
  teams(filter: { key: { eq: $key } }) { nodes { id key } }
}`;

// Linear priorities: 1 urgent, 2 high, 3 medium, 4 low.
const PRIORITY: Record<TIssueDraft["severity"], number> = { CRITICAL: 1, HIGH: 2, MEDIUM: 3, LOW: 4 };

const ZGraphqlErrors = z.object({ errors: z.array(z.object({ message: z.string() })).min(1) });
const ZIssueCreated = z.object({
  data: z.object({
    issueCreate: z.object({
      success: z.boolean(),
      issue: z
        .object({
          id: z.string(),
          identifier: z.string().min(1),
          url: z.string().min(1),
          state: z.object({ name: z.string().min(1) }).nullish(),
        })
        .nullish(),
    }),
  }),
});
const ZTeams = z.object({
  data: z.object({ teams: z.object({ nodes: z.array(z.object({ id: z.string() })) }) }),
});

/** Linear answers GraphQL errors with 200 or 400; either way they are the tracker's refusal. */
async function graphql(
  client: TTrackerClient,
  config: TTicketingConfig,
  body: unknown,
): Promise<TTrackerResponse> {
  const res = await send(client, {
    method: "POST",
    url: `${trimBaseUrl(config.baseUrl)}/graphql`,
    // Personal API keys go in bare; "Bearer" is only for OAuth access tokens.
    headers: { authorization: config.token, accept: "application/json" },
    body,
  });
  const errors = ZGraphqlErrors.safeParse(res.json);
  if (errors.success) {
    const detail = errors.data.errors.map((e) => e.message).join("; ");
    if (isSuccess(res)) throw upstreamError(client, "rejected", detail, res.status);
    throw statusError(client, res, detail);
  }
  if (!isSuccess(res)) throw statusError(client, res);
  return res;
}

async function resolveTeamId(client: TTrackerClient, config: TTicketingConfig): Promise<string> {
  if (isLinearTeamId(config.project)) return config.project;
  const key = config.project.toUpperCase();
  const res = await graphql(client, config, { query: LINEAR_TEAM_BY_KEY, variables: { key } });
  const teams = ZTeams.safeParse(res.json);
  if (!teams.success) throw malformed(client, res);
  const team = teams.data.data.teams.nodes[0];
  if (!team) throw upstreamError(client, "rejected", `team ${key} not found`);
  return team.id;
}

export async function createLinearIssue(
  client: TTrackerClient,
  config: TTicketingConfig,
  draft: TIssueDraft,
): Promise<TTicket> {
  const teamId = await resolveTeamId(client, config);
  const input = {
    teamId,
    title: draft.title,
    description: draft.markdown,
    priority: PRIORITY[draft.severity],
  };
  const res = await graphql(client, config, { query: LINEAR_ISSUE_CREATE, variables: { input } });
  const parsed = ZIssueCreated.safeParse(res.json);
  if (!parsed.success) throw malformed(client, res);
  const { success, issue } = parsed.data.data.issueCreate;
  if (!success || !issue) throw upstreamError(client, "rejected", "issueCreate did not succeed", res.status);
  return {
    provider: "linear",
    externalId: issue.identifier,
    url: issue.url,
    // state is nullable in Linear's schema; a new issue otherwise starts in the default "Todo".
    status: issue.state?.name ?? "Todo",
  };
}

export const LINEAR_ISSUE_FOR_CLOSE = `query IssueForClose($id: String!) {
  issue(id: $id) { id state { id type } team { id } comments(first: 100) { nodes { body } } }
}`;
export const LINEAR_COMPLETED_STATES = `query CompletedStates($teamId: ID!) {
  workflowStates(filter: { team: { id: { eq: $teamId } }, type: { eq: "completed" } }) {
    nodes { id name type position }
  }
}`;
export const LINEAR_COMMENT_CREATE = `mutation CommentCreate($input: CommentCreateInput!) {
  commentCreate(input: $input) { success comment { id } }
}`;
export const LINEAR_ISSUE_UPDATE = `mutation IssueUpdate($id: String!, $input: IssueUpdateInput!) {
  issueUpdate(id: $id, input: $input) { success issue { id state { type } } }
}`;

const ZIssueForClose = z.object({
  data: z.object({
    issue: z.object({
      id: z.string(),
      state: z.object({ id: z.string(), type: z.string() }),
      team: z.object({ id: z.string() }),
      comments: z.object({ nodes: z.array(z.object({ body: z.string() })) }),
    }),
  }),
});
const ZStates = z.object({
  data: z.object({
    workflowStates: z.object({
      nodes: z.array(z.object({ id: z.string(), type: z.string(), position: z.number() })),
    }),
  }),
});
const ZSuccess = (field: "commentCreate" | "issueUpdate") =>
  z.object({ data: z.object({ [field]: z.object({ success: z.boolean() }) }) });

/**
 * Comments on the issue unless a comment carries the marker, then moves it to its team's first
 * `completed` workflow state unless it is in one (Linear GraphQL: `issue(id:)` takes the
 * identifier, `workflowStates` filtered by team and type, `commentCreate`, `issueUpdate` with
 * `stateId`; https://developers.linear.app/docs/graphql/working-with-the-graphql-api).
 */
export async function closeLinearIssue(
  client: TTrackerClient,
  config: TTicketingConfig,
  identifier: string,
  comment: TCloseComment,
): Promise<TCloseResult> {
  const read = await graphql(client, config, {
    query: LINEAR_ISSUE_FOR_CLOSE,
    variables: { id: identifier },
  });
  const parsed = ZIssueForClose.safeParse(read.json);
  if (!parsed.success) throw malformed(client, read);
  const issue = parsed.data.data.issue;
  const seen = issue.comments.nodes.some((c) => c.body.includes(comment.marker));
  if (!seen) {
    const res = await graphql(client, config, {
      query: LINEAR_COMMENT_CREATE,
      variables: { input: { issueId: issue.id, body: comment.text } },
    });
    const ok = ZSuccess("commentCreate").safeParse(res.json);
    if (!ok.success) throw malformed(client, res);
    if (!ok.data.data.commentCreate?.success) {
      throw upstreamError(client, "rejected", "commentCreate did not succeed", res.status);
    }
  }
  if (issue.state.type === "completed") return { commented: !seen, transitioned: false };
  const statesRes = await graphql(client, config, {
    query: LINEAR_COMPLETED_STATES,
    variables: { teamId: issue.team.id },
  });
  const states = ZStates.safeParse(statesRes.json);
  if (!states.success) throw malformed(client, statesRes);
  const done = [...states.data.data.workflowStates.nodes]
    .filter((s) => s.type === "completed")
    .sort((a, b) => a.position - b.position)[0];
  if (!done) throw upstreamError(client, "rejected", "the team has no completed workflow state");
  const res = await graphql(client, config, {
    query: LINEAR_ISSUE_UPDATE,
    variables: { id: issue.id, input: { stateId: done.id } },
  });
  const ok = ZSuccess("issueUpdate").safeParse(res.json);
  if (!ok.success) throw malformed(client, res);
  if (!ok.data.data.issueUpdate?.success) {
    throw upstreamError(client, "rejected", "issueUpdate did not succeed", res.status);
  }
  return { commented: !seen, transitioned: true };
}
