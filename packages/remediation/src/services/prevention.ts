import { and, eq, ne, sql } from "drizzle-orm";
import type { TPermission } from "@posture/connectors";
import {
  arrayLiteral,
  connectors,
  mostSevere,
  organizations,
  preventionRules,
  queryRows,
  remediations,
  remediationSteps,
  SEVERITY_RANK,
  type Db,
  type TRemediationAction,
  type TRemediationActor,
  type TRemediationResource,
  type TRuleMatch,
  type TSeverity,
} from "@posture/db";
import { SYSTEM_ACTOR, type TJobQueue, type TRuntime, audit } from "@posture/platform";
import { computeOrgPosture } from "@posture/posture";
import { applyJobId, REMEDIATION_APPLY_JOB } from "./apply";
import { recordRemediationEvent } from "./record";
import { writerFor as defaultWriterFor, type TWriterFor } from "./writer";

// Prevention rules that act (issue 19): after a scan wrote its findings, each enabled rule with an
// acting action plans a remediation over the new findings it matches and the action can fix. Under
// the organization's cap on changes per scan it is approved by the system and applied; beyond the
// cap it waits for an administrator's approval; a rule in dry run only records its plan. All of it
// happens in the scan's own transaction (the plan, its audit and `prevention.triggered` commit with
// the findings); the apply jobs are queued once it committed (`startPreventionApplies`).

export type TPreventionAction = "REVOKE_PUBLIC_LINK" | "REMOVE_EXTERNAL_ACCESS" | "REVOKE_OAUTH_GRANT";

type TNewFinding = {
  id: string;
  rule_id: string;
  category: string;
  severity: TSeverity;
  title: string;
  resource_id: string;
  resource_name: string;
  resource_type: string;
  details: Record<string, unknown>;
};

/** The steps a plan is made of, as remediation_steps rows want them (before ids and statuses). */
export type TStepDraft = {
  connectorId: string;
  action: TRemediationAction;
  resource: TRemediationResource;
  before: Record<string, unknown>;
  after: Record<string, unknown> | null;
  reversible: boolean;
  irreversibleReason: string | null;
  findingIds: string[];
  people: string[];
};

/** The same matching as posture's policies.ts `matches` (a remediation may not import posture's internals). */
function matches(rule: TRuleMatch, f: { category: string; rule_id: string; severity: TSeverity }): boolean {
  if (rule.categories?.length && !rule.categories.includes(f.category)) return false;
  if (rule.ruleIds?.length && !rule.ruleIds.includes(f.rule_id)) return false;
  if (rule.minSeverity && SEVERITY_RANK[f.severity] < SEVERITY_RANK[rule.minSeverity]) return false;
  return true;
}

/** Which findings an action can fix at the source. */
const FIXES: Record<TPreventionAction, (f: TNewFinding) => boolean> = {
  REVOKE_PUBLIC_LINK: (f) => f.rule_id === "public_link",
  REMOVE_EXTERNAL_ACCESS: (f) => f.rule_id === "external_share",
  REVOKE_OAUTH_GRANT: (f) => f.resource_type === "app",
};

const str = (v: unknown) => (typeof v === "string" ? v : "");

/**
 * The steps that carry out one action over findings of one connector: each public link, each
 * outside grant on the file (as the store holds them), each user's grant to the app.
 */
