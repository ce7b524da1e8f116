import { procedure, scopeOf } from "@posture/platform";
import { removeTrustedDomain as remove } from "../services/trusted-domains";
import {
  removeTrustedDomainMeta,
  ZRemoveTrustedDomainInput,
  ZRemoveTrustedDomainOutput,
} from "./trusted-domains.types";

export const removeTrustedDomain = procedure({ auth: "session", role: "ADMIN" })
  .meta(removeTrustedDomainMeta)
  .input(ZRemoveTrustedDomainInput)
  .output(ZRemoveTrustedDomainOutput)
  .mutation(({ ctx, input }) => remove(ctx.db, { ...scopeOf(ctx.principal), id: input.id }));
