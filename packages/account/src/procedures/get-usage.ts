import { procedure } from "@posture/platform";
import { getUsage as getUsageService } from "../services/usage";
import { getUsageMeta, ZGetUsageInput, ZUsage } from "./get-usage.types";

export const getUsage = procedure({ auth: "apiKey" })
  .meta(getUsageMeta)
  .input(ZGetUsageInput)
  .output(ZUsage)
  .query(({ ctx }) => getUsageService(ctx.db, { orgId: ctx.principal.org.id }));
