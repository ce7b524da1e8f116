import { procedure, scopeOf } from "@posture/platform";
import { requestManualScan } from "../services/manual-scan";
import { syncConnectorMeta, ZScanResult, ZSyncConnectorInput } from "./connectors.types";

export const syncConnector = procedure({ auth: "session" })
  .meta(syncConnectorMeta)
  .input(ZSyncConnectorInput)
  .output(ZScanResult)
  .mutation(async ({ ctx, input }) => {
    const { result, finished } = await requestManualScan(
      ctx.db,
      {
        ...scopeOf(ctx.principal),
        plan: ctx.principal.org.plan,
        connectorId: input.id,
        full: input.full,
        demo: input.demo,
      },
      { jobs: ctx.jobs, log: ctx.log },
    );
    if (!finished) ctx.response.status = 202;
    return result;
  });
