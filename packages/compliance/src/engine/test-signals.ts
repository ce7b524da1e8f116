import type { TSignals } from "./signals";

/** Signals of a well-run organization over October 2026, for the engine's tests to vary. */
export function signals(o: Partial<TSignals> = {}): TSignals {
  return {
    period: { days: 30, from: "2026-10-01T00:00:00.000Z", to: "2026-10-31T00:00:00.000Z" },
    sources: { connected: 1, unhealthy: 0, scansInPeriod: 3, lastScanAt: "2026-10-30T00:00:00.000Z" },
    posture: { score: 92, grade: "A" },
    openByRule: {},
    topFindings: [],
    resolvedInPeriod: 4,
    users: { total: 50, active: 48, mfa: 48, admins: 3, adminsWithoutMfa: 0, dormant: 0, riskySharers: 1 },
    files: {
      total: 1000,
      public: 0,
      external: 0,
      sensitive: 10,
      sensitiveLabelled: 10,
      orgWide: 0,
      orgWideSensitive: 0,
    },
    apps: { total: 4, unverified: 0, aiAgents: 1 },
    trustedDomains: 2,
    audit: { entriesInPeriod: 20, total: 200, chainIntact: true, brokenAtSeq: null },
    incidents: { inPeriod: 1, open: 0, resolved: 1, withPostMortem: 1 },
    activityEventsInPeriod: 500,
    tenantChecks: [],
    ...o,
  };
}
