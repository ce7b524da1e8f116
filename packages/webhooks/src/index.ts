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
  type TEventType,
  type TEventData,
} from "./event-types";
export { emitEvent, DELIVER_JOB, type TEmitInput } from "./services/emit-event";
export { webhookJobDefinitions, ZDeliverJob } from "./jobs/definitions";
export { deliverWebhook, type TDeliverDeps, type TDeliverOutcome } from "./jobs/deliver";
export { requeueOverdueDeliveries, SWEEP_JOB } from "./jobs/sweep";
export {
  defaultBackoff,
  scheduleBackoff,
  RETRY_SCHEDULE_MS,
  MAX_ATTEMPTS,
  type TBackoff,
} from "./jobs/backoff";
export { classifyAddress, isPublicAddress, type TAddressClass } from "./ip-ranges";
export { vetTarget, TargetRefusedError, type TResolver, type TResolvedAddress } from "./ssrf";
export { buildPayload, serviceSignature, standardSignature, signedHeaders } from "./signing";
