import { router } from "@posture/platform";
import { createSandbox } from "./procedures/create-sandbox";
import { createScenario } from "./procedures/create-scenario";
import { getScenario } from "./procedures/get-scenario";
import { resetSandbox } from "./procedures/reset-sandbox";

export const sandboxRouter = router({
  sandbox: router({
    create: createSandbox,
    scenarios: router({ create: createScenario, get: getScenario }),
    reset: resetSandbox,
  }),
});