export async function buildPreventionSteps(
  tx: Db,
  input: { connectorId: string; action: TPreventionAction; findings: readonly TNewFinding[] },
  reversibility: (
    action: TRemediationAction,
    permission?: TPermission,
  ) => { reversible: boolean; reason?: string },
): Promise<TStepDraft[]> {
  const steps: TStepDraft[] = [];
  const rev = (action: TRemediationAction, permission?: TPermission) => {
    const r = reversibility(action, permission);
    return { reversible: r.reversible, irreversibleReason: r.reversible ? null : (r.reason ?? null) };
  };
  for (const f of input.findings) {
    const d = f.details;
    const file = {
      fileId: f.resource_id,
      driveId: typeof d.driveId === "string" ? d.driveId : null,
      name: f.resource_name,
      ownerEmail: str(d.ownerEmail),
    };
    if (input.action === "REVOKE_PUBLIC_LINK") {
      const ids = Array.isArray(d.permissionIds) ? d.permissionIds.map(String) : [];
      for (const permissionId of ids) {
        const permission: TPermission = {
          id: permissionId,
          type: "anyone",
          role: (str(d.role) || "reader") as TPermission["role"],
        };
        steps.push({
          connectorId: input.connectorId,
          action: "remove_public_link",
          resource: { kind: "permission", ...file, permissionId },
          before: { type: "anyone", role: permission.role, target: "anyone" },
          after: null,
          ...rev("remove_public_link", permission),
          findingIds: [f.id],
          people: [],
        });
      }
    } else if (input.action === "REMOVE_EXTERNAL_ACCESS") {
      const stored = await queryRows<{
        external_id: string;
        sharing_type: string;
        target: string;
        role: string;
      }>(
        tx,
        sql`SELECT p.external_id, p.sharing_type, p.target, p.role FROM workspace_permissions p
            JOIN workspace_files w ON w.id = p.file_id AND w.connector_id = p.connector_id
            WHERE p.connector_id = ${input.connectorId} AND w.external_id = ${f.resource_id}
              AND p.sharing_type IN ('external_user', 'external_domain') ORDER BY p.external_id`,
      );
      const targets =
        stored.length > 0
          ? stored.map((p) => ({
              permissionId: p.external_id,
              domainWide: p.sharing_type === "external_domain",
              target: p.target,
              role: p.role,
            }))
          : (Array.isArray(d.targets) ? (d.targets as Array<Record<string, unknown>>) : []).map((t) => ({
              permissionId: str(t.permissionId),
              domainWide: t.type === "domain",
              target: str(t.target),
              role: str(t.role),
            }));
      for (const t of targets) {
        const action: TRemediationAction = t.domainWide ? "remove_external_domain" : "remove_external_user";
        const permission: TPermission = t.domainWide
          ? { id: t.permissionId, type: "domain", role: t.role as TPermission["role"], domain: t.target }
          : { id: t.permissionId, type: "user", role: t.role as TPermission["role"], emailAddress: t.target };
        steps.push({
          connectorId: input.connectorId,
          action,
          resource: { kind: "permission", ...file, permissionId: t.permissionId },
          before: { type: permission.type, role: t.role, target: t.target },
          after: null,
          ...rev(action, permission),
          findingIds: [f.id],
          people: t.domainWide ? [] : [t.target],
        });
      }
    } else {
      const grants = await queryRows<{
        external_id: string;
        client_id: string;
        label: string;
        user_email: string;
        scopes: string[];
      }>(
        tx,
        sql`SELECT external_id, client_id, label, user_email, scopes FROM oauth_grants
            WHERE connector_id = ${input.connectorId} AND client_id = ${f.resource_id} ORDER BY external_id`,
      );
      for (const g of grants) {
        steps.push({
          connectorId: input.connectorId,
          action: "revoke_oauth_grant",
          resource: {
            kind: "grant",
            grantId: g.external_id,
            clientId: g.client_id,
            label: g.label,
            userEmail: g.user_email,
          },
          before: { clientId: g.client_id, label: g.label, userEmail: g.user_email, scopes: g.scopes },
          after: null,
          ...rev("revoke_oauth_grant"),
          findingIds: [f.id],
          people: [g.user_email],
        });
      }
    }
  }
  return steps;
}

