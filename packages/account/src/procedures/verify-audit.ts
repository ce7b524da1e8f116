import { procedure } from "@posture/platform";
import { verifyAudit as verifyAuditService } from "../services/verify-audit";
import { verifyAuditMeta, ZVerifyAuditInput, ZVerifyAuditOutput } from "./verify-audit.types";

export const verifyAudit = procedure({ auth: "apiKey", role: "ADMIN" })
  .meta(verifyAuditMeta)
  .input(ZVerifyAuditInput)
  .output(ZVerifyAuditOutput)
  .query(({ ctx }) => verifyAuditService(ctx.db, { orgId: ctx.principal.org.id }));
