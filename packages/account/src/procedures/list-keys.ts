import { procedure } from "@posture/platform";
import { listKeys as listKeysService } from "../services/api-keys";
import { listKeysMeta, ZListKeysInput, ZListKeysOutput } from "./list-keys.types";

export const listKeys = procedure({ auth: "apiKey", feature: "apiAccess", role: "ADMIN" })
  .meta(listKeysMeta)
  .input(ZListKeysInput)
  .output(ZListKeysOutput)
  .query(async ({ ctx }) => ({ keys: await listKeysService(ctx.db, { orgId: ctx.principal.org.id }) }));
