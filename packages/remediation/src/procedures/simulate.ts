import { procedure } from "@posture/platform";
import { ZSimulateInput, ZSimulateOutput } from "./remediation.types";

// Stub of the interface commit: replaced by its owner (issue 19).
export const simulatePosture = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "POST",
      path: "/posture/simulate",
      tags: ["remediations"],
      summary: "What-if: the score and controls after fixing",
    },
  })
  .input(ZSimulateInput)
  .output(ZSimulateOutput)
  .mutation(() => {
    throw new Error("not built yet");
  });
