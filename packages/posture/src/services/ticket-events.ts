import { createHmac, timingSafeEqual } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { findings, ticketingIntegrations, tickets, type Db } from "@posture/db";
import {
  AppError,
  audit,
  decryptSecret,
  SYSTEM_ACTOR,
  type TJobQueue,
  type TRuntime,
} from "@posture/platform";
import { dispatchDeliveries, recordEvent } from "@posture/webhooks";

/** How old a Linear delivery may be (its `webhookTimestamp`, ms since the epoch) before it is refused. */
export const LINEAR_MAX_AGE_MS = 60_000;

type TProvider = "jira" | "github" | "linear";
export type TTrackerState = "done" | "declined" | "reopened";
type THeaders = Record<string, string | string[] | undefined>;

const header = (h: THeaders, name: string): string | undefined => {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

const hmacHex = (secret: string, body: Buffer) => createHmac("sha256", secret).update(body).digest("hex");

function sameHex(given: string | undefined, expected: string): boolean {
  if (!given || !/^[0-9a-f]+$/i.test(given) || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given.toLowerCase(), "hex"), Buffer.from(expected, "hex"));
}

/**
 * Each tracker's own signature over the raw body (never the re-serialised JSON):
 * - Jira Cloud admin webhooks with a secret: `X-Hub-Signature: sha256=<hex HMAC-SHA256>` (WebSub
 *   method=signature), https://developer.atlassian.com/cloud/jira/platform/webhooks/#secure-admin-webhooks
 * - GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256>`,
 *   https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries
 * - Linear: `Linear-Signature: <hex HMAC-SHA256>`, and the body's `webhookTimestamp` within a
 *   minute of now (replays), https://linear.app/developers/webhooks#securing-webhooks
 */
export function signatureValid(
  provider: TProvider,
  secret: string,
  headers: THeaders,
  raw: Buffer,
  now = Date.now(),
): boolean {
  const expected = hmacHex(secret, raw);
  if (provider === "jira")
    return sameHex(header(headers, "x-hub-signature")?.replace(/^sha256=/, ""), expected);
  if (provider === "github") {
    const given = header(headers, "x-hub-signature-256");
    return Boolean(given?.startsWith("sha256=")) && sameHex(given?.slice(7), expected);
  }
  if (!sameHex(header(headers, "linear-signature"), expected)) return false;
  const ts = (parse(raw) as { webhookTimestamp?: unknown } | null)?.webhookTimestamp;
  return typeof ts === "number" && Math.abs(now - ts) <= LINEAR_MAX_AGE_MS;
}

function parse(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    return null;
  }
}

type TTrackerChange = { externalId: string; state: TTrackerState } | null;

// Jira resolutions that mean "not going to fix": the finding becomes an accepted risk.
const DECLINED_RESOLUTIONS = new Set(["won't do", "won't fix", "declined", "duplicate", "cannot reproduce"]);

/** What a delivery says about one issue, per the trackers' payloads; null: nothing to act on. */
export function trackerChange(provider: TProvider, headers: THeaders, body: unknown): TTrackerChange {
  const b = (body ?? {}) as Record<string, unknown>;
  if (provider === "jira") {
    // jira:issue_updated: issue.key, fields.status.statusCategory.key ("done" | "indeterminate" | "new"), fields.resolution.
    const issue = b.issue as
      | {
          key?: string;
          fields?: { status?: { statusCategory?: { key?: string } }; resolution?: { name?: string } | null };
        }
      | undefined;
    if (b.webhookEvent !== "jira:issue_updated" || !issue?.key) return null;
    const category = issue.fields?.status?.statusCategory?.key;
    const resolution = issue.fields?.resolution?.name?.toLowerCase();
    if (category === "done") {
      return {
        externalId: issue.key,
        state: resolution && DECLINED_RESOLUTIONS.has(resolution) ? "declined" : "done",
      };
    }
    return { externalId: issue.key, state: "reopened" };
  }
  if (provider === "github") {
    // X-GitHub-Event: issues; action "closed" (state_reason "completed" | "not_planned") or "reopened".
    const issue = b.issue as { number?: number; state_reason?: string | null } | undefined;
    const repo = (b.repository as { full_name?: string } | undefined)?.full_name;
    if (header(headers, "x-github-event") !== "issues" || !issue?.number || !repo) return null;
    const externalId = `${repo}#${issue.number}`;
    if (b.action === "closed")
      return { externalId, state: issue.state_reason === "not_planned" ? "declined" : "done" };
    if (b.action === "reopened") return { externalId, state: "reopened" };
    return null;
  }
  // Linear: type "Issue", action "update", data.identifier (SEC-1), data.state.type
  // ("completed" | "canceled" | "started" | "unstarted" | "backlog" | "triage").
  const data = b.data as { identifier?: string; state?: { type?: string } } | undefined;
  if (b.type !== "Issue" || b.action !== "update" || !data?.identifier) return null;
  const type = data.state?.type;
  if (type === "completed") return { externalId: data.identifier, state: "done" };
  if (type === "canceled") return { externalId: data.identifier, state: "declined" };
  return { externalId: data.identifier, state: "reopened" };
}

