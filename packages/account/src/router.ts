import { router } from "@posture/platform";
import { getHealth } from "./procedures/get-health";

export const accountRouter = router({
  health: getHealth,
});
