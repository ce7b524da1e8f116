import { header } from "@posture/platform/testing";
import {
  bearer,
  checkAppJwt,
  createInstallationTokens,
  grants,
  type TAcceptedJwt,
  type TIssuedInstallationToken,
} from "./fake-github-auth";
import { type TGithubFixture } from "./fake-github-fixture";
import { route } from "./fake-github-routes";
import {
  bodyProblems,
  GITHUB_DOCS,
  matchOperation,
  queryProblems,
  type TFieldProblem,
  type TGithubOperation,
  type TGithubPermissions,
} from "./fake-github-schema";
import { startFakeServer, type TFakeRequest, type TFakeResponse, type TFakeServer } from "./fake-server";

// A fake GitHub REST API (api.github.com) for one organization and the installations of GitHub
// Apps on it. It serves only the operations of the description's extract and refuses what the
// description does not allow (an unknown path or method: 404; an undeclared or ill-typed query
// parameter or body key: 422), recording each refusal so tests can fail on it. Like GitHub, it
// pages with `page`/`per_page` (at most 100) and `Link: <…>; rel="next"`, counts every request
// against the installation's hourly budget (`x-ratelimit-*`; exhausted: 403 with
// `x-ratelimit-remaining: 0`), answers secondary limits with `retry-after`, and refuses expired
// installation tokens with 401 "Bad credentials". Time is the caller's clock (`now`), so tests
// can wait out a reset or a token's hour without waiting.

export type TFakeGithubOptions = {
  fixture: TGithubFixture;
  /** The apps whose JWTs the fake accepts. */
  apps: Array<{ appId: number; publicKey: string }>;
  /** Epoch ms; the tests' clock, advanced by their sleep. */
  now?: () => number;
  /** Installation token lifetime (GitHub: one hour). */
  tokenTtlSec?: number;
  /** Requests per installation per window (GitHub: 5,000 an hour at least) and the window's length. */
  rateLimit?: { limit: number; windowSec?: number; status?: 403 | 429 };
  /** Override the permissions of an installation (by id) from the fixture's. */
  permissions?: Record<number, TGithubPermissions>;
};

export type TRefusal = { method: string; url: string; status: number; body: unknown };

export type TFakeGithub = TFakeServer & {
  /** The requests the description does not allow, refused: a test that expects none asserts it empty. */
  refused: TRefusal[];
  jwts: TAcceptedJwt[];
  tokens: TIssuedInstallationToken[];
  /** The next `count` installation requests hit a secondary limit (`retryAfter` seconds, or none sent). */
  secondaryLimit: (opts: { count: number; retryAfter?: number; status?: 403 | 429 }) => void;
  /** Every installation token stops working now (as if its hour had passed). */
  expireTokens: () => void;
  /** Requests answered 403/429 for a rate limit. */
  throttled: Array<{ url: string; kind: "primary" | "secondary" }>;
};

/** The REST API versions GitHub serves (`X-GitHub-Api-Version`); another is a 400. */
const API_VERSIONS = ["2022-11-28", "2026-03-10"];
const MAX_PER_PAGE = 100;
const DEFAULT_PER_PAGE = 30;
const RATE_LIMIT_DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api";

const error = (status: number, message: string, documentationUrl: string | null, extra = {}) => ({
  status,
  body: { message, documentation_url: documentationUrl ?? GITHUB_DOCS, status: String(status), ...extra },
});

function validationFailed(op: TGithubOperation, problems: TFieldProblem[]): TFakeResponse {
  return error(422, "Validation Failed", op.documentationUrl, {
    errors: problems.map((p) => ({
      resource: op.operationId.split("/")[0],
      field: p.field,
      code: p.code,
      value: p.value,
    })),
  });
}

function linkHeader(
  base: string,
  req: TFakeRequest,
  page: number,
  perPage: number,
  total: number,
): string | undefined {
  const last = Math.max(1, Math.ceil(total / perPage));
  const at = (n: number) => {
    const url = new URL(req.url, base);
    url.searchParams.set("per_page", String(perPage));
    url.searchParams.set("page", String(n));
    return url.toString();
  };
  const rels: string[] = [];
  if (page > 1) rels.push(`<${at(page - 1)}>; rel="prev"`, `<${at(1)}>; rel="first"`);
  if (page < last) rels.push(`<${at(page + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`);
  return rels.length > 0 ? rels.join(", ") : undefined;
}