/** The finding's status after the tracker's state: declined → ACCEPTED, reopened → OPEN, done → unchanged (flagged). */
function nextStatus(current: "OPEN" | "RESOLVED" | "ACCEPTED", state: TTrackerState) {
  if (state === "declined") return current === "RESOLVED" ? current : "ACCEPTED";
  if (state === "reopened") return current === "ACCEPTED" ? "OPEN" : current;
  return current;
}

export type TTicketEventResult = {
  received: true;
  applied: boolean;
  findingId: string | null;
  trackerState: TTrackerState | null;
  findingStatus: "OPEN" | "RESOLVED" | "ACCEPTED" | null;
};

/**
 * POST /api/integrations/ticketing/events/{hookId}: a tracker's signed webhook. 404 for an
 * unknown hook, 401 when unsigned or wrongly signed; a signed delivery about an issue that is
 * not one of our tickets, or a change we do not act on, is 200 `applied: false` (the tracker
 * would otherwise retry it). The finding's change, its audit row and its event commit together.
 */
export async function receiveTicketEvent(
  db: Db,
  input: { hookId: string; headers: THeaders; rawBody: Buffer; now?: number },
  deps: { runtime: TRuntime; jobs: TJobQueue },
): Promise<TTicketEventResult> {
  const [integration] = await db
    .select()
    .from(ticketingIntegrations)
    .where(eq(ticketingIntegrations.hookId, input.hookId))
    .limit(1);
  if (!integration?.webhookSecretEnc) throw new AppError("not_found", "Unknown ticketing webhook");
  const secret = decryptSecret(deps.runtime.encryptionKey, integration.webhookSecretEnc);
  if (!signatureValid(integration.provider, secret, input.headers, input.rawBody, input.now)) {
    throw new AppError("unauthenticated", "The webhook is not signed with this integration's secret");
  }
  const none: TTicketEventResult = {
    received: true,
    applied: false,
    findingId: null,
    trackerState: null,
    findingStatus: null,
  };
  const change = trackerChange(integration.provider, input.headers, parse(input.rawBody));
  if (!change) return none;
  const orgId = integration.orgId;
  const result = await db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        ticketId: tickets.id,
        ticketStatus: tickets.status,
        findingId: findings.id,
        title: findings.title,
        status: findings.status,
      })
      .from(tickets)
      .innerJoin(findings, eq(findings.id, tickets.findingId))
      .where(
        and(
          eq(tickets.orgId, orgId),
          eq(tickets.provider, integration.provider),
          eq(tickets.externalId, change.externalId),
        ),
      )
      .for("update")
      .limit(1);
    if (!row) return { ...none, deliveryIds: [] as string[] };
    const status = nextStatus(row.status, change.state);
    const ticketStatus = change.state === "reopened" ? "reopened" : `closed:${change.state}`;
    // Jira sends issue_updated for every edit: an open issue edited again, or a closed one
    // re-sent, changes nothing and records nothing.
    const wasOpen = !row.ticketStatus.startsWith("closed:");
    if (
      status === row.status &&
      (ticketStatus === row.ticketStatus || (change.state === "reopened" && wasOpen))
    ) {
      return { ...none, deliveryIds: [] as string[] };
    }
    await tx.update(tickets).set({ status: ticketStatus }).where(eq(tickets.id, row.ticketId));
    if (status !== row.status) {
      await tx
        .update(findings)
        .set({ status, ...(status === "OPEN" ? { resolvedAt: null, resolvedBy: null } : {}) })
        .where(eq(findings.id, row.findingId));
    }
    const scope = { orgId, actor: { ...SYSTEM_ACTOR, email: `tracker:${integration.provider}` } };
    await audit(tx, scope, {
      action: "TICKET_UPDATED_BY_TRACKER",
      target: row.findingId,
      metadata: {
        provider: integration.provider,
        externalId: change.externalId,
        trackerState: change.state,
        from: row.status,
        to: status,
      },
    });
    const { deliveryIds } = await recordEvent(tx, {
      orgId,
      type: "finding.ticket.updated",
      data: {
        findingId: row.findingId,
        title: row.title,
        link: `${deps.runtime.publicUrl.replace(/\/$/, "")}/api/findings/${row.findingId}`,
        provider: integration.provider,
        externalId: change.externalId,
        trackerState: change.state,
        findingStatus: status,
      },
    });
    return {
      received: true as const,
      applied: true,
      findingId: row.findingId,
      trackerState: change.state,
      findingStatus: status,
      deliveryIds,
    };
  });
  const { deliveryIds, ...out } = result;
  await dispatchDeliveries(deps.jobs, deliveryIds);
  return out;
}
