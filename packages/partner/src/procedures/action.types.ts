import { ZTimestamp } from "@posture/platform";
import { z } from "zod";

export const ZId = z.string().min(1).max(64);

/** One client's part of a partner action. */
export const ZActionClient = z.object({
  orgId: z.string(),
  name: z.string(),
  /** The remediation planned in the client, or null when none was (see `error`). */
  remediationId: z.string().nullable(),
  /** The remediation's status (read live on GET), or `SKIPPED` when none was planned. */
  status: z.string(),
  /** Why nothing was planned: the planner's code and message (`invalid_input`, `conflict`…) or `not_remediable`, `nothing_to_do`, `not_affected`. */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  stepCount: z.number().int().nonnegative(),
  predicted: z
    .object({ score: z.number().int().min(0).max(100), grade: z.string(), scoreDelta: z.number().int() })
    .nullable(),
});

export const ZAction = z.object({
  id: z.string(),
  source: z.enum(["campaign", "standard"]),
  sourceId: z.string(),
  createdBy: z.string(),
  createdAt: ZTimestamp,
  clients: z.array(ZActionClient),
});
