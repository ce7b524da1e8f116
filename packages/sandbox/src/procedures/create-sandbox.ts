import { procedure, scopeOf } from "@posture/platform";
import { createSandbox as create } from "../services/organizations";
import { createSandboxMeta, ZCreateSandboxInput, ZCreateSandboxOutput } from "./create-sandbox.types";

// business+: a sandbox is where the API, webhooks and remediation (all business+) are tried, and its
// answer is an API key; a plan without API access has nothing to try there (docs/decisions.md).
export const createSandbox = procedure({ auth: "session", plan: "business", role: "ADMIN" })
  .meta(createSandboxMeta)
  .input(ZCreateSandboxInput)
  .output(ZCreateSandboxOutput)
  .mutation(({ ctx, input }) =>
    create(ctx.db, { ...scopeOf(ctx.principal), name: input.name, partner: input.partner }),
  );
