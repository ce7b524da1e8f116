import { randomUUID } from "node:crypto";
import {
  type TFakeResponse,
  type TFakeTracker,
  type TRecordedRequest,
  header,
  isRecord,
  startFakeServer,
} from "./fake-server";

export type TFakeLinearTeam = { id: string; key: string };

export type TFakeLinearOptions = {
  apiKey?: string;
  teams?: TFakeLinearTeam[];
  workspace?: string;
  /** Name of the state new issues start in. */
  initialState?: string;
};

/** A workflow state of a team, as Linear types them. */
export type TFakeLinearState = {
  id: string;
  name: string;
  type: "backlog" | "unstarted" | "started" | "completed" | "canceled" | "triage";
  position: number;
};

export type TFakeLinearIssue = {
  id: string;
  identifier: string;
  teamId: string;
  state: TFakeLinearState;
  comments: string[];
  /** Each state id an issueUpdate moved it to. */
  stateChanges: string[];
};

export type TFakeLinear = TFakeTracker & {
  apiKey: string;
  teams: TFakeLinearTeam[];
  /** By identifier (e.g. SEC-1). */
  issues: Map<string, TFakeLinearIssue>;
  /** Each team's workflow states (Linear's default set, ids derived from the team). */
  statesOf(teamId: string): TFakeLinearState[];
};

function defaultStates(teamId: string): TFakeLinearState[] {
  const id = (n: number) => `${teamId.slice(0, 8)}-0000-4000-8000-${String(n).padStart(12, "0")}`;
  return [
    { id: id(1), name: "Backlog", type: "backlog", position: 0 },
    { id: id(2), name: "Todo", type: "unstarted", position: 1 },
    { id: id(3), name: "In Progress", type: "started", position: 2 },
    { id: id(4), name: "Done", type: "completed", position: 3 },
    { id: id(5), name: "Canceled", type: "canceled", position: 4 },
  ];
}

function graphqlError(status: number, message: string, code: string): TFakeResponse {
  return {
    status,
    body: { errors: [{ message, extensions: { code, userPresentableMessage: message } }], data: null },
  };
}

function slug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40);
}

/**
 * Linear's GraphQL endpoint: issueCreate, a team lookup by key, and what closing needs: issue(id:)
 * with its state, team and comments, the team's workflowStates, commentCreate and issueUpdate.
 */
