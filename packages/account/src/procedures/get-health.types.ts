import { z } from "zod";
import { type TMeta, ZTimestamp } from "@posture/platform";

export const getHealthMeta = {
  openapi: {
    method: "GET",
    path: "/health",
    tags: ["platform"],
    summary: "Service health",
    description:
      "Checks the database and Redis. 200 when all are ok, 503 naming the failing check. Never rate limited.",
    protect: false,
  },
} satisfies TMeta;

export const ZHealthInput = z.void();

export const ZHealth = z.object({
  status: z.enum(["ok", "degraded"]),
  time: ZTimestamp,
  checks: z.record(z.string(), z.enum(["ok", "down"])),
});
