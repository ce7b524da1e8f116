import { accountRouter } from "@posture/account";
import { router } from "@posture/platform";
import { postureRouter } from "@posture/posture";
import { webhooksRouter } from "@posture/webhooks";

// The whole API: REST paths come from each procedure's OpenAPI meta, tRPC paths from these keys.
export const appRouter = router({
  account: accountRouter,
  posture: postureRouter,
  webhooks: webhooksRouter,
});

export type AppRouter = typeof appRouter;
