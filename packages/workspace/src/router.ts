import { router } from "@posture/platform";
import { addTrustedDomain } from "./procedures/create-trusted-domain";
import { approveShare } from "./procedures/create-sharing-approval";
import { getInventory } from "./procedures/list-inventory";
import { getSharingOverview } from "./procedures/get-sharing-overview";
import { listSharingItems } from "./procedures/list-sharing-items";
import { listTrustedDomains } from "./procedures/list-trusted-domains";
import { removeTrustedDomain } from "./procedures/delete-trusted-domain";
import { withdrawApproval } from "./procedures/delete-sharing-approval";

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
