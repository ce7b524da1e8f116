import { procedure, scopeOf } from "@posture/platform";
import { withdrawApproval as withdraw } from "../services/approvals";
import { withdrawApprovalMeta, ZWithdrawApprovalInput, ZWithdrawApprovalOutput } from "./approvals.types";

export const withdrawApproval = procedure({ auth: "session", role: "ADMIN" })
  .meta(withdrawApprovalMeta)
  .input(ZWithdrawApprovalInput)
  .output(ZWithdrawApprovalOutput)
  .mutation(({ ctx, input }) => withdraw(ctx.db, { ...scopeOf(ctx.principal), id: input.id }));
