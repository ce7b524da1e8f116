import { z } from "zod";
import type { TMeta } from "@posture/platform";
import { ZId } from "./action.types";

export const createActionMeta = {
  openapi: {
    method: "POST",
    path: "/partner/actions",
    tags: ["partner"],
    summary: "Act once, everywhere: plan a remediation in every affected client",
    description:
      "From a campaign (`campaignId`) or a standard's drift (`standardId`, optionally one `rule`), plans one remediation in each affected client the partner may act on (managed, consent not withdrawn), optionally only `clientOrgIds`. Per client: an app or AI agent campaign revokes that client's grants of the app; an outside-domain campaign, or a `trusted_domain:<domain>` drift for a domain the standard does not trust, removes the client's outside shares to that domain; anomalies and policy, prevention or score drift are not remediable and say why. Each plan is the client's own (PLANNED, audited there, `remediation.planned`): the client's approval rules decide who approves it. 404 for another partner's campaign or standard and for a client the partner may not act on; 400 when no client is affected.",
    protect: true,
  },
  successStatus: 201,
  errors: ["not_found"],
} satisfies TMeta;

/** Only these of the source's clients; one the partner may not act on is 404. */
const ZClientOrgIds = z
  .array(ZId)
  .min(1)
  .max(1_000)
  .refine((l) => new Set(l).size === l.length, { message: "clientOrgIds must not repeat" })
  .optional();

/**
 * `{campaignId}` or `{standardId, rule?}`, each optionally with `clientOrgIds`. One object (REST
 * bodies are objects): the service refuses both or neither source, and a rule without a standard.
 */
export const ZCreateActionInput = z.strictObject({
  campaignId: ZId.optional(),
  standardId: ZId.optional(),
  /** With standardId: act on this rule's drift only (`trusted_domain:<domain>`, `policy:<id>`…). */
  rule: z.string().min(1).max(300).optional(),
  clientOrgIds: ZClientOrgIds,
});
