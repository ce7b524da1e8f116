import type { TJobModule } from "@posture/jobs";
import { sweepClientHealth } from "../services/client-health";
import { PARTNER_CLIENT_JOB, refreshClient } from "../services/client-refresh";
import { sweepScheduledReports, type TReportDeps } from "../services/scheduled-reports";
import { PARTNER_RADAR_JOB, PARTNER_RADAR_SWEEP_JOB, runRadar, sweepRadar } from "../services/radar";

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
    // A managed client was scanned: its drift, then its partner's radar (services/client-refresh.ts).
    [PARTNER_CLIENT_JOB]: {
      attempts: 3,
      backoffMs: 2_000,
      handler: (data) => refreshClient(deps, clientOrgIdOf(data)),
    },
    // One partner's cross-client radar, coalesced over its clients' scans (services/radar.ts).
    [PARTNER_RADAR_JOB]: {
      attempts: 3,
      backoffMs: 2_000,
      handler: (data) => runRadar(deps, partnerOrgIdOf(data)),
    },
    // Every partner's radar: late anomalies and the moving window.
    [PARTNER_RADAR_SWEEP_JOB]: { attempts: 1, backoffMs: 0, handler: () => sweepRadar(deps) },
  }),
  periodic: [
    { name: PARTNER_REPORTS_JOB, schedulerId: "periodic-partner-reports", everyMs: 3_600_000 },
    { name: PARTNER_HEALTH_JOB, schedulerId: "periodic-partner-health", everyMs: 300_000 },
    { name: PARTNER_RADAR_SWEEP_JOB, schedulerId: "periodic-partner-radar", everyMs: 900_000 },
  ],
};

function clientOrgIdOf(data: unknown): string {
  const orgId = (data as { clientOrgId?: unknown } | null)?.clientOrgId;
  if (typeof orgId !== "string" || orgId.length === 0)
    throw new Error("partner.client.refresh: no clientOrgId");
  return orgId;
}

function partnerOrgIdOf(data: unknown): string {
  const orgId = (data as { partnerOrgId?: unknown } | null)?.partnerOrgId;
  if (typeof orgId !== "string" || orgId.length === 0)
    throw new Error("partner.radar.refresh: no partnerOrgId");
  return orgId;
}
