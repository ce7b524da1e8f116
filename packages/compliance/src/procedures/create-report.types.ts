import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { COMPLIANCE_FRAMEWORKS } from "../catalogs";
import { CONTROL_STATUSES } from "../engine/evaluate";

export const createReportMeta = {
  openapi: {
    method: "POST",
    path: "/compliance/reports",
    tags: ["compliance"],
    summary: "Run an evidence report",
    description:
      "Evaluates one framework's controls (SATISFIED, PARTIAL or GAP) from the findings, resources, audit trail, incidents and awareness data of the last `period` days, and stores the run (`runId`). Each control carries the reason for its status and the findings behind it.",
    protect: true,
  },
} satisfies TMeta;

export const ZFramework = z.enum(COMPLIANCE_FRAMEWORKS);

export const ZCreateReportInput = z.strictObject({
  period: z
    .number()
    .int()
    .min(1)
    .max(365)
    .default(30)
    .describe("Look-back window in days (1 to 365; default 30)"),
  framework: ZFramework.default("soc2"),
});

export const ZTenantCheckEvidence = z.object({
  id: z.string().describe("The check id, also the rule id of its finding when it fails"),
  benchmark: z
    .object({ name: z.string(), version: z.string(), id: z.string() })
    .describe(
      'The benchmark recommendation, e.g. `{name: "CIS Google Workspace Foundations", version: "1.3.0", id: "4.1.1.1"}`',
    ),
  status: z
    .enum(["pass", "fail", "unavailable"])
    .describe(
      "Over the organization's connectors: failing on any fails; unavailable when none could read its settings",
    ),
});

export const ZControlOut = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(CONTROL_STATUSES),
  reason: z.string(),
  findingIds: z.array(z.string()),
  tenantChecks: z
    .array(ZTenantCheckEvidence)
    .describe(
      "The tenant-configuration checks evidencing this control, from the scans of the period (empty when none is mapped or run). A failing CRITICAL/HIGH check makes the control a GAP, a failing MEDIUM/LOW or unreadable one PARTIAL.",
    ),
});

export const ZCreateReportOutput = z.object({
  runId: z.string(),
  report: z.object({
    framework: ZFramework,
    periodDays: z.number().int().nonnegative(),
    satisfied: z.number().int().nonnegative(),
    partial: z.number().int().nonnegative(),
    gap: z.number().int().nonnegative(),
    controls: z.array(ZControlOut),
  }),
});
