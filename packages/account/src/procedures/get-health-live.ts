import { publicProcedure } from "@posture/platform";
import { getLivenessMeta, ZLiveness, ZLivenessInput } from "./get-health-live.types";

// No dependency is consulted: an orchestrator restarts a process that fails this, and restarting
// a gateway because its database is down would only add to the outage.
export const getLiveness = publicProcedure
  .meta(getLivenessMeta)
  .input(ZLivenessInput)
  .output(ZLiveness)
  .query(() => ({
    status: "ok" as const,
    time: new Date().toISOString(),
    uptimeSeconds: Math.floor(process.uptime()),
  }));
