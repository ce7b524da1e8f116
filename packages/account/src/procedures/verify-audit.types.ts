import { type TMeta, ZTimestamp } from "@posture/platform";
import { z } from "zod";

export const verifyAuditMeta = {
  openapi: {
    method: "GET",
    path: "/audit/verify",
    tags: ["audit"],
    summary: "Verify the audit chain",
    description:
      "Recomputes the organization's whole audit hash chain (HMAC-SHA256 with the server's key, rows from before the keyed chain SHA-256) and reports whether it is intact. `brokenAt` names the first entry whose link, sequence number or MAC does not hold: an entry altered, removed or inserted around the service. Nothing is written.",
    protect: true,
  },
  // One query over the whole chain: on a large organization it outlasts a request's 2 s bound.
  longReads: true,
  // It exists to find changes made outside the service: verified on every request, never kept.
  readCache: false,
} satisfies TMeta;

export const ZVerifyAuditInput = z.void();

export const ZVerifyAuditOutput = z.object({
  ok: z.boolean(),
  entries: z.number().int().nonnegative().describe("Entries checked, in chain order"),
  unkeyedEntries: z
    .number()
    .int()
    .nonnegative()
    .describe("Of those, entries from before the keyed chain, linked with plain SHA-256"),
  brokenAt: z
    .object({
      seq: z.number().int().positive().describe("The entry's position in the chain, from 1"),
      id: z.string().nullable().describe("The audit entry's id, as GET /api/audit shows it"),
      createdAt: ZTimestamp.nullable(),
      reason: z.string(),
    })
    .nullable()
    .describe("The first entry that does not verify; null when the chain is intact"),
  verifiedAt: ZTimestamp,
});
