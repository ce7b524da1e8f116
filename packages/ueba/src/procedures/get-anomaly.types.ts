import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const getAnomalyMeta = {
  openapi: {
    method: "GET",
    path: "/behavior/anomalies/{id}",
    tags: ["behavior"],
    summary: "One behaviour anomaly",
    description:
      "The anomaly as GET /behavior/anomalies lists it; the `link` of anomaly.detected. 404 for an unknown id or another organization's.",
  },
} satisfies TMeta;

export const ZGetAnomalyInput = z.strictObject({ id: z.string().min(1).max(100) });
