import { router } from "@posture/platform";
import { createWebhook } from "./procedures/create-webhook";
import { deleteWebhook } from "./procedures/delete-webhook";
import { listWebhookDeliveries } from "./procedures/list-webhook-deliveries";
import { listWebhooks } from "./procedures/list-webhooks";
import { redeliverWebhook } from "./procedures/redeliver-webhook";

export const webhooksRouter = router({
  webhooks: router({
    list: listWebhooks,
    create: createWebhook,
    delete: deleteWebhook,
    deliveries: router({ list: listWebhookDeliveries, redeliver: redeliverWebhook }),
  }),
});
