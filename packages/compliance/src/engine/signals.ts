import type { TSeverity } from "@posture/db";
import type { TTenantCheckSignal } from "./tenant-checks";

/** One open finding named as a reason (the worst few per rule are kept, not all of them). */
export type TFindingRef = {
  id: string;
  ruleId: string;
  severity: TSeverity;
  title: string;
  resourceName: string;
  /** The source the finding is from (its connector's type), so equal titles stay distinguishable. */
  source: string;
};

/**
 * Everything the control evaluation reads about one organization over one period, gathered once
 * (services/signals.ts) so that five frameworks are judged on the same facts.
 */
export type TSignals = {
  period: { days: number; from: string; to: string };
  sources: { connected: number; unhealthy: number; scansInPeriod: number; lastScanAt: string | null };
  posture: { score: number | null; grade: string | null };
  /** Open findings per rule id and severity. */
  openByRule: Record<string, Partial<Record<TSeverity, number>>>;
  /** The most severe open findings of each rule, at most a handful per rule. */
  topFindings: TFindingRef[];
  resolvedInPeriod: number;
  users: {
    total: number;
    active: number;
    mfa: number;
    admins: number;
    adminsWithoutMfa: number;
    dormant: number;
    riskySharers: number;
  };
  files: {
    total: number;
    public: number;
    external: number;
    sensitive: number;
    sensitiveLabelled: number;
    /** Files everyone in the organization can open (`reach.orgWide`), and the highly sensitive ones. */
    orgWide: number;
    orgWideSensitive: number;
  };
  apps: { total: number; unverified: number; aiAgents: number };
  trustedDomains: number;
  audit: { entriesInPeriod: number; total: number; chainIntact: boolean; brokenAtSeq: number | null };
  incidents: { inPeriod: number; open: number; resolved: number; withPostMortem: number };
  activityEventsInPeriod: number;
  /** The latest result of each tenant-configuration check run on the organization's connectors. */
  tenantChecks: TTenantCheckSignal[];
};
