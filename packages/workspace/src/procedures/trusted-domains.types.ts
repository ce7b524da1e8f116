import type { TMeta } from "@posture/platform";
import { z } from "zod";

// A host name: labels of letters, digits and hyphens, at least one dot, no scheme or path.
const DOMAIN = /^(?=.{3,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const ZTrustedDomain = z.object({
  id: z.string(),
  domain: z.string(),
  note: z.string(),
  createdAt: z.string(),
});
const ZRerated = z.object({
  items: z.number().int().nonnegative(),
  findings: z.number().int().nonnegative(),
});

export const listTrustedDomainsMeta = {
  openapi: {
    method: "GET",
    path: "/sharing/trusted-domains",
    tags: ["sharing"],
    summary: "Trusted outside domains",
    description: "Shares whose every outside domain is trusted (or below one) are rated one severity lower.",
  },
} satisfies TMeta;
export const ZListTrustedDomainsOutput = z.object({ rows: z.array(ZTrustedDomain) });

export const addTrustedDomainMeta = {
  openapi: {
    method: "POST",
    path: "/sharing/trusted-domains",
    tags: ["sharing"],
    summary: "Trust an outside domain",
    description:
      "The affected sharing items, open findings and the flow graph are re-rated at once (`rerated` counts them); audited. 409 conflict if the domain is already trusted.",
    protect: true,
  },
  successStatus: 201,
} satisfies TMeta;
export const ZAddTrustedDomainInput = z.strictObject({
  domain: z.string().trim().toLowerCase().regex(DOMAIN, "a domain name such as partner.com"),
  note: z.string().trim().max(500).default(""),
});
export const ZAddTrustedDomainOutput = ZTrustedDomain.extend({ rerated: ZRerated });

export const removeTrustedDomainMeta = {
  openapi: {
    method: "DELETE",
    path: "/sharing/trusted-domains/{id}",
    tags: ["sharing"],
    summary: "Stop trusting a domain",
    description: "Re-rates the affected items and open findings at once; audited. 404 for an unknown id.",
    protect: true,
  },
} satisfies TMeta;
export const ZRemoveTrustedDomainInput = z.strictObject({ id: z.string().min(1).max(100) });
export const ZRemoveTrustedDomainOutput = z.object({ removed: z.literal(true), rerated: ZRerated });
