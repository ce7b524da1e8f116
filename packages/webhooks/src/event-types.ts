import { z } from "zod";

// The spec's Events table: one schema per event, exactly its data fields.
const ZSeverity = z.enum(["CRITICAL", "HIGH", "MEDIUM", "LOW"]);
const ZCount = z.number().int().min(0);
const ZLink = z.url();

export const ZScanCompletedData = z.strictObject({
  connectorId: z.string().min(1),
  connectorName: z.string(),
  score: z.number().int(),
  findingsTotal: ZCount,
  findingsNew: ZCount,
  link: ZLink,
});

export const ZFindingNewData = z.strictObject({
  findingId: z.string().min(1),
  severity: ZSeverity,
  title: z.string(),
  resource: z.string(),
  link: ZLink,
});

export const ZFindingResolvedData = z.strictObject({
  findingId: z.string().min(1),
  title: z.string(),
  link: ZLink,
});

export const ZPolicyViolationData = z.strictObject({
  ruleId: z.string().min(1),
  severity: ZSeverity,
  count: ZCount,
});

export const ZPreventionTriggeredData = z.strictObject({
  ruleId: z.string().min(1),
  action: z.string().min(1),
  count: ZCount,
  severity: ZSeverity,
});

export const ZAlertGroupedData = z.strictObject({
  category: z.string().min(1),
  severity: ZSeverity,
  count: ZCount,
  title: z.string(),
  link: ZLink,
});

export const EVENT_DATA_SCHEMAS = {
  "scan.completed": ZScanCompletedData,
  "finding.new": ZFindingNewData,
  "finding.resolved": ZFindingResolvedData,
  "policy.violation": ZPolicyViolationData,
  "prevention.triggered": ZPreventionTriggeredData,
  "alert.grouped": ZAlertGroupedData,
} as const;

export type TEventType = keyof typeof EVENT_DATA_SCHEMAS;
export type TEventData<T extends TEventType> = z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>;

export const EVENT_TYPES = Object.keys(EVENT_DATA_SCHEMAS) as [TEventType, ...TEventType[]];
export const ZEventType = z.enum(EVENT_TYPES);
