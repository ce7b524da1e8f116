import { procedure } from "@posture/platform";
import { z } from "zod";
import { ZRemediationSettings } from "./remediation.types";

// Stub of the interface commit: replaced by its owner (issue 19).
export const getRemediationSettings = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "GET",
      path: "/remediation-settings",
      tags: ["remediations"],
      summary: "Remediation settings",
    },
  })
  .input(z.void())
  .output(ZRemediationSettings)
  .query(() => {
    throw new Error("not built yet");
  });
