import { procedure, scopeOf } from "@posture/platform";
import { updateSettings } from "../services/settings";
import { ZRemediationSettings, ZUpdateRemediationSettings } from "./remediation.types";

export const updateRemediationSettings = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "PATCH",
      path: "/remediation-settings",
      tags: ["remediations"],
      summary: "Change remediation settings",
      description:
        "The fields given change; the change is on the audit trail (REMEDIATION_SETTINGS_CHANGED).",
    },
    errors: ["not_found"],
  })
  .input(ZUpdateRemediationSettings)
  .output(ZRemediationSettings)
  .mutation(({ ctx, input }) => updateSettings(ctx.db, scopeOf(ctx.principal), input));
