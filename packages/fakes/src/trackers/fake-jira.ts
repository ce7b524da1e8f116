import {
  type TFakeResponse,
  type TFakeTracker,
  type TRecordedRequest,
  header,
  isRecord,
  startFakeServer,
} from "./fake-server";

export type TFakeJiraOptions = {
  projectKey?: string;
  email?: string;
  apiToken?: string;
  /** Accepted as `Authorization: Bearer <pat>` when set. */
  personalAccessToken?: string;
  issueTypes?: string[];
  /** Status reported for created issues by GET /rest/api/3/issue/{key}. */
  initialStatus?: string;
  /** The transitions offered (default FAKE_JIRA_WORKFLOW); one without a done target models a workflow that cannot close. */
  workflow?: Array<{ transitionId: string; to: TFakeJiraStatus }>;
};

/** A status of the fake's workflow, with its category as Jira reports it. */
export type TFakeJiraStatus = { id: string; name: string; category: "new" | "indeterminate" | "done" };

/**
 * The fake's workflow: Jira's simplified (team-managed) workflow, where every status can be
 * reached from every other by a global transition named after it.
 */
export const FAKE_JIRA_WORKFLOW: Array<{ transitionId: string; to: TFakeJiraStatus }> = [
  { transitionId: "11", to: { id: "10000", name: "To Do", category: "new" } },
  { transitionId: "21", to: { id: "3", name: "In Progress", category: "indeterminate" } },
  { transitionId: "31", to: { id: "10001", name: "Done", category: "done" } },
];

export type TFakeJiraIssue = {
  id: string;
  key: string;
  status: TFakeJiraStatus;
  /** Comment bodies (ADF documents), oldest first. */
  comments: unknown[];
  /** Each transition applied, by id. */
  transitions: string[];
};

export type TFakeJira = TFakeTracker & {
  issues: Map<string, TFakeJiraIssue>;
  projectKey: string;
  email: string;
  apiToken: string;
  /** The `email:api_token` string a ticketing config carries. */
  token: string;
};

const INLINE_MARKS = new Set(["strong", "em", "code", "link", "strike", "underline"]);
const ADF_ERROR = "Operation value must be an Atlassian Document (see the Atlassian Document Format)";

function jiraError(status: number, errors: Record<string, string>, messages: string[] = []): TFakeResponse {
  return { status, body: { errorMessages: messages, errors } };
}

function validInline(node: unknown): boolean {
  if (!isRecord(node)) return false;
  if (node.type === "hardBreak") return true;
  if (node.type !== "text" || typeof node.text !== "string" || node.text.length === 0) return false;
  if (node.marks === undefined) return true;
  return (
    Array.isArray(node.marks) &&
    node.marks.every(
      (mark) =>
        isRecord(mark) &&
        typeof mark.type === "string" &&
        INLINE_MARKS.has(mark.type) &&
        (mark.type !== "link" || (isRecord(mark.attrs) && typeof mark.attrs.href === "string")),
    )
  );
}

function validBlock(node: unknown): boolean {
  if (!isRecord(node)) return false;
  const content = node.content;
  switch (node.type) {
    case "paragraph":
    case "heading":
      return content === undefined || (Array.isArray(content) && content.every(validInline));
    case "bulletList":
    case "orderedList":
      return (
        Array.isArray(content) &&
        content.length > 0 &&
        content.every((item) => isRecord(item) && item.type === "listItem" && validBlocks(item.content))
      );
    case "rule":
      return true;
    default:
      return false;
  }
}

function validBlocks(content: unknown): boolean {
  return Array.isArray(content) && content.length > 0 && content.every(validBlock);
}

/** The subset of the ADF schema Jira's issue description accepts that this fake understands. */
export function isValidAdf(doc: unknown): boolean {
  return isRecord(doc) && doc.type === "doc" && doc.version === 1 && validBlocks(doc.content);
}

function validateCreate(body: unknown, projectKey: string, issueTypes: string[]): Record<string, string> {
  const fields = isRecord(body) && isRecord(body.fields) ? body.fields : {};
  const errors: Record<string, string> = {};
  if (!isRecord(fields.project) || fields.project.key !== projectKey)
    errors.project = "valid project is required";
  const issueType = isRecord(fields.issuetype) ? fields.issuetype.name : undefined;
  if (typeof issueType !== "string" || !issueTypes.includes(issueType)) {
    errors.issuetype = "Specify a valid issue type";
  }
  const summary = fields.summary;
  if (typeof summary !== "string" || summary.trim() === "")
    errors.summary = "You must specify a summary of the issue.";
  else if (summary.length > 255) errors.summary = "Summary must be less than 255 characters.";
  else if (/[\r\n]/.test(summary))
    errors.summary = "The summary is invalid because it contains newline characters.";
  if (fields.description !== undefined && !isValidAdf(fields.description)) errors.description = ADF_ERROR;
  const labels = fields.labels;
  if (
    labels !== undefined &&
    !(Array.isArray(labels) && labels.every((l) => typeof l === "string" && !/\s/.test(l)))
  ) {
    errors.labels = "Labels must be strings without spaces";
  }
  return errors;
}

/**
 * Jira Cloud platform REST v3: issue creation (POST /rest/api/3/issue), its status (GET), its
 * comments (GET, POST with an ADF body) and transitions (GET, POST `{transition: {id}}`).
 */
