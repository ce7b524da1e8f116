import { createHmac } from "node:crypto";

/**
 * Fakes of the trackers' webhook senders: the body each vendor sends for an issue closed or
 * reopened, signed as the vendor signs it (HMAC-SHA256 of the exact bytes sent, with the secret
 * the tracker was given). Send the result with `fetch(url, {method: "POST", headers, body})`.
 */
export type TSignedDelivery = { headers: Record<string, string>; body: string };

const hmac = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("hex");

export type TTrackerAction = "done" | "declined" | "reopened";

/**
 * Jira Cloud admin webhook (jira:issue_updated), secret set on the webhook: X-Hub-Signature
 * sha256=<hex> (https://developer.atlassian.com/cloud/jira/platform/webhooks/#secure-admin-webhooks).
 */
export function jiraIssueUpdated(secret: string, key: string, action: TTrackerAction): TSignedDelivery {
  const done = action !== "reopened";
  const body = JSON.stringify({
    timestamp: Date.now(),
    webhookEvent: "jira:issue_updated",
    issue_event_type_name: "issue_generic",
    issue: {
      id: "10001",
      key,
      fields: {
        status: {
          name: done ? "Done" : "To Do",
          statusCategory: { key: done ? "done" : "new", name: done ? "Done" : "To Do" },
        },
        resolution: done ? { name: action === "declined" ? "Won't Do" : "Done" } : null,
      },
    },
    changelog: { items: [{ field: "status", toString: done ? "Done" : "To Do" }] },
  });
  return {
    body,
    headers: {
      "content-type": "application/json",
      "x-atlassian-webhook-identifier": String(Date.now()),
      "x-hub-signature": `sha256=${hmac(secret, body)}`,
    },
  };
}

/**
 * GitHub `issues` event, action closed (state_reason completed | not_planned) or reopened:
 * X-Hub-Signature-256 sha256=<hex> (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries).
 */
export function githubIssueEvent(
  secret: string,
  repo: string,
  issueNumber: number,
  action: TTrackerAction,
): TSignedDelivery {
  const body = JSON.stringify({
    action: action === "reopened" ? "reopened" : "closed",
    issue: {
      number: issueNumber,
      state: action === "reopened" ? "open" : "closed",
      state_reason: action === "reopened" ? "reopened" : action === "declined" ? "not_planned" : "completed",
    },
    repository: { full_name: repo },
  });
  return {
    body,
    headers: {
      "content-type": "application/json",
      "x-github-event": "issues",
      "x-github-delivery": `d-${Date.now()}`,
      "x-hub-signature-256": `sha256=${hmac(secret, body)}`,
    },
  };
}

/**
 * Linear Issue update: Linear-Signature <hex>, webhookTimestamp (ms) in the body
 * (https://linear.app/developers/webhooks#securing-webhooks).
 */
export function linearIssueUpdate(
  secret: string,
  identifier: string,
  action: TTrackerAction,
  timestamp = Date.now(),
): TSignedDelivery {
  const type = action === "done" ? "completed" : action === "declined" ? "canceled" : "unstarted";
  const body = JSON.stringify({
    action: "update",
    type: "Issue",
    data: { id: "b6f2c0de-0000-4000-8000-000000000001", identifier, state: { type, name: type } },
    updatedFrom: { stateId: "prev" },
    webhookTimestamp: timestamp,
  });
  return {
    body,
    headers: {
      "content-type": "application/json",
      "linear-delivery": `d-${timestamp}`,
      "linear-event": "Issue",
      "linear-signature": hmac(secret, body),
    },
  };
}
