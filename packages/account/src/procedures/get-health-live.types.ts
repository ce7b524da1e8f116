import { z } from "zod";
import type { TMeta } from "@posture/platform";

export const getLivenessMeta = {
  openapi: {
    method: "GET",
    path: "/health/live",
    tags: ["platform"],
    summary: "Liveness",
    description:
      "200 while the process runs and its event loop answers; checks no dependency (that is GET /health, readiness). Never rate limited.",
    protect: false,
  },
} satisfies TMeta;

export const ZLivenessInput = z.void();

export const ZLiveness = z.object({
  status: z.literal("ok"),
  time: z.string().datetime(),
  uptimeSeconds: z.number().int().nonnegative(),
});
