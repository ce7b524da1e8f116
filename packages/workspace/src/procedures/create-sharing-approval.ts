import { procedure, scopeOf } from "@posture/platform";
import { approveShare as approve } from "../services/approvals";
import { approveShareMeta, ZApproveShareInput, ZApproveShareOutput } from "./approvals.types";

export const approveShare = procedure({ auth: "session", role: "ADMIN" })
  .meta(approveShareMeta)
  .input(ZApproveShareInput)
  .output(ZApproveShareOutput)
  .mutation(({ ctx, input }) => approve(ctx.db, { ...scopeOf(ctx.principal), ...input }));
