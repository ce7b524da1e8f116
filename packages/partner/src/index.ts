export { buildPartnerRouter } from "./router";
export type { TPartnerDeps } from "./deps";
export { clientRead, type TClientRead, type TClientReads, type TClientViewer } from "./client-reads";
export type { TPlanRemediation } from "./act-once";
export { partnerJobModule, PARTNER_HEALTH_JOB, PARTNER_REPORTS_JOB } from "./jobs/module";
export { fetchLogo, guardedFetcher, sniffImage, LOGO_MAX_BYTES, type TLogoFetcher } from "./services/logo";
export { getPortfolio, getClientReport } from "./services/portfolio";
export { portfolioForPeriod } from "./services/portfolio-pdf";
export {
  lastCompletePeriod,
  sweepScheduledReports,
  buildScheduledReport,
} from "./services/scheduled-reports";
export { sweepClientHealth, SCORE_DROP_POINTS } from "./services/client-health";
export { PARTNER_CLIENT_JOB, queueClientRefresh, refreshClient } from "./services/client-refresh";
export { PARTNER_RADAR_JOB, PARTNER_RADAR_SWEEP_JOB, radarJobId, runRadar } from "./services/radar";
export { createStandard } from "./services/standards";
