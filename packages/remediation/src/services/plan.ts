import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import {
  remediations,
  remediationSteps,
  newId,
  unnestRows,
  type Db,
  type TArrayColumn,
  type TRemediationAction,
  type TRemediationActor,
  type TRemediationResource,
  type TRemediationStatus,
} from "@posture/db";
import {
  audit,
  AppError,
  offsetPage,
  requireManagedClient,
  type TActor,
  type TJobQueue,
} from "@posture/platform";
import { withEvents } from "@posture/webhooks";
import { draftPlan, reversibilityOf as reversibility, type TDraft, type TDraftInput } from "./draft";
import { predict } from "./simulate";
import { loadRemediation, summaryView } from "./view";

/** Steps are written this many per INSERT (a plan of thousands of steps stays a few statements). */
const STEP_BATCH = 5_000;

const STEP_COLUMNS: readonly TArrayColumn[] = [
  ["id", "text"],
  ["remediation_id", "text"],
  ["org_id", "text"],
  ["connector_id", "text"],
  ["seq", "int"],
  ["action", "text"],
  ["resource", "text"],
  ["before", "text"],
  ["after", "text"],
  ["reversible", "bool"],
  ["irreversible_reason", "text"],
  ["finding_ids", "text"],
  ["people", "text"],
];

/** A step as remediation_steps holds it (before its id, sequence and status). */
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

/** A draft's steps with whether each can be put back (the connectors' one rule for it). */
export function stepsOf(draft: TDraft): TStepDraft[] {
  return draft.steps.map((s) => {
    const r = reversibility(draft.connectors.get(s.connectorId)?.type ?? "", s.action);
    return {
      connectorId: s.connectorId,
      action: s.action,
      resource: s.resource,
      before: s.before,
      after: s.after,
      reversible: r.reversible,
      irreversibleReason: r.reason,
      findingIds: s.findingIds,
      people: s.people,
    };
  });
}

/**
 * Writes a plan: the remediation (PLANNED) and its steps (PENDING), in the caller's transaction.
 * The one writer of plans, for POST /remediations and for prevention rules. Steps go one statement
 * per batch with an array per column (unnestRows): a VALUES list of thousands of rows cost half a
 * second to build and bind.
 */
export async function insertPlan(
  tx: Db,
  input: {
    orgId: string;
    origin: "prevention" | "manual" | "quick_win";
    preventionRuleId?: string | null;
    dryRun?: boolean;
    request: Record<string, unknown>;
    predicted: Record<string, unknown>;
    controls?: Array<Record<string, unknown>>;
    plannedBy: TRemediationActor;
    steps: readonly TStepDraft[];
    /** The partner action that plans this in each of its clients (issue 17). */
    partnerActionId?: string | null;
  },
): Promise<string> {
  const [row] = await tx
    .insert(remediations)
    .values({
      orgId: input.orgId,
      status: "PLANNED",
      origin: input.origin,
      preventionRuleId: input.preventionRuleId ?? null,
      dryRun: input.dryRun ?? false,
      request: input.request,
      predicted: input.predicted,
      controls: input.controls ?? [],
      plannedBy: input.plannedBy,
      stepCounts: { PENDING: input.steps.length },
      stepTotal: input.steps.length,
      partnerActionId: input.partnerActionId ?? null,
    })
    .returning({ id: remediations.id });
  if (!row) throw new Error("remediation insert returned no row");
  for (let i = 0; i < input.steps.length; i += STEP_BATCH) {
    const rows = input.steps
      .slice(i, i + STEP_BATCH)
      .map((s, k) => [
        newId("rst"),
        row.id,
        input.orgId,
        s.connectorId,
        i + k + 1,
        s.action,
        JSON.stringify(s.resource),
        JSON.stringify(s.before),
        s.after === null ? null : JSON.stringify(s.after),
        s.reversible,
        s.irreversibleReason,
        JSON.stringify(s.findingIds),
        JSON.stringify(s.people),
      ]);
    await tx.execute(
      sql`INSERT INTO remediation_steps (id, remediation_id, org_id, connector_id, seq, action, resource, before,
            after, reversible, irreversible_reason, finding_ids, people)
          SELECT u.id, u.remediation_id, u.org_id, u.connector_id, u.seq,
            u.action, u.resource::jsonb, u.before::jsonb, u.after::jsonb, u.reversible, u.irreversible_reason,
            ARRAY(SELECT jsonb_array_elements_text(u.finding_ids::jsonb)),
            ARRAY(SELECT jsonb_array_elements_text(u.people::jsonb))
          FROM ${unnestRows(STEP_COLUMNS, rows)}`,
    );
  }
  return row.id;
}

