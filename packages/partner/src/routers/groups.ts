import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";
import { createGroup } from "../procedures/group-create";
import { deleteGroup } from "../procedures/group-delete";
import { getGroup } from "../procedures/group-get";
import { listGroups } from "../procedures/group-list";
import { setGroupClients } from "../procedures/group-set-clients";
import { updateGroup } from "../procedures/group-update";

/** /api/partner/groups: the partner's named groups of clients (issue 17, item 2). */
export const groupsRouter = (_deps: TPartnerDeps) =>
  router({
    list: listGroups,
    create: createGroup,
    get: getGroup,
    update: updateGroup,
    delete: deleteGroup,
    clients: router({ set: setGroupClients }),
  });
