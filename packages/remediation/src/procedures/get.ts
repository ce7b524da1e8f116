import { procedure } from "@posture/platform";
import { ZRemediationIdInput, ZRemediation } from "./remediation.types";

// Stub of the interface commit: replaced by its owner (issue 19).
export const getRemediation = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "GET",
      path: "/remediations/{id}",
      tags: ["remediations"],
      summary: "A remediation, step by step",
    },
  })
  .input(ZRemediationIdInput)
  .output(ZRemediation)
  .query(() => {
    throw new Error("not built yet");
  });
