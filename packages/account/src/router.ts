import { router } from "@posture/platform";
import { createKey } from "./procedures/create-key";
import { getCurrentKey } from "./procedures/get-current-key";
import { getHealth } from "./procedures/get-health";
import { getLiveness } from "./procedures/get-health-live";
import { getSession } from "./procedures/get-session";
import { getUsage } from "./procedures/get-usage";
import { listAudit } from "./procedures/list-audit";
import { listKeys } from "./procedures/list-keys";
import { revokeKey } from "./procedures/delete-key";
import { signIn } from "./procedures/sign-in";
import { signOut } from "./procedures/sign-out";
import { verifyAudit } from "./procedures/verify-audit";

// Keys mirror the REST paths (docs/architecture.md, "Procedure keys").
export const accountRouter = router({
  health: router({ get: getHealth, live: router({ get: getLiveness }) }),
  auth: router({ signIn, signOut, session: router({ get: getSession }) }),
  keys: router({
    list: listKeys,
    create: createKey,
    delete: revokeKey,
    current: router({ get: getCurrentKey }),
  }),
  usage: router({ get: getUsage }),
  audit: router({ list: listAudit, verify: verifyAudit }),
});
