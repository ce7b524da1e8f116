import { z } from "zod";
import type { TMeta } from "@posture/platform";

export const getScanMeta = {
  openapi: {
    method: "GET",
    path: "/connectors/{id}/scans/{scanId}",
    tags: ["connectors"],
    summary: "One scan of a source",
    description:
      "The scan result, as the sync endpoint returns it; the `link` of scan.completed. 404 for an unknown scan, one of another source, or another organization's.",
  },
} satisfies TMeta;
export const ZGetScanInput = z.strictObject({
  id: z.string().min(1).max(100),
  scanId: z.string().min(1).max(100),
});
