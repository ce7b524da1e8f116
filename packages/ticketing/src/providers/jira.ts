import { z } from "zod";
import { SEVERITY_LABEL, adfDescription, ticketTitle } from "../content";
import {
  type TTrackerClient,
  type TTrackerResponse,
  isSuccess,
  malformed,
  send,
  statusError,
  trimBaseUrl,
} from "../http";
import type { TTicket, TTicketFinding, TTicketingConfig } from "../types";

/** Status of a freshly created issue in Jira's default workflows, used when it cannot be read. */
export const JIRA_FALLBACK_STATUS = "To Do";

const ZCreated = z.object({ id: z.string(), key: z.string().min(1), self: z.string() });
const ZIssueStatus = z.object({ fields: z.object({ status: z.object({ name: z.string().min(1) }) }) });
const ZJiraError = z.object({
  errorMessages: z.array(z.string()).optional(),
  errors: z.record(z.string(), z.string()).optional(),
});

/**
 * Jira Cloud takes Basic auth with `email:api_token`; anything without a colon is treated as a
 * bearer token (an OAuth access token or a Data Center personal access token).
 */
export function jiraAuthorization(token: string): { header: string; secrets: string[] } {
  if (token.includes(":")) {
    const encoded = Buffer.from(token, "utf8").toString("base64");
    const apiToken = token.slice(token.indexOf(":") + 1);
    return { header: `Basic ${encoded}`, secrets: [token, encoded, apiToken] };
  }
  return { header: `Bearer ${token}`, secrets: [token] };
}

function jiraErrorDetail(res: TTrackerResponse): string | undefined {
  const parsed = ZJiraError.safeParse(res.json);
  if (!parsed.success) return undefined;
  const parts = [...(parsed.data.errorMessages ?? []), ...Object.values(parsed.data.errors ?? {})];
  return parts.length > 0 ? parts.join("; ") : undefined;
}

export async function createJiraIssue(
  client: TTrackerClient,
  config: TTicketingConfig,
  finding: TTicketFinding,
  issueType: string,
  authorization: string,
): Promise<TTicket> {
  const base = trimBaseUrl(config.baseUrl);
  const headers = { authorization, accept: "application/json" };
  const res = await send(client, {
    method: "POST",
    url: `${base}/rest/api/3/issue`,
    headers,
    body: {
      fields: {
        project: { key: config.project },
        issuetype: { name: issueType },
        summary: ticketTitle(finding),
        description: adfDescription(finding),
        labels: ["security-posture", SEVERITY_LABEL[finding.severity]],
      },
    },
  });
  if (!isSuccess(res)) throw statusError(client, res, jiraErrorDetail(res));
  const created = ZCreated.safeParse(res.json);
  if (!created.success) throw malformed(client, res);
  const key = created.data.key;

  return {
    provider: "jira",
    externalId: key,
    url: `${base}/browse/${encodeURIComponent(key)}`,
    status: await readStatus(client, base, key, headers),
  };
}

/**
 * The create response carries no status, so it is read back. The issue exists by now: a failed
 * read must not fail the call (the caller would record no ticket and a retry would file a
 * duplicate), so it falls back to the default workflow's initial status.
 */
async function readStatus(
  client: TTrackerClient,
  base: string,
  key: string,
  headers: Record<string, string>,
): Promise<string> {
  try {
    const res = await send(client, {
      method: "GET",
      url: `${base}/rest/api/3/issue/${encodeURIComponent(key)}?fields=status`,
      headers,
    });
    const parsed = ZIssueStatus.safeParse(res.json);
    return isSuccess(res) && parsed.success ? parsed.data.fields.status.name : JIRA_FALLBACK_STATUS;
  } catch {
    return JIRA_FALLBACK_STATUS;
  }
}
