import { z } from "zod";
import { TICKET_PROVIDER_IDS, type TTicketProvider, type TTicketingConfig } from "./types";

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

const PROJECT_RULES: Record<TTicketProvider, { test: (project: string) => boolean; message: string }> = {
  jira: {
    test: (project) => JIRA_PROJECT_KEY.test(project),
    message: "project must be a Jira project key such as SEC",
  },
  github: {
    test: (project) => GITHUB_REPO.test(project),
    message: "project must be a GitHub repository as owner/repo",
  },
  linear: {
    test: (project) => LINEAR_TEAM_ID.test(project) || LINEAR_TEAM_KEY.test(project),
    message: "project must be a Linear team id (UUID) or team key such as ENG",
  },
};

/**
 * Body of PUT /api/integrations/ticketing. One object rather than a union per provider because
 * trpc-to-openapi needs a ZodObject body; the per-provider rules are checked below, and parsing
 * fills in the public API address when GitHub or Linear omit baseUrl.
 */
export const ZTicketingConfigInput = z
  .strictObject({
    provider: z.enum(TICKET_PROVIDER_IDS),
    baseUrl: ZBaseUrl.optional().meta({
      description:
        "Jira: the Cloud site, e.g. https://acme.atlassian.net (required). GitHub: the REST root, default " +
        "https://api.github.com. Linear: default https://api.linear.app.",
    }),
    project: z.string().max(150).meta({
      description: "Jira: project key (SEC). GitHub: owner/repo. Linear: team id or team key (ENG).",
    }),
    token: ZToken.meta({
      description:
        "Jira: email:api_token (Basic auth) or a personal access token (Bearer). GitHub: a token with issues " +
        "write access. Linear: a personal API key.",
    }),
  })
  .superRefine((value, ctx) => {
    const rule = PROJECT_RULES[value.provider];
    if (!rule.test(value.project)) ctx.addIssue({ code: "custom", path: ["project"], message: rule.message });
    if (value.provider === "jira" && value.baseUrl === undefined) {
      ctx.addIssue({ code: "custom", path: ["baseUrl"], message: "baseUrl is required for Jira" });
    }
  })
  .transform((value): TTicketingConfig => ({
    ...value,
    baseUrl: value.baseUrl ?? (value.provider === "jira" ? "" : DEFAULT_BASE_URLS[value.provider]),
  }));

export type TTicketingConfigInput = z.input<typeof ZTicketingConfigInput>;
