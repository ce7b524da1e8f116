import { ZTimestamp, type TMeta } from "@posture/platform";
import { z } from "zod";

const consent =
  "While access is withdrawn the partner's reads of this organization (portfolio, reports, /partner/clients/{orgId}/…) and its actions here answer 404, from its next request on.";

export const getPartnerAccessMeta = {
  openapi: {
    method: "GET",
    path: "/partner-access",
    tags: ["partner-access"],
    summary: "The managing partner and its access to this organization",
    description: `\`partner: null\` (and \`access: null\`) when no partner manages the organization. ${consent}`,
    protect: true,
  },
  errors: ["not_found"],
} satisfies TMeta;

const changeMeta = (method: "DELETE" | "PUT", summary: string, what: string): TMeta => ({
  openapi: {
    method,
    path: "/partner-access",
    tags: ["partner-access"],
    summary,
    description: `${what} OWNER only. Audited in this organization and the partner's (PARTNER_ACCESS_WITHDRAWN / PARTNER_ACCESS_GRANTED) and announced to the partner (partner.access.changed); asking for the state it already has changes nothing. 404 when no partner manages the organization. ${consent}`,
    protect: true,
  },
  errors: ["not_found"],
});

export const withdrawPartnerAccessMeta = changeMeta(
  "DELETE",
  "Withdraw the managing partner's access",
  "The partner stays the manager but reads and acts here no more until access is granted again.",
);
export const grantPartnerAccessMeta = changeMeta(
  "PUT",
  "Grant the managing partner access again",
  "After a withdrawal, the partner reads and acts here again.",
);

export const ZPartnerAccessInput = z.strictObject({});

export const ZPartnerAccessOutput = z.object({
  partner: z
    .object({ orgId: z.string(), name: z.string() })
    .nullable()
    .describe("The managing partner; null when none manages the organization"),
  access: z.enum(["granted", "withdrawn"]).nullable().describe("null when no partner manages it"),
  grantedAt: ZTimestamp.nullable().describe("When access was last granted"),
  withdrawnAt: ZTimestamp.nullable().describe("When access was withdrawn; null while granted"),
});
