import { procedure } from "@posture/platform";
import { getInventory as get } from "../services/inventory";
import { getInventoryMeta, ZGetInventoryInput, ZGetInventoryOutput } from "./list-inventory.types";

export const getInventory = procedure({ auth: "session", role: "ADMIN" })
  .meta(getInventoryMeta)
  .input(ZGetInventoryInput)
  .output(ZGetInventoryOutput)
  .query(({ ctx, input }) => get(ctx.db, { orgId: ctx.principal.org.id, ...input }));