export async function startFakeJira(options: TFakeJiraOptions = {}): Promise<TFakeJira> {
  const projectKey = options.projectKey ?? "SEC";
  const email = options.email ?? "bot@example.com";
  const apiToken = options.apiToken ?? "jira-api-token-0123456789";
  const issueTypes = options.issueTypes ?? ["Task", "Bug", "Story"];
  const initialStatus = options.initialStatus ?? "To Do";
  const basic = `Basic ${Buffer.from(`${email}:${apiToken}`).toString("base64")}`;
  const issues = new Map<string, TFakeJiraIssue>();
  const workflow = options.workflow ?? FAKE_JIRA_WORKFLOW;
  const CATEGORY_NAME = { new: "To Do", indeterminate: "In Progress", done: "Done" } as const;
  const statusBody = (baseUrl: string, st: TFakeJiraStatus) => ({
    self: `${baseUrl}/rest/api/3/status/${st.id}`,
    id: st.id,
    name: st.name,
    statusCategory: { key: st.category, name: CATEGORY_NAME[st.category] },
  });
  let nextId = 10000;

  const authorized = (req: TRecordedRequest) => {
    const auth = header(req, "authorization");
    return (
      auth === basic ||
      (options.personalAccessToken !== undefined && auth === `Bearer ${options.personalAccessToken}`)
    );
  };

  const handle = (req: TRecordedRequest, baseUrl: string): TFakeResponse => {
    if (!authorized(req)) {
      return jiraError(401, {}, ["Client must be authenticated to access this resource."]);
    }
    if (req.method === "POST" && req.path === "/rest/api/3/issue") {
      if (!header(req, "content-type")?.startsWith("application/json")) return { status: 415 };
      const errors = validateCreate(req.json, projectKey, issueTypes);
      if (Object.keys(errors).length > 0) return jiraError(400, errors);
      nextId += 1;
      const issue: TFakeJiraIssue = {
        id: String(nextId),
        key: `${projectKey}-${issues.size + 1}`,
        status: { id: "10000", name: initialStatus, category: "new" },
        comments: [],
        transitions: [],
      };
      issues.set(issue.key, issue);
      return {
        status: 201,
        body: { id: issue.id, key: issue.key, self: `${baseUrl}/rest/api/3/issue/${issue.id}` },
      };
    }
    const sub = /^\/rest\/api\/3\/issue\/([^/]+)\/(comment|transitions)$/.exec(req.path);
    if (sub?.[1]) {
      const issue = issues.get(decodeURIComponent(sub[1]));
      if (!issue)
        return jiraError(404, {}, ["Issue does not exist or you do not have permission to see it."]);
      if (req.method === "POST" && !header(req, "content-type")?.startsWith("application/json")) {
        return { status: 415 };
      }
      const body = isRecord(req.json) ? req.json : undefined;
      // https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-comments/
      if (sub[2] === "comment" && req.method === "GET") {
        const newestFirst = req.query.get("orderBy") === "-created";
        const max = Math.min(Number(req.query.get("maxResults") ?? 5000) || 5000, 5000);
        const all = issue.comments.map((doc, i) => ({ id: String(20000 + i), body: doc }));
        const ordered = newestFirst ? [...all].reverse() : all;
        return {
          status: 200,
          body: { startAt: 0, maxResults: max, total: all.length, comments: ordered.slice(0, max) },
        };
      }
      if (sub[2] === "comment" && req.method === "POST") {
        if (!body || body.body === undefined) {
          return jiraError(400, { comment: "Comment body can not be empty!" });
        }
        if (!isValidAdf(body.body)) return jiraError(400, { comment: ADF_ERROR });
        issue.comments.push(body.body);
        const id = String(20000 + issue.comments.length - 1);
        return {
          status: 201,
          body: { id, self: `${baseUrl}/rest/api/3/issue/${issue.id}/comment/${id}`, body: body.body },
        };
      }
      // https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/#api-rest-api-3-issue-issueidorkey-transitions-get
      if (sub[2] === "transitions" && req.method === "GET") {
        const transitions = workflow
          .filter((t) => t.to.id !== issue.status.id)
          .map((t) => ({
            id: t.transitionId,
            name: t.to.name,
            to: statusBody(baseUrl, t.to),
            hasScreen: false,
            isGlobal: true,
            isInitial: false,
            isAvailable: true,
            isConditional: false,
            isLooped: false,
          }));
        return { status: 200, body: { expand: "transitions", transitions } };
      }
      if (sub[2] === "transitions" && req.method === "POST") {
        const transition = body && isRecord(body.transition) ? body.transition : undefined;
        const id = transition?.id;
        if (typeof id !== "string" || id === "") {
          return jiraError(400, {}, ["Missing 'transition' identifier"]);
        }
        const found = workflow.find((t) => t.transitionId === id && t.to.id !== issue.status.id);
        if (!found) return jiraError(400, {}, [`Transition id '${id}' is not valid for this issue.`]);
        issue.status = found.to;
        issue.transitions.push(id);
        return { status: 204 };
      }
      return jiraError(405, {}, ["Method not allowed"]);
    }
    const match = /^\/rest\/api\/3\/issue\/([^/]+)$/.exec(req.path);
    if (req.method === "GET" && match?.[1]) {
      const issue = issues.get(decodeURIComponent(match[1]));
      if (!issue)
        return jiraError(404, {}, ["Issue does not exist or you do not have permission to see it."]);
      const fields = req.query.get("fields")?.split(",").includes("status")
        ? { status: statusBody(baseUrl, issue.status) }
        : {};
      return {
        status: 200,
        body: { id: issue.id, key: issue.key, self: `${baseUrl}/rest/api/3/issue/${issue.id}`, fields },
      };
    }
    return jiraError(404, {}, ["Not found"]);
  };

  const server = await startFakeServer(handle, (status) =>
    status === 401
      ? { errorMessages: ["Client must be authenticated to access this resource."], errors: {} }
      : { errorMessages: [`Injected HTTP ${status}`], errors: {} },
  );
  return { ...server, issues, projectKey, email, apiToken, token: `${email}:${apiToken}` };
}
