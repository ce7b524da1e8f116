import { ZDownload, type TMeta } from "@posture/platform";
import { z } from "zod";
import { ZFramework } from "./create-report.types";

export const getEvidenceMeta = {
  openapi: {
    method: "GET",
    path: "/compliance/evidence/{jobId}",
    tags: ["compliance"],
    summary: "Evidence package status or download",
    description:
      "PENDING or FAILED (with `reason`): JSON. READY: the application/zip attachment, or the JSON shape ({jobId, status, fileCount, controlCount, sizeBytes}) when Accept prefers application/json or `format=json`. A READY package expires 7 days after it was built: 410 `expired`.",
    protect: true,
  },
  download: { contentTypes: ["application/zip"], negotiate: true },
  errors: ["expired"],
} satisfies TMeta;

export const ZGetEvidenceInput = z.strictObject({
  jobId: z.string().min(1).max(64),
  format: z
    .enum(["zip", "json"])
    .default("zip")
    .describe("json: the status even when READY (as Accept: application/json)"),
});

export const ZEvidenceJob = z.object({
  jobId: z.string(),
  status: z.enum(["PENDING", "READY", "FAILED"]),
  framework: ZFramework,
  fileCount: z.number().int().nonnegative(),
  controlCount: z.number().int().nonnegative(),
  sizeBytes: z.number().int().nonnegative(),
  createdAt: z.string().datetime(),
  completedAt: z.string().datetime().nullable(),
  expiresAt: z.string().datetime().nullable(),
  reason: z.string().optional(),
});

export const ZGetEvidenceOutput = z.union([ZEvidenceJob, ZDownload]);
