import { describe, expect, it } from "vitest";
import { ZTicketingConfigInput } from "./config";

function issuePaths(input: unknown): string[] {
  const result = ZTicketingConfigInput.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path.join("."));
}

const jira = {
  provider: "jira",
  baseUrl: "https://acme.atlassian.net",
  project: "SEC",
  token: "me@acme.com:tok",
};
const github = { provider: "github", project: "acme/security", token: "github_pat_x" };
const linear = { provider: "linear", project: "ENG", token: "lin_api_x" };

describe("ZTicketingConfigInput", () => {
  it("accepts a Jira site with a project key", () => {
    expect(ZTicketingConfigInput.parse(jira)).toEqual(jira);
    expect(ZTicketingConfigInput.parse({ ...jira, project: "SEC_OPS2" }).project).toBe("SEC_OPS2");
  });

  it("fills in the public API address for GitHub and Linear", () => {
    expect(ZTicketingConfigInput.parse(github).baseUrl).toBe("https://api.github.com");
    expect(ZTicketingConfigInput.parse(linear).baseUrl).toBe("https://api.linear.app");
    const enterprise = { ...github, baseUrl: "https://ghe.acme.com/api/v3" };
    expect(ZTicketingConfigInput.parse(enterprise).baseUrl).toBe("https://ghe.acme.com/api/v3");
  });

  it("requires baseUrl for Jira", () => {
    expect(issuePaths({ ...jira, baseUrl: undefined })).toEqual(["baseUrl"]);
  });

  it.each(["sec", "S", "SEC-1", "1SEC", "SE C", ""])("rejects Jira project key %j", (project) => {
    expect(issuePaths({ ...jira, project })).toEqual(["project"]);
  });

  it.each(["acme", "acme/", "/repo", "acme/repo/extra", "-acme/repo", "acme/..", "acme/re po"])(
    "rejects GitHub repository %j",
    (project) => {
      expect(issuePaths({ ...github, project })).toEqual(["project"]);
    },
  );

  it("accepts a Linear team id or key and rejects anything else", () => {
    expect(issuePaths({ ...linear, project: "0b6f3a57-3c1e-4d8a-9f0e-2a7b9c1d4e5f" })).toEqual([]);
    expect(issuePaths({ ...linear, project: "eng" })).toEqual([]);
    expect(issuePaths({ ...linear, project: "not a team" })).toEqual(["project"]);
    expect(issuePaths({ ...linear, project: "" })).toEqual(["project"]);
  });

  it.each([
    "ftp://acme.atlassian.net",
    "javascript:alert(1)",
    "acme.atlassian.net",
    "https://user:pw@acme.atlassian.net",
    "https://acme.atlassian.net/?x=1",
  ])("rejects baseUrl %j", (baseUrl) => {
    expect(issuePaths({ ...jira, baseUrl })).toEqual(["baseUrl"]);
    expect(issuePaths({ ...github, baseUrl })).toEqual(["baseUrl"]);
  });

  it("bounds the token and trims surrounding whitespace", () => {
    expect(issuePaths({ ...github, token: "" })).toEqual(["token"]);
    expect(issuePaths({ ...github, token: "x".repeat(501) })).toEqual(["token"]);
    expect(issuePaths({ ...github, token: "two words" })).toEqual(["token"]);
    expect(issuePaths({ ...github, token: "line\nbreak" })).toEqual(["token"]);
    expect(ZTicketingConfigInput.parse({ ...github, token: "  github_pat_x\n" }).token).toBe("github_pat_x");
    expect(issuePaths({ ...github, token: "x".repeat(500) })).toEqual([]);
  });

  it("reports every problem at once", () => {
    expect(issuePaths({ provider: "jira", project: "", token: "" }).sort()).toEqual([
      "baseUrl",
      "project",
      "token",
    ]);
  });

  it("stays a ZodObject under its transform, as trpc-to-openapi requires of a request body", () => {
    const def = ZTicketingConfigInput._zod.def as { type: string; in?: { _zod: { def: { type: string } } } };
    expect(def.type).toBe("pipe");
    expect(def.in?._zod.def.type).toBe("object");
  });

  it("rejects an unknown provider", () => {
    expect(issuePaths({ ...github, provider: "gitlab" })).toEqual(["provider"]);
  });
});
