import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";
import { createGroup } from "../procedures/create-group";
import { deleteGroup } from "../procedures/delete-group";
import { getGroup } from "../procedures/get-group";
import { listGroups } from "../procedures/list-groups";
import { setGroupClients } from "../procedures/set-group-clients";
import { updateGroup } from "../procedures/update-group";

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
