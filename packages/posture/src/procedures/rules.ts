import { procedure, router, scopeOf, type TJobQueue, type TPrincipal } from "@posture/platform";
import { z } from "zod";
import {
  createRule,
  deleteRule,
  ensureDefaultRules,
  listRules,
  toView,
  updateRule,
} from "../services/policies";
import { approvePreventionRule } from "../services/prevention-approval";
import { dispatchDeliveries } from "@posture/webhooks";
import { ZCreateRuleInput, ZRule, ZRuleIdInput, ZUpdateRuleInput } from "./rules.types";

const admin = () => procedure({ auth: "session", role: "ADMIN" });

/**
 * Security policies (`policy.violation`) and prevention rules (`prevention.triggered`) share one
 * shape and one set of four operations; only the path and the table differ.
 */
function ruleProcedures(
  kind: "policy" | "prevention",
  path: "/policies" | "/prevention-rules",
  noun: string,
) {
  const tags = ["policies"];
  return {
    list: admin()
      .meta({
        openapi: { method: "GET", path, tags, summary: `List ${noun}s (defaults are created on first use)` },
      })
      .input(z.void())
      .output(z.object({ rules: z.array(ZRule) }))
      .query(async ({ ctx }) => {
        await ensureDefaultRules(ctx.db, { orgId: ctx.principal.org.id });
        return { rules: await listRules(ctx.db, { orgId: ctx.principal.org.id, kind }) };
      }),
    create: admin()
      .meta({
        openapi: {
          method: "POST",
          path,
          tags,
          summary: `Create a ${noun}`,
          successDescription: "Created",
          ...fourEyesNote(kind),
        },
        successStatus: 201,
      })
      .input(ZCreateRuleInput)
      .output(ZRule)
      .mutation(({ ctx, input }) =>
        createRule(ctx.db, { ...scope(ctx.principal, ctx.jobs), kind, ...input }),
      ),
    update: admin()
      .meta({
        openapi: {
          method: "PATCH",
          path: `${path}/{id}`,
          tags,
          summary: `Change a ${noun}`,
          ...fourEyesNote(kind),
        },
      })
      .input(ZUpdateRuleInput)
      .output(ZRule)
      .mutation(({ ctx, input: { id, ...patch } }) =>
        updateRule(ctx.db, { ...scope(ctx.principal, ctx.jobs), kind, id, patch }),
      ),
    delete: admin()
      .meta({ openapi: { method: "DELETE", path: `${path}/{id}`, tags, summary: `Delete a ${noun}` } })
      .input(ZRuleIdInput)
      .output(z.object({ deleted: z.literal(true) }))
      .mutation(async ({ ctx, input }) => {
        await deleteRule(ctx.db, { ...scope(ctx.principal, ctx.jobs), kind, id: input.id });
        return { deleted: true as const };
      }),
  };
}

const fourEyesNote = (kind: "policy" | "prevention") =>
  kind === "prevention" ? { description: PREVENTION_FOUR_EYES.trim() } : {};

/** The caller with its role (prevention rules' four-eyes record) and the queue for their events. */
const scope = (principal: TPrincipal, jobs: TJobQueue) => ({
  ...scopeOf(principal),
  role: principal.role,
  jobs,
});

const PREVENTION_FOUR_EYES =
  " With four eyes on (`fourEyes` of /remediation-settings), a rule that acts (an action other than ALERT_ONLY, enabled, not a dry run) has its plans applied by the system only once a different ADMIN or OWNER approved it (POST /prevention-rules/{id}/approve); making a rule act, changing its action or widening its match clears the approval (`approval`). Emits `prevention.rule.changed`.";

export const policiesRouter = router(ruleProcedures("policy", "/policies", "security policy"));
const prevention = ruleProcedures("prevention", "/prevention-rules", "prevention rule");
export const preventionRulesRouter = router({
  ...prevention,
  approve: admin()
    .meta({
      openapi: {
        method: "POST",
        path: "/prevention-rules/{id}/approve",
        tags: ["policies"],
        summary: "Approve a prevention rule that acts (four eyes)",
        description:
          "A second person stands behind the rule's acting configuration: with four eyes on, the system applies its plans after a scan (under `preventionChangeCap`) only once a different ADMIN or OWNER than the one who made it act approved it. The rule's maker: 409 `self_approval`; a rule that does not act: 409 `invalid_transition`. Audited (POLICY_CHANGED, change `approved`); emits `prevention.rule.changed`." +
          PREVENTION_FOUR_EYES,
      },
      errors: ["invalid_transition", "self_approval"],
    })
    .input(ZRuleIdInput)
    .output(ZRule)
    .mutation(async ({ ctx, input }) => {
      const { row, deliveryIds } = await approvePreventionRule(ctx.db, {
        ...scopeOf(ctx.principal),
        role: ctx.principal.role,
        id: input.id,
      });
      await dispatchDeliveries(ctx.jobs, deliveryIds);
      return toView(row);
    }),
});
