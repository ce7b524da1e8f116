import { GOOGLE_WRITE_ACCESS, MICROSOFT_WRITE_ACCESS, type TAccessRequirement } from "@posture/connectors";
import { procedure } from "@posture/platform";
import { createPlan } from "../services/plan";
import { ZPlanInput, ZRemediation } from "./remediation.types";
import { planScope } from "./scope";

/** The write scopes each source needs, as the writers list them (docs/operations.md has the calls). */
const scopes = (list: readonly TAccessRequirement[]) =>
  list.map((r) => `${r.feature.replace(/^Remediation: /, "")}: \`${r.permission}\``).join("; ");
const WRITE_SCOPES = ` Write access needs, on Google Workspace (domain-wide delegation): ${scopes(GOOGLE_WRITE_ACCESS)}; on Microsoft 365 (application permissions): ${scopes(MICROSOFT_WRITE_ACCESS)}.`;

export const planRemediation = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "POST",
      path: "/remediations",
      tags: ["remediations"],
      summary: "Plan a remediation",
      description:
        "Works out each change at the source that fixes the findings (`findingIds`), sharing items (`shareIds`), agents' grants (`agentIds`) or a person's offboarding (`playbook`): the permission or grant, before → after, whether it can be undone (Google cannot re-issue a revoked OAuth token; a Microsoft anonymous link comes back only as a new link), the people who lose access, the posture score and grade predicted once the fixed findings resolve, and the compliance controls whose status would change. What no action can fix (MFA, dormant accounts, tenant settings) is listed in `skipped`. Changes nothing at the source: approve, then apply. 400 `invalid_input` when nothing is left to change; 404 for another organization's ids; 409 `conflict` naming every read-only connector (turn write access on with PATCH /connectors/{id} `{writeAccess: true}` and grant the write scopes, docs/operations.md). A partner passes `organizationId` to plan for a client it manages. Emits `remediation.planned`." +
        WRITE_SCOPES,
    },
    successStatus: 201,
    errors: ["conflict", "not_found"],
  })
  .input(ZPlanInput)
  .output(ZRemediation)
  .mutation(({ ctx, input }) =>
    createPlan(ctx.db, planScope(ctx.principal), input, { jobs: ctx.jobs, publicUrl: ctx.runtime.publicUrl }),
  );
