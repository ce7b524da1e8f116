import { and, eq } from "drizzle-orm";
import {
  organizations,
  preventionRules,
  SEVERITY_RANK,
  type Db,
  type TRole,
  type TRuleActor,
  type TRuleMatch,
} from "@posture/db";
import { AppError, audit, firstOr404, type TActor } from "@posture/platform";
import { recordEvent } from "@posture/webhooks";

// Four eyes over prevention rules that act (issue 28): a rule that changes the tenant after a scan
// is a standing plan. Whoever makes a rule act, or act on more, is recorded (`acting_set_by`) and
// any earlier approval is cleared; with four eyes on, remediation applies the rule's plans only once
// a different ADMIN or OWNER approved that configuration (`approved_by`). Narrowing a rule, or
// making it stop acting, keeps its approval. Every change of a prevention rule is an event.

type TRuleRow = typeof preventionRules.$inferSelect;
type TActing = Pick<TRuleRow, "enabled" | "action" | "dryRun" | "match">;

/** The caller, as four eyes records them (rules are changed by signed-in people only). */
export type TRuleChanger = { orgId: string; actor: TActor; role: TRole | null };

export const acts = (r: TActing) => r.enabled && r.action !== "ALERT_ONLY" && !r.dryRun;

/** Every finding `inner` matches, `outer` matches too. */
function within(inner: TRuleMatch, outer: TRuleMatch): boolean {
  const subset = (a: string[] | undefined, b: string[] | undefined) =>
    !b?.length || (!!a?.length && a.every((x) => b.includes(x)));
  if (!subset(inner.categories, outer.categories) || !subset(inner.ruleIds, outer.ruleIds)) return false;
  if (!outer.minSeverity) return true;
  return !!inner.minSeverity && SEVERITY_RANK[inner.minSeverity] >= SEVERITY_RANK[outer.minSeverity];
}

/** The change makes the rule act, or act differently or on more findings. */
export function widens(before: TActing | null, after: TActing): boolean {
  if (!acts(after)) return false;
  if (!before || !acts(before)) return true;
  return before.action !== after.action || !within(after.match, before.match);
}

export const ruleActorOf = (scope: TRuleChanger): TRuleActor => ({
  userId: scope.actor.userId ?? "system",
  email: scope.actor.email,
  role: scope.role ?? "system",
  kind: scope.actor.kind === "api_key" ? "api_key" : "session",
});

/** A different person than its maker approved the rule's acting configuration. */
export const approved = (r: Pick<TRuleRow, "approvedBy" | "actingSetBy">) =>
  r.approvedBy !== null && r.approvedBy.userId !== r.actingSetBy?.userId;

/** The columns a change writes: the maker recorded and the approval cleared when it widens. */
export function fourEyesColumns(scope: TRuleChanger, before: TActing | null, after: TActing) {
  return widens(before, after) ? { actingSetBy: ruleActorOf(scope), approvedBy: null, approvedAt: null } : {};
}

async function fourEyesOn(tx: Db, orgId: string): Promise<boolean> {
  const [org] = await tx
    .select({ on: organizations.remediationFourEyes })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return org?.on ?? false;
}

/** `prevention.rule.changed`, in the change's transaction; returns the deliveries to dispatch. */
export async function recordRuleChange(
  tx: Db,
  scope: TRuleChanger,
  row: TRuleRow,
  change: "created" | "updated" | "deleted" | "approved",
  widened: boolean,
): Promise<string[]> {
  const acting = change !== "deleted" && acts(row);
  const approval = !acting
    ? "not_needed"
    : approved(row)
      ? "approved"
      : (await fourEyesOn(tx, scope.orgId))
        ? "pending"
        : "not_needed";
  const { deliveryIds } = await recordEvent(tx, {
    orgId: scope.orgId,
    type: "prevention.rule.changed",
    data: {
      ruleId: row.id,
      name: row.name,
      change,
      action: row.action,
      enabled: row.enabled,
      dryRun: row.dryRun,
      acting,
      widened,
      approval,
      changedBy: {
        email: scope.actor.email,
        role: scope.role,
        credential: scope.actor.kind,
      },
    },
  });
  return deliveryIds;
}

/**
 * POST /prevention-rules/{id}/approve: a different ADMIN or OWNER stands behind the rule's acting
 * configuration, so that with four eyes on the system applies its plans (under the cap). The
 * person who made it act: 409 self_approval; a rule that does not act: 409 invalid_transition.
 */
export async function approvePreventionRule(
  db: Db,
  scope: TRuleChanger & { id: string },
): Promise<{ row: TRuleRow; deliveryIds: string[] }> {
  return db.transaction(async (tx) => {
    const before = firstOr404(
      await tx
        .select()
        .from(preventionRules)
        .where(and(eq(preventionRules.orgId, scope.orgId), eq(preventionRules.id, scope.id)))
        .for("update"),
      "Prevention rule",
    );
    if (!acts(before))
      throw new AppError(
        "invalid_transition",
        "This rule does not act (ALERT_ONLY, disabled or a dry run): there is nothing to approve",
      );
    if (approved(before)) return { row: before, deliveryIds: [] };
    if (before.actingSetBy && before.actingSetBy.userId === scope.actor.userId)
      throw new AppError(
        "self_approval",
        "Four eyes are required: you made this rule act; a different administrator must approve it",
      );
    const [row] = await tx
      .update(preventionRules)
      .set({ approvedBy: ruleActorOf(scope), approvedAt: new Date() })
      .where(eq(preventionRules.id, before.id))
      .returning();
    if (!row) throw new Error("rule update returned nothing");
    await audit(tx, scope, {
      action: "POLICY_CHANGED",
      target: row.id,
      metadata: { change: "approved", kind: "prevention", actingSetBy: before.actingSetBy?.email ?? null },
    });
    return { row, deliveryIds: await recordRuleChange(tx, scope, row, "approved", false) };
  });
}
