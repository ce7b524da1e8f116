import { and, asc, eq } from "drizzle-orm";
import {
  organizations,
  type PREVENTION_ACTIONS,
  preventionRules,
  securityPolicies,
  SEVERITY_RANK,
  type Db,
  type TRole,
  type TRuleMatch,
  type TSeverity,
} from "@posture/db";
import { audit, firstOr404, iso, type TActor, type TJobQueue } from "@posture/platform";
import { dispatchDeliveries } from "@posture/webhooks";
import { lockOrg } from "./locks";
import { acts, approved, fourEyesColumns, recordRuleChange, widens } from "./prevention-approval";

// Every organization starts with these; ADMIN+ can change or remove them over the API.
const DEFAULT_POLICIES: Array<{ name: string; match: TRuleMatch }> = [
  {
    name: "No public links to sensitive files",
    match: { categories: ["public_exposure"], minSeverity: "CRITICAL" },
  },
  { name: "No external write access", match: { categories: ["external_sharing"], minSeverity: "HIGH" } },
  { name: "Administrators use MFA", match: { categories: ["identity"], minSeverity: "CRITICAL" } },
  { name: "No broad, unvetted AI agents", match: { categories: ["third_party_apps"], minSeverity: "HIGH" } },
  // Issue 30: what everyone inside, and so Copilot or Gemini, can open. HIGH and above is a
  // sensitive file (or a sensitive name) reached organization-wide (docs/decisions.md).
  {
    name: "No organization-wide access to sensitive files",
    match: { categories: ["internal_exposure"], minSeverity: "HIGH" },
  },
];
const DEFAULT_PREVENTION: Array<{ name: string; match: TRuleMatch }> = [
  { name: "Alert on new public links", match: { categories: ["public_exposure"] } },
];

export type TMatchable = { category: string; ruleId: string; severity: TSeverity };

export function matches(rule: TRuleMatch, f: TMatchable): boolean {
  if (rule.categories && rule.categories.length > 0 && !rule.categories.includes(f.category)) return false;
  if (rule.ruleIds && rule.ruleIds.length > 0 && !rule.ruleIds.includes(f.ruleId)) return false;
  if (rule.minSeverity && SEVERITY_RANK[f.severity] < SEVERITY_RANK[rule.minSeverity]) return false;
  return true;
}

/**
 * Creates the default set the first time an organization needs it, and never again: rules an
 * administrator deleted stay deleted. Concurrent first scans serialise on the organization lock.
 */
export async function ensureDefaultRules(db: Db, input: { orgId: string }): Promise<void> {
  const { orgId } = input;
  await db.transaction(async (tx) => {
    await tx.execute(lockOrg(orgId, "default-rules"));
    const [org] = await tx
      .select({ seeded: organizations.defaultRulesSeeded })
      .from(organizations)
      .where(eq(organizations.id, orgId));
    if (!org || org.seeded) return;
    await tx.insert(securityPolicies).values(DEFAULT_POLICIES.map((p) => ({ ...p, orgId })));
    await tx
      .insert(preventionRules)
      .values(DEFAULT_PREVENTION.map((p) => ({ ...p, orgId, action: "ALERT_ONLY" as const })));
    await tx.update(organizations).set({ defaultRulesSeeded: true }).where(eq(organizations.id, orgId));
  });
}

export type TKind = "policy" | "prevention";
const tableOf = (kind: TKind) => (kind === "policy" ? securityPolicies : preventionRules);

export type TRuleView = {
  id: string;
  name: string;
  match: TRuleMatch;
  enabled: boolean;
  action?: string;
  dryRun?: boolean;
  approval?: {
    acting: boolean;
    approved: boolean;
    setBy: string | null;
    approvedBy: string | null;
    approvedAt: string | null;
  };
  createdAt: string;
};

type TRuleRow = {
  id: string;
  name: string;
  match: TRuleMatch;
  enabled: boolean;
  createdAt: Date;
  action?: string;
  dryRun?: boolean;
};
type TPreventionRow = typeof preventionRules.$inferSelect;
const isPrevention = (r: TRuleRow): r is TPreventionRow => "actingSetBy" in r;

export function toView(r: TRuleRow): TRuleView {
  return {
    id: r.id,
    name: r.name,
    match: r.match,
    enabled: r.enabled,
    ...(r.action ? { action: r.action } : {}),
    ...(r.dryRun !== undefined ? { dryRun: r.dryRun } : {}),
    ...(isPrevention(r)
      ? {
          approval: {
            acting: acts(r),
            approved: acts(r) && approved(r),
            setBy: r.actingSetBy?.email ?? null,
            approvedBy: r.approvedBy?.email ?? null,
            approvedAt: r.approvedAt ? iso(r.approvedAt) : null,
          },
        }
      : {}),
    createdAt: iso(r.createdAt),
  };
}

export async function listRules(db: Db, input: { orgId: string; kind: TKind }): Promise<TRuleView[]> {
  const table = tableOf(input.kind);
  const rows = await db
    .select()
    .from(table)
    .where(eq(table.orgId, input.orgId))
    .orderBy(asc(table.createdAt), asc(table.id));
  return rows.map(toView);
}

