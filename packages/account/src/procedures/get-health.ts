import { publicProcedure } from "@posture/platform";
import { checkHealth } from "../services/health";
import { getHealthMeta, ZHealth, ZHealthInput } from "./get-health.types";

export const getHealth = publicProcedure
  .meta(getHealthMeta)
  .input(ZHealthInput)
  .output(ZHealth)
  .query(async ({ ctx }) => {
    const health = await checkHealth(ctx.probes);
    if (health.status !== "ok") ctx.response.status = 503;
    return health;
  });
