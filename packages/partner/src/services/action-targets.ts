import { sql } from "drizzle-orm";
import { arrayLiteral, queryRows, type Db } from "@posture/db";
import type { TActRefusal, TActTarget } from "../act-once";

// What one partner action changes in each client: the campaign's or the drift's subject mapped to
// that client's own resources, read set-based for every client at once (one query per kind).

/** Per client: what to plan, or why nothing is planned there. */
export type TClientTarget = { target: TActTarget } | { refusal: TActRefusal };

export type TCampaignSource = { kind: string; subject: string };
export type TDriftRule = { clientOrgId: string; rule: string };

const notRemediable = (message: string): TClientTarget => ({ refusal: { code: "not_remediable", message } });
const nothingToDo = (message: string): TClientTarget => ({ refusal: { code: "nothing_to_do", message } });

/** Each client's grants of one app (its OAuth client key, the radar's subject). */
async function appsOf(db: Db, clientOrgIds: readonly string[], subject: string) {
  const rows = await queryRows<{ org_id: string; connector_id: string; client_key: string }>(
    db,
    sql`SELECT DISTINCT org_id, connector_id, COALESCE(NULLIF(client_id, ''), external_id) AS client_key
        FROM oauth_grants
        WHERE org_id = ANY(${arrayLiteral(clientOrgIds)}::text[])
          AND (client_id = ${subject} OR (client_id = '' AND external_id = ${subject}))`,
  );
  const byClient = new Map<string, Array<{ connectorId: string; clientKey: string }>>();
  for (const r of rows) {
    const list = byClient.get(r.org_id) ?? [];
    list.push({ connectorId: r.connector_id, clientKey: r.client_key });
    byClient.set(r.org_id, list);
  }
  return byClient;
}

/**
 * Each client's sharing items that reach one of `domains` (outside users or the whole domain),
 * by client and domain. Items under an active sharing approval are the client's own exception and
 * are left alone.
 */
async function sharesTo(db: Db, clientOrgIds: readonly string[], domains: readonly string[]) {
  const rows = await queryRows<{ org_id: string; id: string; domain: string }>(
    db,
    sql`SELECT s.org_id, s.id, d.domain
        FROM workspace_shares s
        CROSS JOIN LATERAL unnest(s.target_domains) AS d(domain)
        WHERE s.org_id = ANY(${arrayLiteral(clientOrgIds)}::text[])
          AND s.sharing_type IN ('external_user', 'external_domain')
          AND lower(d.domain) = ANY(${arrayLiteral(domains.map((x) => x.toLowerCase()))}::text[])
          AND (s.approved_until IS NULL OR s.approved_until <= now())`,
  );
  const byClient = new Map<string, Map<string, string[]>>();
  for (const r of rows) {
    const perDomain = byClient.get(r.org_id) ?? new Map<string, string[]>();
    const ids = perDomain.get(r.domain.toLowerCase()) ?? [];
    ids.push(r.id);
    perDomain.set(r.domain.toLowerCase(), ids);
    byClient.set(r.org_id, perDomain);
  }
  return byClient;
}

const unique = (ids: string[]) => [...new Set(ids)].sort();

/** A campaign in each client: the app's grants, the shares to the domain; anomalies are not remediable. */
export async function campaignTargets(
  db: Db,
  campaign: TCampaignSource,
  clientOrgIds: readonly string[],
): Promise<Map<string, TClientTarget>> {
  const out = new Map<string, TClientTarget>();
  if (campaign.kind === "oauth_app" || campaign.kind === "ai_agent") {
    const apps = await appsOf(db, clientOrgIds, campaign.subject);
    for (const id of clientOrgIds) {
      const list = apps.get(id);
      out.set(
        id,
        list?.length
          ? { target: { apps: list } }
          : nothingToDo(`No grant of ${campaign.subject} is left in this client`),
      );
    }
  } else if (campaign.kind === "outside_domain") {
    const shares = await sharesTo(db, clientOrgIds, [campaign.subject]);
    for (const id of clientOrgIds) {
      const ids = [...(shares.get(id)?.values() ?? [])].flat();
      out.set(
        id,
        ids.length
          ? { target: { shareIds: unique(ids) } }
          : nothingToDo(`No outside share to ${campaign.subject} is left in this client`),
      );
    }
  } else {
    for (const id of clientOrgIds)
      out.set(
        id,
        notRemediable(
          "An anomaly is behaviour, not access: investigate it in the client's behaviour analytics; no change at the source undoes it",
        ),
      );
  }
  return out;
}

/** Why a drift rule no remediation fixes is left to the client's settings. */
function ruleReason(rule: string): string {
  if (rule.startsWith("policy:") || rule.startsWith("prevention:"))
    return "Policies and prevention rules are the client's settings: apply the standard's rules there";
  if (rule === "min_score")
    return "A score below the standard's minimum has no single fix: plan the client's quick wins";
  return `No remediation action fixes ${rule}`;
}

/**
 * A standard's open drift in each client: a `trusted_domain:<d>` rule whose domain the standard
 * does not trust is remediable (the client's outside shares to that domain go); every other rule is
 * a setting the client changes, given as the reason.
 */
export async function driftTargets(
  db: Db,
  standard: { trustedDomains: readonly string[] },
  drift: readonly TDriftRule[],
  clientOrgIds: readonly string[],
): Promise<Map<string, TClientTarget>> {
  const trusted = new Set(standard.trustedDomains.map((d) => d.toLowerCase()));
  const rulesOf = new Map<string, string[]>();
  for (const d of drift) rulesOf.set(d.clientOrgId, [...(rulesOf.get(d.clientOrgId) ?? []), d.rule]);
  const untrusted = (rule: string) => {
    if (!rule.startsWith("trusted_domain:")) return null;
    const domain = rule.slice("trusted_domain:".length).toLowerCase();
    return trusted.has(domain) ? null : domain;
  };
  const domains = unique(drift.map((d) => untrusted(d.rule)).filter((d): d is string => d !== null));
  const shares = domains.length ? await sharesTo(db, clientOrgIds, domains) : new Map();
  const out = new Map<string, TClientTarget>();
  for (const id of clientOrgIds) {
    const rules = rulesOf.get(id) ?? [];
    const mine = rules.map(untrusted).filter((d): d is string => d !== null);
    if (mine.length === 0) {
      const first = rules[0];
      out.set(
        id,
        first === undefined
          ? nothingToDo("This client does not drift from the standard")
          : notRemediable(ruleReason(first)),
      );
      continue;
    }
    const perDomain = shares.get(id);
    const ids = mine.flatMap((d) => perDomain?.get(d) ?? []);
    out.set(
      id,
      ids.length
        ? { target: { shareIds: unique(ids) } }
        : nothingToDo(`No outside share to ${mine.join(", ")} is left in this client`),
    );
  }
  return out;
}
