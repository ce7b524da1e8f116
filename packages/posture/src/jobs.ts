import type { Db } from "@posture/db";
import type { TJobModule } from "@posture/jobs";
import type { TLogger, TRuntime } from "@posture/platform";
import { closeResolvedTickets, TICKET_CLOSE_SWEEP_JOB } from "./services/ticket-close";

/** Tickets of resolved findings, closed in their tracker (retried each minute until it succeeds). */
export const postureJobs: TJobModule<{ db: Db; runtime: TRuntime; log: TLogger }> = {
  definitions: (deps) => ({
    [TICKET_CLOSE_SWEEP_JOB]: {
      attempts: 1,
      backoffMs: 0,
      handler: async () => void (await closeResolvedTickets(deps.db, deps)),
    },
  }),
  periodic: [{ name: TICKET_CLOSE_SWEEP_JOB, schedulerId: "periodic-ticket-close", everyMs: 60_000 }],
};
