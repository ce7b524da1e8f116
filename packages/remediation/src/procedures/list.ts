import { procedure } from "@posture/platform";
import { ZListRemediationsInput, ZListRemediationsOutput } from "./remediation.types";

// Stub of the interface commit: replaced by its owner (issue 19).
export const listRemediations = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: { method: "GET", path: "/remediations", tags: ["remediations"], summary: "List remediations" },
  })
  .input(ZListRemediationsInput)
  .output(ZListRemediationsOutput)
  .query(() => {
    throw new Error("not built yet");
  });
