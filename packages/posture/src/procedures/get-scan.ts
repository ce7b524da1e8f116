import { procedure } from "@posture/platform";
import { getScan as get } from "../services/connectors";
import { ZScanResult } from "./connectors.types";
import { getScanMeta, ZGetScanInput } from "./get-scan.types";

export const getScan = procedure({ auth: "apiKey" })
  .meta(getScanMeta)
  .input(ZGetScanInput)
  .output(ZScanResult)
  .query(({ ctx, input }) =>
    get(ctx.db, { orgId: ctx.principal.org.id, connectorId: input.id, scanId: input.scanId }),
  );