export type TPlanScope = {
  /** The caller's own organization and who they are. */
  orgId: string;
  actor: TActor;
  /** Whether the caller's organization is a partner (it may plan for the clients it manages). */
  isPartner: boolean;
};

export type TPlanDeps = { jobs: TJobQueue; publicUrl: string };

/**
 * The organization a call acts on: the caller's, or with `organizationId` a client its partner
 * organization manages. Anything else is 404, the same answer as an unknown id.
 */
export async function targetOrg(
  db: Db,
  scope: TPlanScope,
  organizationId: string | undefined,
): Promise<string> {
  if (organizationId === undefined || organizationId === scope.orgId) return scope.orgId;
  if (!scope.isPartner) throw new AppError("not_found", "Organization not found");
  return (await requireManagedClient(db, scope.orgId, organizationId)).id;
}

export const actorRecord = (scope: { orgId: string; actor: TActor }): TRemediationActor => ({
  kind: scope.actor.kind,
  userId: scope.actor.userId,
  email: scope.actor.email,
  orgId: scope.orgId,
});

export const remediationLink = (publicUrl: string, id: string) =>
  `${publicUrl.replace(/\/+$/, "")}/api/remediations/${id}`;

/**
 * POST /remediations: drafts the steps, refuses read-only connectors, predicts the score and the
 * compliance controls, and records the plan, its steps, its audit row and `remediation.planned`
 * in one transaction. `options` lets the prevention rules plan through the same path.
 */
