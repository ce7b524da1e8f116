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
        "The fields given change. Tightening (four eyes on, a lower `preventionChangeCap`, `partnerMayApprove` off) is open to any ADMIN or OWNER. While four eyes is on, loosening a control (turning `fourEyes` off, raising `preventionChangeCap`, turning `partnerMayApprove` on) is for an OWNER signed in: an ADMIN gets 403 `owner_required`, an API key (even an OWNER's) 403 `session_required`. Every change is audited (REMEDIATION_SETTINGS_CHANGED) and emits `remediation.settings.changed` with the previous and current values, who made it and `weakened`.",
    },
    errors: ["not_found", "owner_required", "session_required"],
  })
  .input(ZUpdateRemediationSettings)
  .output(ZRemediationSettings)
  .mutation(({ ctx, input }) =>
    updateSettings(ctx.db, { ...scopeOf(ctx.principal), role: ctx.principal.role }, input, {
      jobs: ctx.jobs,
      publicUrl: ctx.runtime.publicUrl,
    }),
  );
