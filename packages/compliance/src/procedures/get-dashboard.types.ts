import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { ZFramework } from "./create-report.types";

export const getDashboardMeta = {
  openapi: {
    method: "GET",
    path: "/compliance/dashboard",
    tags: ["compliance"],
    summary: "Compliance dashboard",
    description:
      "Every framework (soc2, iso27001, gdpr, hipaa, nist_csf) over the last 30 days: the share of satisfied controls, partial and gap counts; `crossGaps` lists the themes (MFA, external sharing, third-party apps…) failing in two or more frameworks.",
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
    }),
  ),
  crossGaps: z.array(z.object({ theme: z.string(), frameworks: z.array(ZFramework), reason: z.string() })),
});
