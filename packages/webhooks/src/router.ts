import { router } from "@posture/platform";
import { createWebhook } from "./procedures/create-webhook";
import { deleteWebhook } from "./procedures/delete-webhook";
import { listWebhookDeliveries } from "./procedures/list-webhook-deliveries";
import { listWebhooks } from "./procedures/list-webhooks";
import { redeliverWebhook } from "./procedures/redeliver-webhook";
import { rotateWebhookSecret } from "./procedures/rotate-webhook-secret";
import { testWebhook } from "./procedures/test-webhook";

export const webhooksRouter = router({
  webhooks: router({
    list: listWebhooks,
    create: createWebhook,
    delete: deleteWebhook,
    test: testWebhook,
    rotateSecret: rotateWebhookSecret,
    deliveries: router({ list: listWebhookDeliveries, redeliver: redeliverWebhook }),
  }),
});
