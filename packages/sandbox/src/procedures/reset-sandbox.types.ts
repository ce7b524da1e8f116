import { z } from "zod";
import { ZTimestamp, type TMeta } from "@posture/platform";

export const resetSandboxMeta = {
  openapi: {
    method: "POST",
    path: "/sandbox/reset",
    tags: ["sandbox"],
    summary: "Reset the sandbox",
    description:
      "Puts every demo source of the sandbox (and, in a sandbox partner, of its sandbox clients) back to its " +
      "generated tenant — every change a scenario or a remediation made is dropped, a withdrawn access restored — " +
      "and reads each in full again, so what the scenarios opened is resolved (finding.resolved) and sources are " +
      "healthy. The tenants' own revisions (syncs with `demo.advance`), the findings' history and the audit trail " +
      "stay. A job: 202 with its id, followed with GET /sandbox/scenarios/{id}. Not while a scenario or another " +
      "reset of the sandbox runs: 409 `conflict` with its id as `runningId`. 403 `sandbox_required` outside a " +
      "sandbox organization. Audited.",
    protect: true,
    successDescription: "Accepted: the reset is queued",
  },
  successStatus: 202,
  errors: ["sandbox_required", "conflict"],
} satisfies TMeta;

export const ZResetSandboxInput = z.strictObject({});

export const ZResetRun = z.object({
  id: z.string(),
  kind: z.literal("reset"),
  status: z.literal("QUEUED"),
  connectorIds: z.array(z.string()),
  createdAt: ZTimestamp,
});
