import { procedure } from "@posture/platform";
import { z } from "zod";
import { listTrustedDomains as list } from "../services/trusted-domains";
import { listTrustedDomainsMeta, ZListTrustedDomainsOutput } from "./trusted-domains.types";

export const listTrustedDomains = procedure({ auth: "session", role: "ADMIN" })
  .meta(listTrustedDomainsMeta)
  .input(z.void())
  .output(ZListTrustedDomainsOutput)
  .query(({ ctx }) => list(ctx.db, { orgId: ctx.principal.org.id }));
