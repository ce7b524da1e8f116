import { procedure } from "@posture/platform";
import { listSharingItems as list } from "../services/sharing-items";
import { listSharingItemsMeta, ZListSharingItemsInput, ZListSharingItemsOutput } from "./sharing.types";

export const listSharingItems = procedure({ auth: "session", role: "ADMIN" })
  .meta(listSharingItemsMeta)
  .input(ZListSharingItemsInput)
  .output(ZListSharingItemsOutput)
  .query(({ ctx, input }) => list(ctx.db, { orgId: ctx.principal.org.id, ...input }));
