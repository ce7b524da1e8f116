import type { Db } from "@posture/db";
import type { TJobModule } from "@posture/jobs";
import type { TJobQueue, TRuntime } from "@posture/platform";
import { announceApproachingDeadlines } from "./services/deadline-notices";

export const INCIDENT_DEADLINES_JOB = "incident.deadlines-sweep";

/** Every 10 minutes: the notices lead their deadlines by a day or more, so that is soon enough. */
export const incidentJobs: TJobModule<{ db: Db; jobs: TJobQueue; runtime: TRuntime }> = {
  definitions: (deps) => ({
    [INCIDENT_DEADLINES_JOB]: {
      attempts: 1,
      backoffMs: 0,
      queue: "maintenance",
      handler: async () => ({
        announced: (
          await announceApproachingDeadlines(deps.db, { jobs: deps.jobs, publicUrl: deps.runtime.publicUrl })
        ).length,
      }),
    },
  }),
  periodic: [
    { name: INCIDENT_DEADLINES_JOB, schedulerId: "periodic-incident-deadlines", everyMs: 10 * 60_000 },
  ],
};
