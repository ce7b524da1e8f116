import { procedure, scopeOf } from "@posture/platform";
import { requestManualScan } from "../services/manual-scan";
import { syncConnectorMeta, ZConnectorIdInput, ZScanResult } from "./connectors.types";

export const syncConnector = procedure({ auth: "session" })
  .meta(syncConnectorMeta)
  .input(ZConnectorIdInput)
  .output(ZScanResult)
  .mutation(async ({ ctx, input }) => {
    const { result, finished } = await requestManualScan(
      ctx.db,
      { ...scopeOf(ctx.principal), plan: ctx.principal.org.plan, connectorId: input.id },
      { jobs: ctx.jobs, log: ctx.log },
    );
    if (!finished) ctx.response.status = 202;
    return result;
  });
