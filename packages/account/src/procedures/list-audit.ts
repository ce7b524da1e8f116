import { procedure } from "@posture/platform";
import { listAudit as listAuditService } from "../services/audit";
import { listAuditMeta, ZListAuditInput, ZListAuditOutput } from "./list-audit.types";

export const listAudit = procedure({ auth: "apiKey", role: "ADMIN" })
  .meta(listAuditMeta)
  .input(ZListAuditInput)
  .output(ZListAuditOutput)
  .query(({ ctx, input }) => listAuditService(ctx.db, { orgId: ctx.principal.org.id, ...input }));
