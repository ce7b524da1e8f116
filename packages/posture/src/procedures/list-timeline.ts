import { hasRole, procedure } from "@posture/platform";
import { listTimeline as list } from "../services/timeline";
import { listTimelineMeta, ZListTimelineInput, ZListTimelineOutput } from "./posture.types";

export const listTimeline = procedure({ auth: "apiKey" })
  .meta(listTimelineMeta)
  .input(ZListTimelineInput)
  .output(ZListTimelineOutput)
  .query(({ ctx, input }) =>
    list(ctx.db, {
      orgId: ctx.principal.org.id,
      limit: input.limit,
      before: input.before,
      significant: input.significant,
      category: input.category,
      // The audit trail is ADMIN+ (GET /api/audit); members see the rest of the feed only.
      includeAudit: hasRole(ctx.principal.role, "ADMIN"),
    }),
  );
