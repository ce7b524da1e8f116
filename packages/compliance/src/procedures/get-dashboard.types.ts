import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { CONTROL_STATUSES } from "../engine/evaluate";
import { ZFramework, ZTenantCheckEvidence } from "./create-report.types";

export const getDashboardMeta = {
  openapi: {
    method: "GET",
    path: "/compliance/dashboard",
    tags: ["compliance"],
    summary: "Compliance dashboard",
    description:
      "Every framework (soc2, iso27001, gdpr, hipaa, nist_csf) over the last 30 days: the share of satisfied controls, partial and gap counts; `crossGaps` lists the themes (MFA, external sharing, third-party apps…) failing in two or more frameworks. Controls evidenced by tenant-configuration checks (the tenant's settings against the CIS benchmarks) are counted and named per framework.",
    protect: true,
  },
} satisfies TMeta;

export const ZGetDashboardInput = z.strictObject({});

export const ZGetDashboardOutput = z.object({
  periodDays: z.number().int().nonnegative(),
  frameworks: z.array(
    z.object({
      id: ZFramework,
      name: z.string(),
      satisfiedPct: z.number().min(0).max(100),
      satisfied: z.number().int().nonnegative(),
      partial: z.number().int().nonnegative(),
      gap: z.number().int().nonnegative(),
      controls: z.number().int().nonnegative(),
      evidencedByTenantChecks: z
        .number()
        .int()
        .nonnegative()
        .describe("How many of the framework's controls tenant-configuration checks evidence"),
      tenantControls: z
        .array(
          z.object({
            id: z.string(),
            title: z.string(),
            status: z.enum(CONTROL_STATUSES),
            tenantChecks: z.array(ZTenantCheckEvidence),
          }),
        )
        .describe("Those controls, each naming its checks (CIS benchmark ids) and how they stand"),
    }),
  ),
  crossGaps: z.array(z.object({ theme: z.string(), frameworks: z.array(ZFramework), reason: z.string() })),
});
