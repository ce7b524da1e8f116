import { accountRouter } from "@posture/account";
import { router } from "@posture/platform";

// The whole API: REST paths come from each procedure's OpenAPI meta, tRPC paths from these keys.
export const appRouter = router({
  account: accountRouter,
});

export type AppRouter = typeof appRouter;
