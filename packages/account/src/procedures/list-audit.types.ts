import { AUDIT_ACTIONS, pageInput, type TMeta, ZPageMeta, ZTimestamp } from "@posture/platform";
import { z } from "zod";

export const listAuditMeta = {
  openapi: {
    method: "GET",
    path: "/audit",
    tags: ["audit"],
    summary: "Audit log",
    description:
      "The organization's append-only audit trail, newest first, page-based; `action` filters by one action.",
    protect: true,
  },
} satisfies TMeta;

export const ZListAuditInput = pageInput(50, 100).extend({ action: z.enum(AUDIT_ACTIONS).optional() });

export const ZAuditEntry = z.object({
  id: z.string(),
  action: z.string(),
  target: z.string(),
  userEmail: z.string(),
  createdAt: ZTimestamp,
});

export const ZListAuditOutput = ZPageMeta.extend({ entries: z.array(ZAuditEntry) });
