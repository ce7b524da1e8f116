/** Settings every scenario receives from the runner (command-line flags or environment). */
export type TBenchSettings = {
  durationSec: number;
  warmupSec: number;
  connections: number;
  databaseUrl: string;
  redisUrl: string;
};

/** One measured server: what autocannon saw and how much memory the process held afterwards. */
export type TMeasurement = {
  label: string;
  requestsPerSec: number;
  /** The server's CPU time (user + system) per request during the measured run. */
  cpuMsPerRequest: number | null;
  p50Ms: number;
  p99Ms: number;
  rssMb: number | null;
  non2xx: number;
  errors: number;
};

export type TCheck = { label: string; ok: boolean; detail: string };

export type TScenarioOutcome =
  | { kind: "skipped"; reason: string }
  | { kind: "done"; measurements: TMeasurement[]; checks: TCheck[]; notes: string[] };

/** A benchmark scenario: one file under scenarios/, registered in scenarios/index.ts. */
export type TScenario = {
  name: string;
  title: string;
  run: (settings: TBenchSettings) => Promise<TScenarioOutcome>;
};
