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
import { verifyAudit } from "./procedures/verify-audit";

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
  // GET /api/audit/verify; the naming scheme's key (docs/architecture.md).
  audit: router({ verify: verifyAudit }),
});
