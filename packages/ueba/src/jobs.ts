import type { TJobModule } from "@posture/jobs";
import type { Db } from "@posture/db";
import type { TJobQueue, TLogger, TRuntime } from "@posture/platform";
import { refreshBehaviour } from "./services/refresh";

export const BEHAVIOUR_REFRESH_JOB = "behavior.refresh";

export type TBehaviourDeps = { db: Db; jobs: TJobQueue; log: TLogger; runtime: TRuntime };

/** `{orgId, changedSince?}`: changedSince (ISO) is the earliest newly stored event, when known. */
const payloadOf = (data: unknown): { orgId: string; changedSince?: Date } => {
  const d = (data ?? {}) as { orgId?: unknown; changedSince?: unknown };
  if (typeof d.orgId !== "string") throw new Error("behavior.refresh without orgId");
  const since = typeof d.changedSince === "string" ? new Date(d.changedSince) : null;
  return since && !Number.isNaN(since.getTime())
    ? { orgId: d.orgId, changedSince: since }
    : { orgId: d.orgId };
};

/** Recomputes an organization's baselines and anomalies; the new ones are announced with them. */
export async function runBehaviourRefresh(deps: TBehaviourDeps, orgId: string, changedSince?: Date) {
  const result = await refreshBehaviour(
    deps.db,
    { orgId, ...(changedSince ? { changedSince } : {}) },
    { jobs: deps.jobs, publicUrl: deps.runtime.publicUrl },
  );
  deps.log.info(
    { orgId, principals: result.principals, anomalies: result.anomalies, new: result.newAnomalies.length },
    "behaviour refreshed",
  );
  return {
    principals: result.principals,
    anomalies: result.anomalies,
    newAnomalies: result.newAnomalies.length,
  };
}

export const behaviourJobs: TJobModule<TBehaviourDeps> = {
  definitions: (deps) => ({
    [BEHAVIOUR_REFRESH_JOB]: {
      attempts: 3,
      backoffMs: 10_000,
      queue: "reports",
      handler: (data) => {
        const p = payloadOf(data);
        return runBehaviourRefresh(deps, p.orgId, p.changedSince);
      },
    },
  }),
};
