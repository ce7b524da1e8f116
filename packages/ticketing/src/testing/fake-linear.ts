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

export type TFakeLinear = TFakeTracker & { apiKey: string; teams: TFakeLinearTeam[] };

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

/** Linear's GraphQL endpoint, for issueCreate and a team lookup by key. */
export async function startFakeLinear(options: TFakeLinearOptions = {}): Promise<TFakeLinear> {
  const apiKey = options.apiKey ?? "lin_api_fake0123456789";
  const teams = options.teams ?? [{ id: "6f1c2a4e-8b7d-4c3a-9e2f-1a2b3c4d5e6f", key: "ENG" }];
  const workspace = options.workspace ?? "acme";
  const initialState = options.initialState ?? "Todo";
  const counters = new Map<string, number>();

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
    const issue = {
      id: randomUUID(),
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
  return { ...server, apiKey, teams };
}
