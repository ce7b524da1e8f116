import { z } from "zod";
import { ZTimestamp, type TMeta } from "@posture/platform";

export const getScenarioMeta = {
  openapi: {
    method: "GET",
    path: "/sandbox/scenarios/{id}",
    tags: ["sandbox"],
    summary: "A sandbox run",
    description:
      "A scenario run or a reset of this sandbox: QUEUED until its job finishes (queued or under way), then " +
      "COMPLETE (with what changed in the tenant and the scans that read it) or FAILED (with why; also a run " +
      "whose job did not finish within 25 minutes). 403 `sandbox_required` outside a sandbox organization; 404 " +
      "for another organization's run.",
  },
  errors: ["sandbox_required"],
} satisfies TMeta;

export const ZGetScenarioInput = z.strictObject({ id: z.string().min(1).max(100) });

export const ZScenarioRunView = z.object({
  id: z.string(),
  kind: z.string().describe("a scenario kind, or `reset`"),
  status: z.enum(["QUEUED", "COMPLETE", "FAILED"]),
  createdAt: ZTimestamp,
  finishedAt: ZTimestamp.nullable(),
  change: z.record(z.string(), z.unknown()).nullable().describe("what the scenario changed in the tenant"),
  scans: z.array(
    z.object({
      connectorId: z.string(),
      scanId: z.string(),
      status: z.string(),
      kind: z.string(),
      findingsNew: z.number().int().nonnegative(),
      findingsResolved: z.number().int().nonnegative(),
    }),
  ),
  error: z.string().nullable(),
});