export async function startFakeGithub(opts: TFakeGithubOptions): Promise<TFakeGithub> {
  const now = opts.now ?? Date.now;
  const tokens = createInstallationTokens(opts.tokenTtlSec ?? 3600);
  const refused: TRefusal[] = [];
  const jwts: TAcceptedJwt[] = [];
  const throttled: TFakeGithub["throttled"] = [];
  const secondary: Array<{ count: number; retryAfter?: number; status: 403 | 429 }> = [];
  const limit = opts.rateLimit?.limit ?? 5000;
  const windowMs = (opts.rateLimit?.windowSec ?? 3600) * 1000;
  const windows = new Map<number, { resetAt: number; used: number }>();
  const installationPermissions = (id: number) =>
    opts.permissions?.[id] ?? opts.fixture.installations.find((i) => i.id === id)?.permissions;

  const refuse = (req: TFakeRequest, response: TFakeResponse): TFakeResponse => {
    refused.push({ method: req.method, url: req.url, status: response.status, body: response.body });
    return response;
  };

  const issueToken = (req: TFakeRequest, op: TGithubOperation, installationId: string): TFakeResponse => {
    const held = installationPermissions(Number(installationId));
    if (!held) return error(404, "Not Found", op.documentationUrl);
    const asked = (req.json as { permissions?: TGithubPermissions } | undefined)?.permissions;
    if (asked && !grants(held, asked))
      return error(
        422,
        "The permissions requested are not granted to this installation.",
        op.documentationUrl,
      );
    const issued = tokens.issue(Number(installationId), asked ?? held, now());
    return {
      status: 201,
      body: {
        token: issued.token,
        expires_at: new Date(issued.expiresAt).toISOString().replace(".000Z", "Z"),
        permissions: issued.permissions,
        repository_selection: "all",
      },
    };
  };

  const rateHeaders = (installationId: number): { headers: Record<string, string>; exhausted: boolean } => {
    let window = windows.get(installationId);
    if (!window || window.resetAt <= now()) {
      window = { resetAt: now() + windowMs, used: 0 };
      windows.set(installationId, window);
    }
    const exhausted = window.used >= limit;
    if (!exhausted) window.used++;
    return {
      exhausted,
      headers: {
        "x-ratelimit-limit": String(limit),
        "x-ratelimit-remaining": String(limit - window.used),
        "x-ratelimit-used": String(window.used),
        "x-ratelimit-reset": String(Math.ceil(window.resetAt / 1000)),
        "x-ratelimit-resource": "core",
      },
    };
  };

  const handle = (req: TFakeRequest, base: string): TFakeResponse => {
    if (!header(req, "user-agent"))
      return refuse(
        req,
        error(
          403,
          "Request forbidden by administrative rules. Please make sure your request has a User-Agent header",
          null,
        ),
      );
    const version = header(req, "x-github-api-version");
    if (version !== undefined && !API_VERSIONS.includes(version))
      return refuse(req, error(400, `API version ${version} is not supported.`, null));
    const match = matchOperation(req.method, req.path);
    if (!match) return refuse(req, error(404, "Not Found", null));
    const { op, params } = match;
    const query = queryProblems(op, req.query);
    if (query.length > 0) return refuse(req, validationFailed(op, query));
    if (req.body !== "" && req.json === undefined)
      return refuse(req, error(400, "Problems parsing JSON", op.documentationUrl));
    const bodyErrors = bodyProblems(op, req.body === "" ? undefined : req.json);
    if (bodyErrors.length > 0) {
      const first = bodyErrors[0];
      const message =
        first?.code === "not_permitted" && first.field !== "(body)"
          ? `Invalid request.\n\n"${first.field}" is not a permitted key.`
          : "Invalid request.";
      return refuse(req, error(422, message, op.documentationUrl));
    }

    if (op.auth === "app") {
      const token = bearer(req);
      const jwt = token
        ? checkAppJwt(token, opts.apps, Math.floor(now() / 1000))
        : { refused: "A JSON web token could not be decoded" };
      if ("refused" in jwt) return error(401, jwt.refused, op.documentationUrl);
      jwts.push(jwt);
      return issueToken(req, op, params.installation_id ?? "");
    }

    const token = tokens.find(req, now());
    if (!token) return error(401, "Bad credentials", GITHUB_DOCS);
    const pending = secondary[0];
    if (pending) {
      if (--pending.count <= 0) secondary.shift();
      throttled.push({ url: req.url, kind: "secondary" });
      return {
        ...error(
          pending.status,
          "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
          "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
        ),
        headers: pending.retryAfter === undefined ? {} : { "retry-after": String(pending.retryAfter) },
      };
    }
    const rate = rateHeaders(token.installationId);
    if (rate.exhausted) {
      throttled.push({ url: req.url, kind: "primary" });
      return {
        ...error(
          opts.rateLimit?.status ?? 403,
          `API rate limit exceeded for installation ID ${token.installationId}.`,
          RATE_LIMIT_DOCS,
        ),
        headers: rate.headers,
      };
    }
    const needed = op.permissions.anyOf;
    if (needed.length > 0 && !needed.some((p) => grants(token.permissions, p))) {
      return {
        ...error(403, "Resource not accessible by integration", op.documentationUrl),
        headers: {
          ...rate.headers,
          "x-accepted-github-permissions": needed
            .map((p) =>
              Object.entries(p)
                .map(([k, v]) => `${k}=${v}`)
                .join(","),
            )
            .join("; "),
        },
      };
    }

    const answer = route(op.operationId, {
      fixture: opts.fixture,
      base,
      params,
      query: req.query,
      held: token.permissions,
      body: req.json,
    });
    if (!("list" in answer)) return { status: answer.status, body: answer.body, headers: rate.headers };
    const perPage = Math.min(
      Number(req.query.get("per_page") ?? DEFAULT_PER_PAGE) || DEFAULT_PER_PAGE,
      MAX_PER_PAGE,
    );
    const page = Math.max(1, Number(req.query.get("page") ?? 1) || 1);
    const items = answer.list.slice((page - 1) * perPage, page * perPage);
    const render = answer.render as ((item: unknown) => unknown) | undefined;
    const slice = render ? items.map(render) : items;
    const link = linkHeader(base, req, page, perPage, answer.list.length);
    return {
      status: 200,
      body: answer.wrap ? answer.wrap(slice) : slice,
      headers: { ...rate.headers, ...(link ? { link } : {}) },
    };
  };

  const server = await startFakeServer({
    handle,
    faultBody: (status) => error(status, "Server Error", null).body,
  });
  return {
    url: server.url,
    requests: server.requests,
    close: server.close,
    injectFault: server.injectFault,
    refused,
    jwts,
    tokens: tokens.issued,
    throttled,
    secondaryLimit: ({ count, retryAfter, status }) =>
      void secondary.push({ count, retryAfter, status: status ?? 403 }),
    expireTokens: tokens.expireAll,
  };
}
