import { z } from "zod";
import type { TMeta } from "@posture/platform";

export const getFindingMeta = {
  openapi: {
    method: "GET",
    path: "/findings/{id}",
    tags: ["findings"],
    summary: "One finding",
    description:
      "The finding as GET /findings lists it, whatever its status; the `link` of finding.new and finding.resolved. 404 for an unknown id or another organization's.",
  },
} satisfies TMeta;
export const ZGetFindingInput = z.strictObject({ id: z.string().min(1).max(100) });
