export { webhooksRouter } from "./router";
export {
  EVENT_DATA_SCHEMAS,
  EVENT_TYPES,
  ZEventType,
  ZScanCompletedData,
  ZFindingNewData,
  ZFindingResolvedData,
  ZPolicyViolationData,
  ZPreventionTriggeredData,
  ZAlertGroupedData,
  ZPartnerReportReadyData,
  ZClientUnhealthyData,
  ZAnomalyDetectedData,
  ZIncidentCreatedData,
  ZIncidentUpdatedData,
  ZRemediationPlannedData,
  ZRemediationAppliedData,
  ZRemediationFailedData,
  ZRemediationRevertedData,
  ZWebhookTestData,
  SUBSCRIBABLE_EVENT_TYPES,
  ZSubscribableEventType,
  type TEventType,
  type TEventData,
} from "./event-types";
export {
  recordEvent,
  recordTestEvent,
  dispatchDeliveries,
  withEvents,
  DELIVER_JOB,
  type TEmit,
  type TEmitInput,
} from "./services/emit-event";
export { webhookJobDefinitions, webhookJobs, ZDeliverJob } from "./jobs/definitions";
export { deliverWebhook, RECORD_JOB, type TDeliverDeps, type TDeliverOutcome } from "./jobs/deliver";
export { requeueOverdueDeliveries, SWEEP_JOB } from "./jobs/sweep";
export {
  defaultBackoff,
  scheduleBackoff,
  RETRY_SCHEDULE_MS,
  MAX_ATTEMPTS,
  type TBackoff,
} from "./jobs/backoff";
// The SSRF guard lives in the platform (every tenant-supplied URL uses it); re-exported for old imports.
export {
  classifyAddress,
  isPublicAddress,
  vetTarget,
  TargetRefusedError,
  type TAddressClass,
  type TResolver,
  type TResolvedAddress,
} from "@posture/platform";
export { buildPayload, serviceSignature, standardSignature, signedHeaders } from "./signing";
export { webhookDocuments } from "./openapi";
export { DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS } from "./services/rotate-secret";