export type TRuleInput = {
  name: string;
  match: TRuleMatch;
  enabled?: boolean;
  action?: (typeof PREVENTION_ACTIONS)[number];
  /** Prevention rules only: record the plan, never apply it. */
  dryRun?: boolean;
};

type TRuleScope = {
  orgId: string;
  actor: TActor;
  kind: TKind;
  /** The caller's role, for prevention rules' four-eyes record and event. */
  role?: TRole;
  /** Dispatches the prevention rules' events after commit (else the webhook sweep does). */
  jobs?: TJobQueue;
};

const changer = (s: TRuleScope) => ({ orgId: s.orgId, actor: s.actor, role: s.role ?? null });

async function dispatched<R>(scope: TRuleScope, work: Promise<{ result: R; deliveryIds: string[] }>) {
  const { result, deliveryIds } = await work;
  if (scope.jobs) await dispatchDeliveries(scope.jobs, deliveryIds);
  return result;
}

const noun = (kind: TKind) => (kind === "policy" ? "Policy" : "Prevention rule");

// Every change and its audit entry commit together or not at all.
const audited = (tx: Db, scope: TRuleScope, target: string, change: string) =>
  audit(tx, scope, { action: "POLICY_CHANGED", target, metadata: { change, kind: scope.kind } });

export async function createRule(db: Db, input: TRuleScope & TRuleInput): Promise<TRuleView> {
  const values = { orgId: input.orgId, name: input.name, match: input.match, enabled: input.enabled ?? true };
  return dispatched(
    input,
    db.transaction(async (tx) => {
      if (input.kind === "policy") {
        const [row] = await tx.insert(securityPolicies).values(values).returning();
        if (!row) throw new Error("rule insert returned nothing");
        await audited(tx, input, row.id, "created");
        return { result: toView(row), deliveryIds: [] };
      }
      const acting = { ...values, action: input.action ?? "ALERT_ONLY", dryRun: input.dryRun ?? false };
      const [row] = await tx
        .insert(preventionRules)
        .values({ ...acting, ...fourEyesColumns(changer(input), null, acting) })
        .returning();
      if (!row) throw new Error("rule insert returned nothing");
      await audited(tx, input, row.id, "created");
      const deliveryIds = await recordRuleChange(tx, changer(input), row, "created", widens(null, row));
      return { result: toView(row), deliveryIds };
    }),
  );
}

export async function updateRule(
  db: Db,
  input: TRuleScope & { id: string; patch: Partial<TRuleInput> },
): Promise<TRuleView> {
  const { kind, patch } = input;
  const table = tableOf(kind);
  const set = {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.match !== undefined ? { match: patch.match } : {}),
    ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
    ...(kind === "prevention" && patch.action !== undefined ? { action: patch.action } : {}),
    ...(kind === "prevention" && patch.dryRun !== undefined ? { dryRun: patch.dryRun } : {}),
  };
  const where = and(eq(table.orgId, input.orgId), eq(table.id, input.id));
  return dispatched(
    input,
    db.transaction(async (tx) => {
      if (kind === "policy") {
        const row = firstOr404(
          Object.keys(set).length
            ? await tx.update(securityPolicies).set(set).where(where).returning()
            : await tx.select().from(securityPolicies).where(where).limit(1),
          noun(kind),
        );
        await audited(tx, input, input.id, "updated");
        return { result: toView(row), deliveryIds: [] };
      }
      const before = firstOr404(
        await tx
          .select()
          .from(preventionRules)
          .where(and(eq(preventionRules.orgId, input.orgId), eq(preventionRules.id, input.id)))
          .for("update"),
        noun(kind),
      );
      const after = { ...before, ...set };
      const widened = widens(before, after);
      const [row] = Object.keys(set).length
        ? await tx
            .update(preventionRules)
            .set({ ...set, ...fourEyesColumns(changer(input), before, after) })
            .where(eq(preventionRules.id, before.id))
            .returning()
        : [before];
      if (!row) throw new Error("rule update returned nothing");
      await audited(tx, input, input.id, "updated");
      const deliveryIds = await recordRuleChange(tx, changer(input), row, "updated", widened);
      return { result: toView(row), deliveryIds };
    }),
  );
}

export async function deleteRule(db: Db, input: TRuleScope & { id: string }): Promise<void> {
  const table = tableOf(input.kind);
  await dispatched(
    input,
    db.transaction(async (tx) => {
      const where = and(eq(table.orgId, input.orgId), eq(table.id, input.id));
      if (input.kind === "policy") {
        firstOr404(await tx.delete(securityPolicies).where(where).returning(), noun(input.kind));
        await audited(tx, input, input.id, "deleted");
        return { result: undefined, deliveryIds: [] };
      }
      const row = firstOr404(await tx.delete(preventionRules).where(where).returning(), noun(input.kind));
      await audited(tx, input, input.id, "deleted");
      return {
        result: undefined,
        deliveryIds: await recordRuleChange(tx, changer(input), row, "deleted", false),
      };
    }),
  );
}