/** The posture engine's score after the findings resolve: computed in a savepoint rolled back. */
async function predict(tx: Db, orgId: string, findingIds: readonly string[]) {
  const before = await computeOrgPosture(tx, { orgId });
  let after = before;
  const rollback = new Error("prediction only");
  await tx
    .transaction(async (sp) => {
      await sp.execute(
        sql`UPDATE findings SET status = 'RESOLVED' WHERE org_id = ${orgId} AND id = ANY(${arrayLiteral(findingIds)}::text[])`,
      );
      after = await computeOrgPosture(sp as unknown as Db, { orgId });
      throw rollback;
    })
    .catch((err: unknown) => {
      if (err !== rollback) throw err;
    });
  return {
    before: { score: before.score, grade: before.grade },
    score: after.score,
    grade: after.grade,
    scoreDelta: after.score - before.score,
  };
}

/** Writes a plan (the remediation and its steps, PENDING). */
export async function insertPlan(
  tx: Db,
  input: {
    orgId: string;
    origin: "prevention" | "manual" | "quick_win";
    preventionRuleId?: string | null;
    dryRun?: boolean;
    request: Record<string, unknown>;
    predicted: Record<string, unknown>;
    plannedBy: TRemediationActor;
    steps: readonly TStepDraft[];
  },
): Promise<string> {
  const [rem] = await tx
    .insert(remediations)
    .values({
      orgId: input.orgId,
      origin: input.origin,
      preventionRuleId: input.preventionRuleId ?? null,
      dryRun: input.dryRun ?? false,
      request: input.request,
      predicted: input.predicted,
      plannedBy: input.plannedBy,
      stepTotal: input.steps.length,
      stepCounts: { PENDING: input.steps.length },
    })
    .returning({ id: remediations.id });
  if (!rem) throw new Error("remediation insert returned nothing");
  for (let i = 0; i < input.steps.length; i += 500)
    await tx
      .insert(remediationSteps)
      .values(
        input.steps
          .slice(i, i + 500)
          .map((s, j) => ({ ...s, remediationId: rem.id, orgId: input.orgId, seq: i + j + 1 })),
      );
  return rem.id;
}

export type TPreventionResult = {
  /** Deliveries recorded in the scan's transaction, to dispatch after it commits. */
  deliveryIds: string[];
  /** Remediations moved to APPLYING, whose jobs are queued after the commit. */
  applying: string[];
  /** Every plan made, with what became of it. */
  plans: Array<{
    ruleId: string;
    remediationId: string;
    outcome: "applying" | "awaiting_approval" | "dry_run";
  }>;
};

/**
 * Runs in the scan's transaction (`tx`), after its findings were written: the acting prevention
 * rules' plans over the scan's new findings. `now` is the scan's time: its new findings carry it.
 */
