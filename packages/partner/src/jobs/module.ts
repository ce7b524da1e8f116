import type { TJobModule } from "@posture/jobs";
import { sweepClientHealth } from "../services/client-health";
import { PARTNER_CLIENT_JOB, refreshClient } from "../services/client-refresh";
import {
  PARTNER_DRIFT_JOB,
  PARTNER_DRIFT_SWEEP_JOB,
  refreshPartnerDrift,
  sweepDrift,
} from "../services/drift";
import { sweepScheduledReports, type TReportDeps } from "../services/scheduled-reports";
import { PARTNER_RADAR_JOB, PARTNER_RADAR_SWEEP_JOB, runRadar, sweepRadar } from "../services/radar";

export const PARTNER_REPORTS_JOB = "partner.reports.sweep";
export const PARTNER_HEALTH_JOB = "partner.health.sweep";

/** Scheduled portfolio reports, client health, standards drift; every job here is idempotent. */
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
      orgOf: (data) => clientOrgIdOf(data),
      handler: (data) => refreshClient(deps, clientOrgIdOf(data)),
    },
    // A standard, its assignments or a group changed: the partner's clients' drift (services/drift.ts).
    [PARTNER_DRIFT_JOB]: {
      attempts: 3,
      backoffMs: 2_000,
      orgOf: (data) => stringField(data, "partnerOrgId"),
      handler: async (data) => {
        await refreshPartnerDrift(deps, stringField(data, "partnerOrgId"));
      },
    },
    // What a lost job or a change outside a scan (a client editing its rules) left stale.
    [PARTNER_DRIFT_SWEEP_JOB]: {
      attempts: 1,
      backoffMs: 0,
      handler: async () => {
        await sweepDrift(deps);
      },
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
    { name: PARTNER_DRIFT_SWEEP_JOB, schedulerId: "periodic-partner-drift", everyMs: 900_000 },
    { name: PARTNER_RADAR_SWEEP_JOB, schedulerId: "periodic-partner-radar", everyMs: 900_000 },
  ],
};

function clientOrgIdOf(data: unknown): string {
  return stringField(data, "clientOrgId");
}

function stringField(data: unknown, name: string): string {
  const v = (data as Record<string, unknown> | null)?.[name];
  if (typeof v !== "string" || v.length === 0) throw new Error(`partner job: no ${name}`);
  return v;
}

function partnerOrgIdOf(data: unknown): string {
  return stringField(data, "partnerOrgId");
}
