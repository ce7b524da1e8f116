import { router } from "@posture/platform";
import { addTrustedDomain } from "./procedures/add-trusted-domain";
import { approveShare } from "./procedures/approve-share";
import { getInventory } from "./procedures/get-inventory";
import { getSharingOverview } from "./procedures/get-sharing-overview";
import { listSharingItems } from "./procedures/list-sharing-items";
import { listTrustedDomains } from "./procedures/list-trusted-domains";
import { removeTrustedDomain } from "./procedures/remove-trusted-domain";
import { withdrawApproval } from "./procedures/withdraw-approval";

export const workspaceRouter = router({
  inventory: router({ list: getInventory }),
  sharing: router({
    overview: router({ get: getSharingOverview }),
    items: router({ list: listSharingItems }),
    trustedDomains: router({
      list: listTrustedDomains,
      create: addTrustedDomain,
      delete: removeTrustedDomain,
    }),
    approvals: router({ create: approveShare, delete: withdrawApproval }),
  }),
});
