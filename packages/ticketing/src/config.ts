import { z } from "zod";

export const DEFAULT_BASE_URLS = {
  github: "https://api.github.com",
  linear: "https://api.linear.app",
} as const;

export const JIRA_PROJECT_KEY = /^[A-Z][A-Z0-9_]+$/;
// GitHub: owner is 1–39 alphanumerics or single hyphens; a repository name is 1–100 of [A-Za-z0-9._-].
export const GITHUB_REPO = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/(?!\.{1,2}$)[A-Za-z0-9._-]{1,100}$/;
const LINEAR_TEAM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LINEAR_TEAM_KEY = /^[A-Za-z][A-Za-z0-9_]{0,9}$/;

export function isLinearTeamId(project: string): boolean {
  return LINEAR_TEAM_ID.test(project);
}

const ZBaseUrl = z
  .url({ protocol: /^https?$/, error: "baseUrl must be an http(s) URL" })
  .max(2048)
  .refine((value) => {
    // zod runs this even when the URL check above failed; that failure is already reported.
    if (!URL.canParse(value)) return true;
    const url = new URL(value);
    return url.username === "" && url.password === "" && url.search === "" && url.hash === "";
  }, "baseUrl must not carry credentials, a query or a fragment");

// The token goes into an HTTP header: whitespace or control characters would corrupt it.
const ZToken = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .regex(/^[^\s\u0000-\u001f\u007f]*$/, "token must not contain whitespace or control characters");

const ZJira = z.object({
  provider: z.literal("jira"),
  baseUrl: ZBaseUrl.meta({ description: "Jira Cloud site, e.g. https://acme.atlassian.net" }),
  project: z.string().max(50).regex(JIRA_PROJECT_KEY, "project must be a Jira project key such as SEC"),
  token: ZToken.meta({
    description: "`email:api_token` (sent as Basic auth) or a personal access token (sent as Bearer)",
  }),
});

const ZGithub = z.object({
  provider: z.literal("github"),
  baseUrl: ZBaseUrl.default(DEFAULT_BASE_URLS.github).meta({
    description: "REST API root; https://api.github.com unless GitHub Enterprise Server",
  }),
  project: z.string().regex(GITHUB_REPO, "project must be a GitHub repository as owner/repo"),
  token: ZToken.meta({ description: "fine-grained or classic token with issues write access" }),
});

const ZLinear = z.object({
  provider: z.literal("linear"),
  baseUrl: ZBaseUrl.default(DEFAULT_BASE_URLS.linear),
  project: z
    .string()
    .refine(
      (value) => LINEAR_TEAM_ID.test(value) || LINEAR_TEAM_KEY.test(value),
      "project must be a Linear team id (UUID) or team key such as ENG",
    ),
  token: ZToken.meta({ description: "Linear personal API key" }),
});

/** Body of PUT /api/integrations/ticketing. Parsing fills in the default baseUrl per provider. */
export const ZTicketingConfigInput = z.discriminatedUnion("provider", [ZJira, ZGithub, ZLinear]);

export type TTicketingConfigInput = z.input<typeof ZTicketingConfigInput>;
