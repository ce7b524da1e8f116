import { router } from "@posture/platform";
import { createKey } from "./procedures/create-key";
import { getHealth } from "./procedures/get-health";
import { getLiveness } from "./procedures/get-liveness";
import { getSession } from "./procedures/get-session";
import { getUsage } from "./procedures/get-usage";
import { listAudit } from "./procedures/list-audit";
import { listKeys } from "./procedures/list-keys";
import { revokeKey } from "./procedures/revoke-key";
import { signIn } from "./procedures/sign-in";
import { signOut } from "./procedures/sign-out";

export const accountRouter = router({
  health: getHealth,
  liveness: getLiveness,
  signIn,
  signOut,
  getSession,
  listKeys,
  createKey,
  revokeKey,
  getUsage,
  listAudit,
});
