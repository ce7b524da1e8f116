import { and, eq, sql } from "drizzle-orm";
import {
  mostSevere,
  preventionRules,
  securityPolicies,
  webhookSubscriptions,
  type Db,
  type TSeverity,
} from "@posture/db";
import { recordEvent, type TEventData, type TEventType } from "@posture/webhooks";
import { matches } from "./policies";
import type { TFindingRef, TPersistResult } from "./scan-persist";

export type TScanEventInput = {
  orgId: string;
  scanId: string;
  connector: { id: string; displayName: string };
  result: TPersistResult;
  publicUrl: string;
};

/** The events built from the findings a scan opened: only they need those findings read. */
const NEEDS_NEW = ["finding.new", "policy.violation", "prevention.triggered", "alert.grouped"] as const;

const findingLink = (base: string, id: string) => `${base}/api/findings/${id}`;

/** Event types someone in the organization subscribes to: nothing is built for nobody. */
async function subscribedTypes(db: Db, orgId: string): Promise<Set<string>> {
  const rows = await db
    .select({ type: sql<string>`unnest(${webhookSubscriptions.events})` })
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.orgId, orgId), eq(webhookSubscriptions.status, "active")));
  return new Set(rows.map((r) => r.type));
}

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/**
 * The spec's six events for one completed scan, recorded in the scan's own transaction (`db` is
 * that transaction): they commit with its results or not at all. Returns the deliveries to
 * dispatch once it has committed.
 */
export async function recordScanEvents(db: Db, input: TScanEventInput): Promise<string[]> {
  const deliveryIds: string[] = [];
  const types = await subscribedTypes(db, input.orgId);
  if (types.size === 0) return deliveryIds;
  const base = input.publicUrl.replace(/\/$/, "");
  const { result } = input;
  const emit = async <T extends TEventType>(type: T, data: TEventData<T>) => {
    deliveryIds.push(...(await recordEvent(db, { orgId: input.orgId, type, data })).deliveryIds);
  };

  if (types.has("scan.completed")) {
    await emit("scan.completed", {
      connectorId: input.connector.id,
      connectorName: input.connector.displayName,
      score: result.postureScore,
      findingsTotal: result.findingsTotal,
      findingsNew: result.newCount,
      link: `${base}/api/connectors/${input.connector.id}/scans/${input.scanId}`,
    });
  }
  const newFindings =
    result.newCount > 0 && NEEDS_NEW.some((t) => types.has(t)) ? await result.newFindings() : [];
  if (types.has("finding.new")) {
    for (const f of newFindings) {
      await emit("finding.new", {
        findingId: f.id,
        severity: f.severity,
        title: f.title,
        resource: f.resourceName,
        link: findingLink(base, f.id),
      });
    }
  }
  if (types.has("finding.resolved") && result.resolvedCount > 0) {
    for (const f of await result.resolvedFindings()) {
      await emit("finding.resolved", {
        findingId: f.id,
        title: f.title,
        link: findingLink(base, f.id),
        action: null,
        remediationId: null,
      });
    }
  }
  if (newFindings.length === 0) return deliveryIds;

  const matched = <R extends { match: Parameters<typeof matches>[0] }>(rules: R[]) =>
    rules.flatMap((r) => {
      const hits = newFindings.filter((f) => matches(r.match, f));
      return hits.length > 0 ? [{ rule: r, hits }] : [];
    });
  if (types.has("policy.violation")) {
    const policies = await db
      .select()
      .from(securityPolicies)
      .where(and(eq(securityPolicies.orgId, input.orgId), eq(securityPolicies.enabled, true)));
    for (const { rule, hits } of matched(policies)) {
      await emit("policy.violation", { ruleId: rule.id, severity: severityOf(hits), count: hits.length });
    }
  }
  if (types.has("prevention.triggered")) {
    // Rules that act (remove a link, revoke a grant…) announce themselves once their remediation
    // exists, with its id: the scan pipeline's prevention stage (@posture/remediation) does.
    const rules = await db
      .select()
      .from(preventionRules)
      .where(
        and(
          eq(preventionRules.orgId, input.orgId),
          eq(preventionRules.enabled, true),
          eq(preventionRules.action, "ALERT_ONLY"),
        ),
      );
    for (const { rule, hits } of matched(rules)) {
      await emit("prevention.triggered", {
        ruleId: rule.id,
        action: rule.action,
        count: hits.length,
        severity: severityOf(hits),
        remediationId: null,
        outcome: null,
      });
    }
  }
  if (types.has("alert.grouped")) {
    for (const [category, hits] of groupBy(newFindings, (f) => f.category)) {
      await emit("alert.grouped", {
        category,
        severity: severityOf(hits),
        count: hits.length,
        title: `${hits.length} new ${category.replace(/_/g, " ")} finding${hits.length === 1 ? "" : "s"} on ${input.connector.displayName}`,
        link: `${base}/api/findings?category=${encodeURIComponent(category)}`,
      });
    }
  }
  return deliveryIds;
}

const severityOf = (hits: TFindingRef[]): TSeverity => mostSevere(hits.map((h) => h.severity));
