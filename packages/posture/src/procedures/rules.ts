import { procedure, router, scopeOf } from "@posture/platform";
import { z } from "zod";
import { createRule, deleteRule, ensureDefaultRules, listRules, updateRule } from "../services/policies";
import { ZCreateRuleInput, ZRule, ZRuleIdInput, ZUpdateRuleInput } from "./rules.types";

const admin = () => procedure({ auth: "session", role: "ADMIN" });

/**
 * Security policies (`policy.violation`) and prevention rules (`prevention.triggered`) share one
 * shape and one set of four operations; only the path and the table differ.
 */
function ruleRouter(kind: "policy" | "prevention", path: "/policies" | "/prevention-rules", noun: string) {
  const tags = ["policies"];
  return router({
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
        openapi: { method: "POST", path, tags, summary: `Create a ${noun}`, successDescription: "Created" },
        successStatus: 201,
      })
      .input(ZCreateRuleInput)
      .output(ZRule)
      .mutation(({ ctx, input }) => createRule(ctx.db, { ...scopeOf(ctx.principal), kind, ...input })),
    update: admin()
      .meta({ openapi: { method: "PATCH", path: `${path}/{id}`, tags, summary: `Change a ${noun}` } })
      .input(ZUpdateRuleInput)
      .output(ZRule)
      .mutation(({ ctx, input: { id, ...patch } }) =>
        updateRule(ctx.db, { ...scopeOf(ctx.principal), kind, id, patch }),
      ),
    delete: admin()
      .meta({ openapi: { method: "DELETE", path: `${path}/{id}`, tags, summary: `Delete a ${noun}` } })
      .input(ZRuleIdInput)
      .output(z.object({ deleted: z.literal(true) }))
      .mutation(async ({ ctx, input }) => {
        await deleteRule(ctx.db, { ...scopeOf(ctx.principal), kind, id: input.id });
        return { deleted: true as const };
      }),
  });
}

export const policiesRouter = ruleRouter("policy", "/policies", "security policy");
export const preventionRulesRouter = ruleRouter("prevention", "/prevention-rules", "prevention rule");
