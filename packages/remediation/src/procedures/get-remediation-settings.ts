import { procedure, scopeOf } from "@posture/platform";
import { z } from "zod";
import { getSettings } from "../services/settings";
import { ZRemediationSettings } from "./remediation.types";

export const getRemediationSettings = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "GET",
      path: "/remediation-settings",
      tags: ["remediations"],
      summary: "Remediation settings",
      description:
        "`fourEyes` (two different people for every plan's approval, every undo and every prevention rule that acts; while it is on, only an OWNER signed in may loosen these settings), `preventionChangeCap` (the most changes prevention rules apply in one scan before their plan waits for approval) and `partnerMayApprove` (the managing partner's admins may approve).",
    },
    errors: ["not_found"],
  })
  .input(z.void())
  .output(ZRemediationSettings)
  .query(({ ctx }) => getSettings(ctx.db, scopeOf(ctx.principal)));
