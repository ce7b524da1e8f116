import type { TJobModule } from "@posture/jobs";
import { sweepClientHealth } from "../services/client-health";
import { sweepScheduledReports, type TReportDeps } from "../services/scheduled-reports";

export const PARTNER_REPORTS_JOB = "partner.reports.sweep";
export const PARTNER_HEALTH_JOB = "partner.health.sweep";

/** Scheduled portfolio reports and client health notifications; both sweeps are idempotent. */
export const partnerJobModule: TJobModule<TReportDeps> = {
  definitions: (deps) => ({
    // The sweep builds the due portfolio PDFs: report work, not housekeeping.
    [PARTNER_REPORTS_JOB]: {
      attempts: 1,
      backoffMs: 0,
      queue: "reports",
      handler: () => sweepScheduledReports(deps),
    },
    [PARTNER_HEALTH_JOB]: { attempts: 1, backoffMs: 0, handler: () => sweepClientHealth(deps) },
  }),
  periodic: [
    { name: PARTNER_REPORTS_JOB, schedulerId: "periodic-partner-reports", everyMs: 3_600_000 },
    { name: PARTNER_HEALTH_JOB, schedulerId: "periodic-partner-health", everyMs: 300_000 },
  ],
};
