import {
  type TFakeResponse,
  type TFakeTracker,
  type TRecordedRequest,
  header,
  isRecord,
  startFakeServer,
} from "./fake-server";

export type TFakeGithubOptions = {
  /** `owner/repo` the token may write to. */
  repo?: string;
  token?: string;
};

export type TFakeGithubIssue = {
  state: "open" | "closed";
  stateReason: string | null;
  comments: string[];
  /** How many times an update moved it from open to closed. */
  closes: number;
};
export type TFakeGithub = TFakeTracker & {
  repo: string;
  token: string;
  issues: Map<number, TFakeGithubIssue>;
};

const DOCS = "https://docs.github.com/rest/issues/issues#create-an-issue";

function githubError(status: number, message: string, extra: Record<string, unknown> = {}): TFakeResponse {
  return { status, body: { message, documentation_url: DOCS, ...extra } };
}

/** GitHub REST "Create an issue": POST /repos/{owner}/{repo}/issues. */
export async function startFakeGithub(options: TFakeGithubOptions = {}): Promise<TFakeGithub> {
  const repo = options.repo ?? "acme/security";
  const token = options.token ?? "github_pat_fake_0123456789";
  let nextNumber = 0;
  const issues = new Map<number, TFakeGithubIssue>();

  const handle = (req: TRecordedRequest, baseUrl: string): TFakeResponse => {
    if (!header(req, "user-agent")) {
      return githubError(
        403,
        "Request forbidden by administrative rules. Please make sure your request has a User-Agent header",
      );
    }
    if (header(req, "authorization") !== `Bearer ${token}`) return githubError(401, "Bad credentials");
    // Stricter than GitHub, which defaults both: a client that drops them would drift silently.
    const version = header(req, "x-github-api-version");
    if (version !== "2022-11-28")
      return githubError(400, `Unsupported 'X-GitHub-Api-Version' header: ${version}`);
    if (header(req, "accept") !== "application/vnd.github+json") {
      return githubError(415, "Accept must be application/vnd.github+json");
    }
    // Issue comments and updates (https://docs.github.com/en/rest/issues/comments#create-an-issue-comment,
    // https://docs.github.com/en/rest/issues/issues#update-an-issue): on issues this fake created.
    const one = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)(\/comments)?$/.exec(req.path);
    if (one) {
      if (`${decodeURIComponent(one[1] ?? "")}/${decodeURIComponent(one[2] ?? "")}` !== repo) {
        return githubError(404, "Not Found");
      }
      const n = Number(one[3]);
      const issue = issues.get(n);
      if (!issue) return githubError(404, "Not Found");
      const body = isRecord(req.json) ? req.json : {};
      // https://docs.github.com/en/rest/issues/comments#list-issue-comments: oldest first, paged.
      if (one[4] && req.method === "GET") {
        const perPage = Math.min(Number(req.query.get("per_page") ?? 30) || 30, 100);
        const page = Math.max(Number(req.query.get("page") ?? 1) || 1, 1);
        const rows = issue.comments
          .map((text, i) => ({ id: 5_000_001 + i, body: text }))
          .slice((page - 1) * perPage, page * perPage);
        return { status: 200, body: rows };
      }
      if (!one[4] && req.method === "GET") {
        return {
          status: 200,
          body: {
            number: n,
            state: issue.state,
            state_reason: issue.stateReason,
            comments: issue.comments.length,
          },
        };
      }
      if (one[4] && req.method === "POST") {
        if (typeof body.body !== "string" || body.body === "") {
          return githubError(422, "Validation Failed", {
            errors: [{ resource: "IssueComment", code: "missing_field", field: "body" }],
          });
        }
        issue.comments.push(body.body);
        return { status: 201, body: { id: 5_000_000 + issue.comments.length, body: body.body } };
      }
      if (!one[4] && req.method === "PATCH") {
        if (body.state !== undefined && body.state !== "closed" && body.state !== "open") {
          return githubError(422, "Validation Failed", {
            errors: [{ resource: "Issue", code: "invalid", field: "state" }],
          });
        }
        if (body.state === "closed" || body.state === "open") {
          if (body.state === "closed" && issue.state !== "closed") issue.closes += 1;
          issue.state = body.state;
        }
        if (typeof body.state_reason === "string") issue.stateReason = body.state_reason;
        return { status: 200, body: { number: n, state: issue.state, state_reason: issue.stateReason } };
      }
      return githubError(404, "Not Found");
    }
    const match = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(req.path);
    if (req.method !== "POST" || !match) return githubError(404, "Not Found");
    if (`${decodeURIComponent(match[1] ?? "")}/${decodeURIComponent(match[2] ?? "")}` !== repo) {
      return githubError(404, "Not Found");
    }
    const body = isRecord(req.json) ? req.json : {};
    if (typeof body.title !== "string" || body.title === "") {
      return githubError(422, "Validation Failed", {
        errors: [{ resource: "Issue", code: "missing_field", field: "title" }],
      });
    }
    nextNumber += 1;
    issues.set(nextNumber, { state: "open", stateReason: null, comments: [], closes: 0 });
    return {
      status: 201,
      body: {
        id: 1_000_000 + nextNumber,
        node_id: `I_fake${nextNumber}`,
        number: nextNumber,
        title: body.title,
        body: typeof body.body === "string" ? body.body : null,
        state: "open",
        url: `${baseUrl}/repos/${repo}/issues/${nextNumber}`,
        html_url: `https://github.com/${repo}/issues/${nextNumber}`,
      },
    };
  };

  const server = await startFakeServer(handle, (status) =>
    status === 401
      ? { message: "Bad credentials", documentation_url: DOCS }
      : { message: `Injected HTTP ${status}` },
  );
  return { ...server, repo, token, issues };
}
