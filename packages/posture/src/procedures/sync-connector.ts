import { procedure } from "@posture/platform";
import { requestManualScan } from "../services/manual-scan";
import { syncConnectorMeta, ZConnectorIdInput, ZScanResult } from "./connectors.types";

export const syncConnector = procedure({ auth: "session" })
  .meta(syncConnectorMeta)
  .input(ZConnectorIdInput)
  .output(ZScanResult)
  .mutation(async ({ ctx, input }) => {
    const { result, finished } = await requestManualScan(
      { db: ctx.db, jobs: ctx.jobs, runtime: ctx.runtime, log: ctx.log },
      ctx.principal,
      input.id,
    );
    if (!finished) ctx.response.status = 202;
    return result;
  });
