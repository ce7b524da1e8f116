import { procedure, scopeOf } from "@posture/platform";
import { updateConnector as update } from "../services/connectors";
import { updateConnectorMeta, ZConnector, ZUpdateConnectorInput } from "./connectors.types";

/** PATCH /api/connectors/{id}: an ADMIN+ (session or API key) renames it or sets its write access. */
export const updateConnector = procedure({ auth: "apiKey", role: "ADMIN" })
  .meta(updateConnectorMeta)
  .input(ZUpdateConnectorInput)
  .output(ZConnector)
  .mutation(({ ctx, input }) => update(ctx.db, { ...scopeOf(ctx.principal), ...input }));
