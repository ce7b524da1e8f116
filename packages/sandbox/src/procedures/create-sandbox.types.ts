import { z } from "zod";
import type { TMeta } from "@posture/platform";

export const createSandboxMeta = {
  openapi: {
    method: "POST",
    path: "/sandbox",
    tags: ["sandbox"],
    summary: "Create a sandbox organization",
    description:
      "Makes a new sandbox organization for the signed-in OWNER or ADMIN of a business or enterprise " +
      "organization (a lower plan: 402 `plan_upgrade_required`): enterprise plan, synthetic data only " +
      "(its sources are demo sources: connecting a real one is 409 `sandbox_demo_only`), a partner when " +
      "`partner` is true (with client-health notifications on). The caller becomes its OWNER; the answer carries " +
      "an API key of the sandbox (`apiKey.key`), shown this once. The sandbox is not linked to the caller's " +
      "organization: nothing a scenario does reaches a real tenant or portfolio. 409 `conflict` past 10 " +
      "sandboxes per user, however many requests arrive at once. Scenarios: POST /sandbox/scenarios. See docs/sandbox.md.",
    protect: true,
    successDescription: "Created",
  },
  successStatus: 201,
  errors: ["conflict"],
} satisfies TMeta;

export const ZCreateSandboxInput = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  partner: z.boolean().default(false),
});

export const ZCreateSandboxOutput = z.object({
  id: z.string(),
  name: z.string(),
  plan: z.string(),
  isSandbox: z.literal(true),
  isPartner: z.boolean(),
  apiKey: z.object({
    key: z.string().describe("`svc_ak_…`, shown this once"),
    id: z.string(),
    keyPrefix: z.string(),
  }),
});