export async function startFakeLinear(options: TFakeLinearOptions = {}): Promise<TFakeLinear> {
  const apiKey = options.apiKey ?? "lin_api_fake0123456789";
  const teams = options.teams ?? [{ id: "6f1c2a4e-8b7d-4c3a-9e2f-1a2b3c4d5e6f", key: "ENG" }];
  const workspace = options.workspace ?? "acme";
  const initialState = options.initialState ?? "Todo";
  const counters = new Map<string, number>();
  const issues = new Map<string, TFakeLinearIssue>();
  const states = new Map(teams.map((t) => [t.id, defaultStates(t.id)]));
  const statesOf = (teamId: string) => states.get(teamId) ?? [];
  const byId = (id: unknown) =>
    typeof id === "string" ? (issues.get(id) ?? [...issues.values()].find((i) => i.id === id)) : undefined;
  const notFound = (entity: string) => graphqlError(400, `Entity not found: ${entity}`, "INVALID_INPUT");

  // https://developers.linear.app/docs/graphql/working-with-the-graphql-api: issue(id:) takes the
  // UUID or the identifier; workflowStates filters by team and type.
  const issueQuery = (variables: Record<string, unknown>): TFakeResponse => {
    const issue = byId(variables.id);
    if (!issue) return notFound("Issue");
    return {
      status: 200,
      body: {
        data: {
          issue: {
            id: issue.id,
            identifier: issue.identifier,
            state: { id: issue.state.id, type: issue.state.type, name: issue.state.name },
            team: { id: issue.teamId },
            comments: { nodes: [...issue.comments].reverse().map((body) => ({ body })) },
          },
        },
      },
    };
  };
  const workflowStates = (variables: Record<string, unknown>, query: string): TFakeResponse => {
    if (typeof variables.teamId !== "string") {
      return graphqlError(
        400,
        'Variable "$teamId" of required type "ID!" was not provided.',
        "GRAPHQL_VALIDATION_FAILED",
      );
    }
    const type = /type:\s*\{\s*eq:\s*"(\w+)"/.exec(query)?.[1];
    const nodes = statesOf(variables.teamId).filter((st) => type === undefined || st.type === type);
    return { status: 200, body: { data: { workflowStates: { nodes } } } };
  };
  const commentCreate = (variables: Record<string, unknown>): TFakeResponse => {
    const input = isRecord(variables.input) ? variables.input : {};
    const issue = byId(input.issueId);
    if (!issue) return notFound("Issue");
    if (typeof input.body !== "string" || input.body.trim() === "") {
      return graphqlError(400, "Argument Validation Error: body should not be empty", "INVALID_INPUT");
    }
    issue.comments.push(input.body);
    return {
      status: 200,
      body: { data: { commentCreate: { success: true, comment: { id: randomUUID() } } } },
    };
  };
  const issueUpdate = (variables: Record<string, unknown>): TFakeResponse => {
    const issue = byId(variables.id);
    if (!issue) return notFound("Issue");
    const input = isRecord(variables.input) ? variables.input : {};
    if (input.stateId !== undefined) {
      const state = statesOf(issue.teamId).find((st) => st.id === input.stateId);
      if (!state) return notFound("WorkflowState");
      issue.state = state;
      issue.stateChanges.push(state.id);
    }
    return {
      status: 200,
      body: {
        data: { issueUpdate: { success: true, issue: { id: issue.id, state: { type: issue.state.type } } } },
      },
    };
  };

  const issueCreate = (variables: Record<string, unknown>): TFakeResponse => {
    const input = isRecord(variables.input) ? variables.input : {};
    const team = teams.find((t) => t.id === input.teamId);
    if (!team) return graphqlError(400, "Entity not found: Team", "INVALID_INPUT");
    if (typeof input.title !== "string" || input.title.trim() === "") {
      return graphqlError(400, "Argument Validation Error: title should not be empty", "INVALID_INPUT");
    }
    if (input.description !== undefined && typeof input.description !== "string") {
      return graphqlError(400, "Argument Validation Error: description must be a string", "INVALID_INPUT");
    }
    const priority = input.priority;
    if (
      priority !== undefined &&
      !(Number.isInteger(priority) && Number(priority) >= 0 && Number(priority) <= 4)
    ) {
      return graphqlError(400, "Argument Validation Error: priority must be 0 to 4", "INVALID_INPUT");
    }
    const n = (counters.get(team.id) ?? 0) + 1;
    counters.set(team.id, n);
    const identifier = `${team.key}-${n}`;
    const state = statesOf(team.id).find((st) => st.name === initialState) ?? {
      id: randomUUID(),
      name: initialState,
      type: "unstarted" as const,
      position: 1,
    };
    const id = randomUUID();
    issues.set(identifier, { id, identifier, teamId: team.id, state, comments: [], stateChanges: [] });
    const issue = {
      id,
      identifier,
      url: `https://linear.app/${workspace}/issue/${identifier}/${slug(input.title)}`,
      state: { name: initialState },
    };
    return { status: 200, body: { data: { issueCreate: { success: true, issue } } } };
  };

  const handle = (req: TRecordedRequest): TFakeResponse => {
    if (req.method !== "POST" || req.path !== "/graphql")
      return { status: 404, body: { message: "Not found" } };
    // Personal API keys are sent bare; "Bearer <key>" is read as an OAuth token and fails.
    if (header(req, "authorization") !== apiKey) {
      return graphqlError(400, "Authentication required, not authenticated", "AUTHENTICATION_ERROR");
    }
    const body = isRecord(req.json) ? req.json : {};
    const query = typeof body.query === "string" ? body.query : "";
    const variables = isRecord(body.variables) ? body.variables : {};
    if (/^\s*mutation\b/.test(query) && query.includes("issueCreate(")) return issueCreate(variables);
    if (/^\s*mutation\b/.test(query) && query.includes("commentCreate(")) return commentCreate(variables);
    if (/^\s*mutation\b/.test(query) && query.includes("issueUpdate(")) return issueUpdate(variables);
    if (/^\s*query\b/.test(query) && query.includes("workflowStates("))
      return workflowStates(variables, query);
    if (/^\s*query\b/.test(query) && /\bissue\(/.test(query)) return issueQuery(variables);
    if (/^\s*query\b/.test(query) && query.includes("teams(")) {
      const nodes = teams.filter((t) => t.key === variables.key);
      return { status: 200, body: { data: { teams: { nodes } } } };
    }
    return graphqlError(400, "Unsupported operation for this fake", "GRAPHQL_VALIDATION_FAILED");
  };

  const server = await startFakeServer(handle, (status) =>
    status === 401
      ? {
          errors: [
            {
              message: "Authentication required, not authenticated",
              extensions: { code: "AUTHENTICATION_ERROR" },
            },
          ],
        }
      : { errors: [{ message: `Injected HTTP ${status}`, extensions: { code: "INTERNAL_SERVER_ERROR" } }] },
  );
  return { ...server, apiKey, teams, issues, statesOf };
}
