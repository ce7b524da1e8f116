import { and, asc, eq } from "drizzle-orm";
import {
  organizations,
  preventionRules,
  securityPolicies,
  type Db,
  type TRuleMatch,
  type TSeverity,
} from "@posture/db";
import { notFound, recordAudit, type TPrincipal } from "@posture/platform";
import { lockOrg } from "./locks";
import { SEVERITY_RANK } from "./severity";

// Every organization starts with these; ADMIN+ can change or remove them over the API.
const DEFAULT_POLICIES: Array<{ name: string; match: TRuleMatch }> = [
  {
    name: "No public links to sensitive files",
    match: { categories: ["public_exposure"], minSeverity: "CRITICAL" },
  },
  { name: "No external write access", match: { categories: ["external_sharing"], minSeverity: "HIGH" } },
  { name: "Administrators use MFA", match: { categories: ["identity"], minSeverity: "CRITICAL" } },
  { name: "No broad, unvetted AI agents", match: { categories: ["third_party_apps"], minSeverity: "HIGH" } },
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
export async function ensureDefaultRules(db: Db, orgId: string): Promise<void> {
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

type TKind = "policy" | "prevention";
const tableOf = (kind: TKind) => (kind === "policy" ? securityPolicies : preventionRules);

export type TRuleView = {
  id: string;
  name: string;
  match: TRuleMatch;
  enabled: boolean;
  action?: string;
  createdAt: string;
};

function toView(r: {
  id: string;
  name: string;
  match: TRuleMatch;
  enabled: boolean;
  createdAt: Date;
  action?: string;
}): TRuleView {
  return {
    id: r.id,
    name: r.name,
    match: r.match,
    enabled: r.enabled,
    ...(r.action ? { action: r.action } : {}),
    createdAt: r.createdAt.toISOString(),
  };
}

export async function listRules(db: Db, kind: TKind, orgId: string): Promise<TRuleView[]> {
  const table = tableOf(kind);
  const rows = await db
    .select()
    .from(table)
    .where(eq(table.orgId, orgId))
    .orderBy(asc(table.createdAt), asc(table.id));
  return rows.map(toView);
}

export type TRuleInput = { name: string; match: TRuleMatch; enabled?: boolean; action?: "ALERT_ONLY" };

async function audit(db: Db, principal: TPrincipal, target: string, change: string) {
  await recordAudit(db, {
    orgId: principal.org.id,
    action: "POLICY_CHANGED",
    target,
    userId: principal.userId,
    userEmail: principal.userEmail,
    metadata: { change },
  });
}

export async function createRule(
  db: Db,
  kind: TKind,
  principal: TPrincipal,
  input: TRuleInput,
): Promise<TRuleView> {
  const values = {
    orgId: principal.org.id,
    name: input.name,
    match: input.match,
    enabled: input.enabled ?? true,
  };
  const [row] =
    kind === "policy"
      ? await db.insert(securityPolicies).values(values).returning()
      : await db
          .insert(preventionRules)
          .values({ ...values, action: input.action ?? "ALERT_ONLY" })
          .returning();
  if (!row) throw new Error("rule insert returned nothing");
  await audit(db, principal, row.id, "created");
  return toView(row);
}

export async function updateRule(
  db: Db,
  kind: TKind,
  principal: TPrincipal,
  id: string,
  patch: Partial<TRuleInput>,
): Promise<TRuleView> {
  const table = tableOf(kind);
  const set = {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.match !== undefined ? { match: patch.match } : {}),
    ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
    ...(kind === "prevention" && patch.action !== undefined ? { action: patch.action } : {}),
  };
  const where = and(eq(table.orgId, principal.org.id), eq(table.id, id));
  const [row] = Object.keys(set).length
    ? await db.update(table).set(set).where(where).returning()
    : await db.select().from(table).where(where).limit(1);
  if (!row) throw notFound(kind === "policy" ? "Policy" : "Prevention rule");
  await audit(db, principal, id, "updated");
  return toView(row);
}

export async function deleteRule(db: Db, kind: TKind, principal: TPrincipal, id: string): Promise<void> {
  const table = tableOf(kind);
  const deleted = await db
    .delete(table)
    .where(and(eq(table.orgId, principal.org.id), eq(table.id, id)))
    .returning({ id: table.id });
  if (deleted.length === 0) throw notFound(kind === "policy" ? "Policy" : "Prevention rule");
  await audit(db, principal, id, "deleted");
}
