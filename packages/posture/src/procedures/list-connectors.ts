import { procedure } from "@posture/platform";
import { z } from "zod";
import { listConnectors as list } from "../services/connectors";
import { listConnectorsMeta, ZListConnectorsOutput } from "./connectors.types";

export const listConnectors = procedure({ auth: "apiKey" })
  .meta(listConnectorsMeta)
  .input(z.void())
  .output(ZListConnectorsOutput)
  .query(async ({ ctx }) => ({ connectors: await list(ctx.db, { orgId: ctx.principal.org.id }) }));
