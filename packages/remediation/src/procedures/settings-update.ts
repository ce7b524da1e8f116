import { procedure } from "@posture/platform";
import { ZUpdateRemediationSettings, ZRemediationSettings } from "./remediation.types";

// Stub of the interface commit: replaced by its owner (issue 19).
export const updateRemediationSettings = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "PATCH",
      path: "/remediation-settings",
      tags: ["remediations"],
      summary: "Change remediation settings",
    },
  })
  .input(ZUpdateRemediationSettings)
  .output(ZRemediationSettings)
  .mutation(() => {
    throw new Error("not built yet");
  });