export async function createPlan(
  db: Db,
  scope: TPlanScope,
  input: TDraftInput & { organizationId?: string | undefined },
  deps: TPlanDeps,
  options: {
    origin?: "manual" | "prevention" | "quick_win";
    dryRun?: boolean;
    preventionRuleId?: string;
    /** A partner's act-once action planning this among its clients (partner_actions). */
    partnerActionId?: string;
  } = {},
) {
  const asked =
    (input.findingIds?.length ?? 0) + (input.shareIds?.length ?? 0) + (input.agentIds?.length ?? 0) > 0 ||
    input.playbook !== undefined ||
    input.quickWin !== undefined;
  if (!asked)
    throw new AppError("invalid_input", "Nothing to do: give findingIds, shareIds, agentIds or a playbook");
  const orgId = await targetOrg(db, scope, input.organizationId);
  const draft = await draftPlan(db, { orgId, ...input });
  if (draft.steps.length === 0)
    throw new AppError(
      "invalid_input",
      draft.skipped.length > 0
        ? `Nothing to do: ${draft.skipped[0]?.reason ?? "no change at the source fixes it"}`
        : "Nothing to do: no outside access or grant to remove",
      { skipped: draft.skipped.slice(0, 100) },
    );
  const readOnly = [...new Set(draft.steps.map((s) => s.connectorId))]
    .map((id) => draft.connectors.get(id))
    .filter((c) => c !== undefined && !c.writeAccess);
  if (readOnly.length > 0)
    throw new AppError(
      "conflict",
      `${readOnly.map((c) => `${c?.displayName} (${c?.id})`).join(", ")} ${readOnly.length === 1 ? "is" : "are"} read-only: turn write access on (PATCH /api/connectors/{id} {"writeAccess": true}) and grant the write scopes each action needs (docs/operations.md)`,
      { readOnlyConnectors: readOnly.map((c) => c?.id) },
    );
  const { predicted, controls } = await predict(db, { orgId, resolved: draft.fixed, effects: draft.effects });
  const request: Record<string, unknown> = {};
  if (input.findingIds?.length) request.findingIds = input.findingIds;
  if (input.shareIds?.length) request.shareIds = input.shareIds;
  if (input.agentIds?.length) request.agentIds = input.agentIds;
  if (input.playbook) request.playbook = input.playbook;
  if (input.quickWin) request.quickWin = input.quickWin;
  if (input.orgWideLinks) request.orgWideLinks = input.orgWideLinks;
  const plannedBy = actorRecord(scope);
  const origin = options.origin ?? (input.quickWin ? "quick_win" : "manual");
  const auditScope = { orgId, actor: scope.actor };

  const id = await withEvents(db, deps.jobs, async (tx, emit) => {
    const planId = await insertPlan(tx, {
      orgId,
      origin,
      preventionRuleId: options.preventionRuleId ?? null,
      dryRun: options.dryRun ?? false,
      request,
      predicted: { ...predicted, fixedFindingIds: draft.fixed.map((f) => f.id), skipped: draft.skipped },
      controls,
      plannedBy,
      steps: stepsOf(draft),
      partnerActionId: options.partnerActionId ?? null,
    });
    await audit(tx, auditScope, {
      action: "REMEDIATION_PLANNED",
      target: planId,
      metadata: {
        steps: draft.steps.length,
        fixedFindings: draft.fixed.length,
        skipped: draft.skipped.length,
        scoreBefore: predicted.before.score,
        predictedScore: predicted.score,
        origin,
        dryRun: options.dryRun ?? false,
        ...(plannedBy.orgId !== orgId ? { partnerOrgId: plannedBy.orgId } : {}),
        ...(options.partnerActionId ? { partnerActionId: options.partnerActionId } : {}),
      },
    });
    await emit({
      orgId,
      type: "remediation.planned",
      data: {
        remediationId: planId,
        status: "PLANNED",
        origin,
        dryRun: options.dryRun ?? false,
        stepCount: draft.steps.length,
        findingCount: draft.fixed.length,
        scoreBefore: predicted.before.score,
        predictedScore: predicted.score,
        plannedBy: scope.actor.email,
        link: remediationLink(deps.publicUrl, planId),
      },
    });
    return planId;
  });
  return loadRemediation(db, { orgId, id });
}

/** GET /remediations: newest first, offset-paged like the findings. */
export async function listPlans(
  db: Db,
  input: { orgId: string; limit: number; offset: number; status?: TRemediationStatus | undefined },
) {
  const where = and(
    eq(remediations.orgId, input.orgId),
    input.status ? eq(remediations.status, input.status) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(remediations)
      .where(where)
      .orderBy(desc(remediations.createdAt), desc(remediations.id))
      .limit(input.limit)
      .offset(input.offset),
    db.select({ n: count() }).from(remediations).where(where),
  ]);
  // Whether any step can be undone, per remediation, in one query.
  const ids = rows.map((r) => r.id);
  const reversible = new Set<string>();
  if (ids.length > 0) {
    const rev = await db
      .selectDistinct({ id: remediationSteps.remediationId })
      .from(remediationSteps)
      .where(and(inArray(remediationSteps.remediationId, ids), eq(remediationSteps.reversible, true)));
    for (const r of rev) reversible.add(r.id);
  }
  return offsetPage(
    rows.map((r) => summaryView(r, reversible.has(r.id))),
    { total: total?.n ?? 0, limit: input.limit, offset: input.offset },
    "remediations",
  );
}
