import { procedure, scopeOf } from "@posture/platform";
import { addTrustedDomain as add } from "../services/trusted-domains";
import {
  addTrustedDomainMeta,
  ZAddTrustedDomainInput,
  ZAddTrustedDomainOutput,
} from "./trusted-domains.types";

export const addTrustedDomain = procedure({ auth: "session", role: "ADMIN" })
  .meta(addTrustedDomainMeta)
  .input(ZAddTrustedDomainInput)
  .output(ZAddTrustedDomainOutput)
  .mutation(({ ctx, input }) => add(ctx.db, { ...scopeOf(ctx.principal), ...input }));
