import type { TConnectorType, TSettingValue } from "@posture/connectors";
import type { TComplianceFramework, TSeverity } from "@posture/db";

/** The benchmark a check implements, as it names itself: `{name, version, id}` on the wire. */
export type TBenchmarkRef = { name: string; version: string; id: string };

/** The controls a check evidences, in each of the five frameworks (ids as in the catalogs). */
export type TCheckControls = Record<TComplianceFramework, readonly string[]>;

/**
 * One tenant-configuration check: the benchmark recommendation it implements, the settings it
 * reads (keys of the source's settings list), the test, and what to do when it fails.
 */
export type TTenantCheck = {
  /** Stable id, also the finding's rule id: `gws_…` / `m365_…`. */
  id: string;
  source: TConnectorType;
  benchmark: TBenchmarkRef;
  /** What good looks like, as a statement: "2-Step Verification is enforced for all users". */
  title: string;
  severity: TSeverity;
  /** The setting keys read; a check with any of them unavailable is not evaluated. */
  settings: readonly string[];
  /** The expected value, in words, as an auditor would read it. */
  expected: string;
  test: (values: Readonly<Record<string, TSettingValue>>) => boolean;
  /** The fix, as the admin console names it. */
  fix: string;
  controls: TCheckControls;
};