export async function planPrevention(
  tx: Db,
  input: { orgId: string; connectorId: string; scanId: string; now: Date; runtime: TRuntime },
  deps: { writerFor?: TWriterFor } = {},
): Promise<TPreventionResult> {
  const result: TPreventionResult = { deliveryIds: [], applying: [], plans: [] };
  const rules = await tx
    .select()
    .from(preventionRules)
    .where(
      and(
        eq(preventionRules.orgId, input.orgId),
        eq(preventionRules.enabled, true),
        ne(preventionRules.action, "ALERT_ONLY"),
      ),
    )
    .orderBy(preventionRules.createdAt, preventionRules.id);
  if (rules.length === 0) return result;
  const fresh = await queryRows<TNewFinding>(
    tx,
    sql`SELECT id, rule_id, category, severity, title, resource_id, resource_name, resource_type, details
        FROM findings WHERE connector_id = ${input.connectorId} AND last_seen_scan_id = ${input.scanId}
          AND status = 'OPEN' AND detected_at = ${input.now.toISOString()}::timestamptz ORDER BY id`,
  );
  if (fresh.length === 0) return result;
  const [connector] = await tx.select().from(connectors).where(eq(connectors.id, input.connectorId));
  const [org] = await tx
    .select({ cap: organizations.preventionChangeCap })
    .from(organizations)
    .where(eq(organizations.id, input.orgId));
  if (!connector || !org) return result;
  // Only the writer's reversibility is read here (no call to the source). A connector whose
  // writer cannot be built (credentials unusable) has its plans wait for an administrator.
  let reversibility: (a: TRemediationAction, p?: TPermission) => { reversible: boolean; reason?: string };
  let canWrite = connector.writeAccess;
  try {
    const writer = (deps.writerFor ?? defaultWriterFor)(tx, connector, input.runtime);
    reversibility = (a, p) => writer.reversibility(a, p);
  } catch (err) {
    canWrite = false;
    const reason = `the connector's writer is unavailable: ${err instanceof Error ? err.message : String(err)}`;
    reversibility = () => ({ reversible: false, reason });
  }
  let capLeft = org.cap;
  const planner: TRemediationActor = { ...SYSTEM_ACTOR, orgId: input.orgId };
  // A finding is acted on by the first rule that matches it (rules in creation order).
  const taken = new Set<string>();

  for (const rule of rules) {
    const action = rule.action as TPreventionAction;
    const hits = fresh.filter((f) => !taken.has(f.id) && matches(rule.match, f) && FIXES[action](f));
    if (hits.length === 0) continue;
    const steps = await buildPreventionSteps(
      tx,
      { connectorId: connector.id, action, findings: hits },
      reversibility,
    );
    if (steps.length === 0) continue;
    for (const h of hits) taken.add(h.id);
    const findingIds = [...new Set(steps.flatMap((s) => s.findingIds))];
    const predicted = await predict(tx, input.orgId, findingIds);
    const outcome: "applying" | "awaiting_approval" | "dry_run" = rule.dryRun
      ? "dry_run"
      : steps.length <= capLeft && canWrite
        ? "applying"
        : "awaiting_approval";
    const remediationId = await insertPlan(tx, {
      orgId: input.orgId,
      origin: "prevention",
      preventionRuleId: rule.id,
      dryRun: rule.dryRun,
      request: { findingIds, preventionRuleId: rule.id, scanId: input.scanId, action },
      predicted,
      plannedBy: planner,
      steps,
    });
    const scope = { orgId: input.orgId, actor: SYSTEM_ACTOR };
    await audit(tx, scope, {
      action: "REMEDIATION_PLANNED",
      target: remediationId,
      metadata: { preventionRuleId: rule.id, steps: steps.length, outcome },
    });
    if (outcome === "applying") {
      capLeft -= steps.length;
      const now = new Date();
      await tx
        .update(remediations)
        .set({ status: "APPLYING", approvedBy: planner, approvedAt: now, applyStartedAt: now })
        .where(eq(remediations.id, remediationId));
      await audit(tx, scope, {
        action: "REMEDIATION_APPROVED",
        target: remediationId,
        metadata: { preventionRuleId: rule.id, cap: org.cap },
      });
      await audit(tx, scope, {
        action: "REMEDIATION_APPLY_STARTED",
        target: remediationId,
        metadata: { steps: steps.length },
      });
      result.applying.push(remediationId);
    }
    result.plans.push({ ruleId: rule.id, remediationId, outcome });
    result.deliveryIds.push(
      ...(await recordRemediationEvent(tx, {
        orgId: input.orgId,
        type: "prevention.triggered",
        data: {
          ruleId: rule.id,
          action,
          count: hits.length,
          severity: mostSevere(hits.map((h) => h.severity)),
          remediationId,
          outcome,
        },
      })),
    );
  }
  return result;
}

/** After the scan's transaction committed: the jobs of the plans prevention applies. */
export async function startPreventionApplies(
  jobs: TJobQueue,
  remediationIds: readonly string[],
): Promise<void> {
  for (const id of remediationIds)
    await jobs.enqueue(REMEDIATION_APPLY_JOB, { remediationId: id }, { jobId: applyJobId(id) });
}
