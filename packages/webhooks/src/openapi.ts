import { z } from "zod";
import { EVENT_DATA_SCHEMAS, type TEventType } from "./event-types";
import type { TSignedHeaders } from "./signing";

/** What each event means, for the OpenAPI document's `webhooks` (receivers ignore unknown events). */
const EVENT_SUMMARIES: Record<TEventType, string> = {
  "scan.completed": "A scan of a source completed",
  "finding.new": "A scan found a new finding",
  "finding.resolved": "A finding is no longer detected",
  "finding.ticket.updated":
    "A ticket was closed (done or declined) or reopened in the tracker, and its finding followed (declined: ACCEPTED; reopened: OPEN; done: stays OPEN until a scan confirms)",
  "policy.violation": "A policy matched findings of a scan",
  "prevention.triggered": "A prevention rule fired on a scan",
  "alert.grouped": "Several new findings of one category, grouped into one alert",
  "partner.report.ready": "A scheduled portfolio report of a partner is ready to download",
  "client.unhealthy":
    "A managed organization's source turned unhealthy, or its score dropped 10 points or more",
  "anomaly.detected": "Behaviour analytics detected an anomaly",
  "incident.created": "An incident was opened",
  "incident.updated": "An incident changed (status, priority, assignee, note or post-mortem)",
  "incident.deadline.approaching":
    "A running regulatory clock of an incident is close to its deadline (GDPR: 24 h before, HIPAA: 7 days before); once per incident and regulation",
  "remediation.planned":
    "A remediation was planned: its steps, the findings it fixes, the score now and as predicted once applied",
  "remediation.applied":
    "A remediation's apply finished: every step applied or already gone (APPLIED), or some failed (PARTIAL)",
  "remediation.failed": "A remediation's apply failed: no step could be applied at the source",
  "remediation.reverted":
    "A remediation was undone: its reversible applied steps were restored at the source",
  "remediation.settings.changed":
    "Remediation settings changed (who, what, and whether a control was loosened: `weakened`; only an OWNER, signed in, may loosen one while four eyes is on)",
  "remediation.undo.requested":
    "With four eyes on, one person asked to undo a remediation; it starts when a different administrator asks too",
  "remediation.reverting":
    "An undo started: the person who asked and the one who confirmed it (null with four eyes off)",
  "remediation.undo.failed":
    "An undo put nothing back at the source (every restore refused): the remediation is APPLIED or PARTIAL again",
  "prevention.rule.changed":
    "A prevention rule was created, changed, deleted or approved: whether it acts, whether the change widened it, and its four-eyes approval",
  "webhook.test":
    "A test delivery asked for with POST /api/webhooks/{id}/test: sent to that subscription only, whatever events it subscribed to",
  "partner.access.changed": "A managed client withdrew its partner's access, or granted it again",
  "partner.drift.detected": "A managed client departed from a rule of a standard assigned to it",
  "portfolio.campaign.detected":
    "The cross-client radar found one app, agent, outside domain or anomaly kind in several clients at once",
  "portfolio.campaign.updated": "A cross-client campaign reached more clients, or its severity rose",
};

// One description per header the deliveries send: a header added to signedHeaders and not
// documented here is a type error.
const HEADERS: Record<keyof TSignedHeaders, string> = {
  "X-Service-Signature":
    "`sha256=<hex>`: HMAC-SHA256 of the raw body, keyed with the subscription's whole secret. During a secret " +
    "rotation's overlap window, two space-separated values, `sha256=<new> sha256=<previous>`: accept the message " +
    "when any one of them matches",
  "X-Service-Event": "The event type, as in the body",
  "X-Service-Delivery": "The delivery id; a redelivery of the same delivery repeats it",
  "webhook-id": "Standard Webhooks: the event id (dedupe on it)",
  "webhook-timestamp": "Standard Webhooks: Unix seconds of this attempt",
  "webhook-signature":
    "Standard Webhooks: `v1,<base64>` over `<webhook-id>.<webhook-timestamp>.<body>`; during a secret rotation's " +
    "overlap window two space-separated entries, the new secret's first",
};

const DELIVERY_RULES =
  "POSTed as JSON `{event, data, id, createdAt}` to every active subscription that asked for the event. " +
  "Answer 2xx within 10 s; anything else (or no answer) is retried with jittered back-off for about 3 days, " +
  "so deliveries are at least once: dedupe on `id`. 410 Gone disables the subscription. Redirects are not followed. " +
  "An event is recorded in the same transaction as the change it announces, so none is lost to a crash. " +
  "`link`, where an event has one, is a URL of this API answering with the thing the event names " +
  "(a scan, a finding, a category's findings, an anomaly, an incident, a remediation, a report, a client), to the organization's API key. " +
  "A partner's subscription with `includeClients` also receives its managed clients' events while each client's consent stands; " +
  "their body adds `client: {orgId, name}` (the client's name at delivery time).";

/** OpenAPI 3.1 `webhooks`: one entry per event type, its body built from the event's own schema. */
export function webhookDocuments(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [type, schema] of Object.entries(EVENT_DATA_SCHEMAS) as Array<[TEventType, z.ZodType]>) {
    out[type] = {
      post: {
        operationId: `webhook-${type}`,
        summary: EVENT_SUMMARIES[type],
        description: DELIVERY_RULES,
        tags: ["webhooks"],
        parameters: Object.entries(HEADERS).map(([name, description]) => ({
          in: "header",
          name,
          required: true,
          description,
          schema: { type: "string" },
        })),
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  event: { type: "string", const: type },
                  data: z.toJSONSchema(schema, { target: "draft-2020-12", io: "output" }),
                  id: { type: "string", description: "The event id: the same on every attempt" },
                  createdAt: { type: "string", format: "date-time" },
                  client: {
                    type: "object",
                    description:
                      "Only on a managed client's event delivered to its partner's includeClients subscription",
                    properties: { orgId: { type: "string" }, name: { type: "string" } },
                    required: ["orgId", "name"],
                  },
                },
                required: ["event", "data", "id", "createdAt"],
              },
            },
          },
        },
        responses: {
          "200": { description: "Received (any 2xx)" },
          "410": { description: "Gone: the subscription is disabled and nothing more is sent to it" },
        },
      },
    };
  }
  return out;
}
