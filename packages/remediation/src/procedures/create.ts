import { procedure } from "@posture/platform";
import { ZPlanInput, ZRemediation } from "./remediation.types";

// Stub of the interface commit: replaced by its owner (issue 19).
export const planRemediation = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: { method: "POST", path: "/remediations", tags: ["remediations"], summary: "Plan a remediation" },
  })
  .input(ZPlanInput)
  .output(ZRemediation)
  .mutation(() => {
    throw new Error("not built yet");
  });
