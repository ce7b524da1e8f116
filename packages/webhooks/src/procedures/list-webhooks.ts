import { procedure } from "@posture/platform";
import { listSubscriptions } from "../services/subscriptions";
import { listWebhooksMeta, ZListWebhooksInput, ZListWebhooksOutput } from "./list-webhooks.types";

export const listWebhooks = procedure({ auth: "session", role: "ADMIN" })
  .meta(listWebhooksMeta)
  .input(ZListWebhooksInput)
  .output(ZListWebhooksOutput)
  .query(async ({ ctx }) => ({ webhooks: await listSubscriptions(ctx.db, { orgId: ctx.principal.org.id }) }));
