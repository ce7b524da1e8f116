import { procedure } from "@posture/platform";
import { ZRemediationIdInput, ZRemediation } from "./remediation.types";

// Stub of the interface commit: replaced by its owner (issue 19).
export const undoRemediation = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "POST",
      path: "/remediations/{id}/undo",
      tags: ["remediations"],
      summary: "Undo an applied remediation (a job)",
    },
  })
  .input(ZRemediationIdInput)
  .output(ZRemediation)
  .mutation(() => {
    throw new Error("not built yet");
  });
