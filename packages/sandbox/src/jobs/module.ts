import type { TJobModule } from "@posture/jobs";
import { runReset, runScenario, type TSandboxDeps } from "../services/run";
import { RUN_BOUND_MS } from "../services/runs";
import {
  SANDBOX_RESET_JOB,
  SANDBOX_SCENARIO_JOB,
  type TResetJob,
  type TScenarioJob,
} from "../services/scenarios";

/**
 * The sandbox's background work: scenario runs and resets. Each records its own outcome (its
 * sandbox_scenario_runs row and the audit trail's SANDBOX_SCENARIO_FINISHED) and never throws, so the queue does not replay a
 * change: a failed run is asked for again.
 */
export const sandboxJobs: TJobModule<TSandboxDeps> = {
  definitions: (deps) => ({
    [SANDBOX_SCENARIO_JOB]: {
      attempts: 1,
      backoffMs: 0,
      timeoutMs: RUN_BOUND_MS,
      orgOf: (data) => (data as TScenarioJob).orgId,
      handler: (data) => runScenario(deps, data as TScenarioJob),
    },
    [SANDBOX_RESET_JOB]: {
      attempts: 1,
      backoffMs: 0,
      timeoutMs: RUN_BOUND_MS,
      orgOf: (data) => (data as TResetJob).orgId,
      handler: (data) => runReset(deps, data as TResetJob),
    },
  }),
};
