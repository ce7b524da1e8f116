import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { ZFramework } from "./create-report.types";

export const generateEvidenceMeta = {
  openapi: {
    method: "POST",
    path: "/compliance/evidence/generate",
    tags: ["compliance"],
    summary: "Build an evidence package",
    description:
      "Queues the build of a ZIP evidence package for one framework (last 90 days): manifest.json with every file's size and SHA-256, index.html, controls.csv, per-control evidence, configuration (MFA coverage, admins, external shares, OAuth apps), an audit-log extract with its hash-chain verification, and the gap report PDF. Poll GET /compliance/evidence/{jobId}. 409 `conflict` while a package for the same framework is still being built.",
    protect: true,
  },
  successStatus: 202,
} satisfies TMeta;

export const ZGenerateEvidenceInput = z.strictObject({ framework: ZFramework });
export const ZGenerateEvidenceOutput = z.object({ jobId: z.string(), status: z.literal("PENDING") });
