import { z } from "zod";
import { isLinearTeamId } from "../config";
import { markdownDescription, ticketTitle } from "../content";
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
import type { TTicket, TTicketFinding, TTicketingConfig } from "../types";

export const LINEAR_ISSUE_CREATE = `mutation IssueCreate($input: IssueCreateInput!) {
  issueCreate(input: $input) { success issue { id identifier url state { name } } }
}`;

export const LINEAR_TEAM_BY_KEY = `query TeamByKey($key: String!) {
  teams(filter: { key: { eq: $key } }) { nodes { id key } }
}`;

// Linear priorities: 1 urgent, 2 high, 3 medium, 4 low.
const PRIORITY: Record<TTicketFinding["severity"], number> = { CRITICAL: 1, HIGH: 2, MEDIUM: 3, LOW: 4 };

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
  finding: TTicketFinding,
): Promise<TTicket> {
  const teamId = await resolveTeamId(client, config);
  const input = {
    teamId,
    title: ticketTitle(finding),
    description: markdownDescription(finding),
    priority: PRIORITY[finding.severity],
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
