import { procedure, scopeOf } from "@posture/platform";
import { getPartnerAccess as get, setPartnerAccess } from "../services/access";
import {
  getPartnerAccessMeta,
  grantPartnerAccessMeta,
  withdrawPartnerAccessMeta,
  ZPartnerAccessInput,
  ZPartnerAccessOutput,
} from "./partner-access.types";

// The client organization's side of its partner's access: any member reads it, the OWNER changes it.
export const getPartnerAccess = procedure({ auth: "apiKey" })
  .meta(getPartnerAccessMeta)
  .input(ZPartnerAccessInput)
  .output(ZPartnerAccessOutput)
  .query(({ ctx }) => get(ctx.db, { orgId: ctx.principal.org.id }));

export const withdrawPartnerAccess = procedure({ auth: "apiKey", role: "OWNER" })
  .meta(withdrawPartnerAccessMeta)
  .input(ZPartnerAccessInput)
  .output(ZPartnerAccessOutput)
  .mutation(({ ctx }) =>
    setPartnerAccess(ctx.db, ctx.jobs, { ...scopeOf(ctx.principal), access: "withdrawn" }),
  );

export const grantPartnerAccess = procedure({ auth: "apiKey", role: "OWNER" })
  .meta(grantPartnerAccessMeta)
  .input(ZPartnerAccessInput)
  .output(ZPartnerAccessOutput)
  .mutation(({ ctx }) =>
    setPartnerAccess(ctx.db, ctx.jobs, { ...scopeOf(ctx.principal), access: "granted" }),
  );
