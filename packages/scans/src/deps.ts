import type { TConnectorType, TSourceAdapter } from "@posture/connectors";
import type { TTenantCheck } from "@posture/benchmarks";
import type { connectors, Db } from "@posture/db";
import type { TJobQueue, TLogger, TRuntime } from "@posture/platform";

export const SCAN_SWEEP_JOB = "scan.sweep-due";
export const SCAN_ATTEMPTS = 3;
/** A connector's activity ingestion, queued by each completed scan (one at a time per connector). */
export const ACTIVITY_JOB = "scan.activity";
export const ACTIVITY_ATTEMPTS = 4;

export type TConnectorRow = typeof connectors.$inferSelect;

export type TScanDeps = {
  db: Db;
  jobs: TJobQueue;
  runtime: TRuntime;
  log: TLogger;
  /** Overridable for tests that point a real-mode connector at a fake source. */
  adapterFor?: (connector: TConnectorRow, runtime: TRuntime) => TSourceAdapter;
  /** The tenant-configuration checks of a source; the benchmark catalogs unless a test injects its own. */
  tenantChecks?: (type: TConnectorType) => readonly TTenantCheck[];
};
