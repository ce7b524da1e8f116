import { SHARE_TYPES } from "@posture/db";
import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { ZApproval } from "./sharing.types";

const ITEM_ID = new RegExp(`^[A-Za-z0-9_-]{1,100}\\|(${SHARE_TYPES.join("|")})$`);

export const approveShareMeta = {
  openapi: {
    method: "POST",
    path: "/sharing/approvals",
    tags: ["sharing"],
    summary: "Approve one external share for a period",
    description:
      "The item leaves the sharing ranking and its finding turns ACCEPTED until the approval expires (1–90 days) or is withdrawn; audited. 404 for an unknown item, 409 if it is already approved.",
    protect: true,
  },
  successStatus: 201,
  errors: ["not_found"],
} satisfies TMeta;
export const ZApproveShareInput = z.strictObject({
  itemId: z.string().regex(ITEM_ID, "a sharing item id, <resource_id>|<sharing_type>"),
  reason: z.string().trim().min(1).max(500),
  expiresInDays: z.number().int().min(1).max(90),
});
export const ZApproveShareOutput = ZApproval;

export const withdrawApprovalMeta = {
  openapi: {
    method: "DELETE",
    path: "/sharing/approvals/{id}",
    tags: ["sharing"],
    summary: "Withdraw an approval",
    description:
      "The share ranks again and its finding reopens; audited. 404 for an unknown or already ended approval.",
    protect: true,
  },
} satisfies TMeta;
export const ZWithdrawApprovalInput = z.strictObject({ id: z.string().min(1).max(100) });
export const ZWithdrawApprovalOutput = z.object({ withdrawn: z.literal(true) });
