import { offsetInput, ZOffsetMeta, ZTimestamp, type TMeta } from "@posture/platform";
import { z } from "zod";

const tags = ["partner"];
const GROUPS = "/partner/groups";

export const ZGroupId = z.string().min(1).max(64);
// An organization id as the partner names it; unknown or not its own: 404.
export const ZClientOrgId = z.string().min(1).max(64);

/** A list of client ids without repeats (a repeat is a mistake, not something to fold silently). */
export const ZClientOrgIds = z
  .array(ZClientOrgId)
  .max(1000)
  .refine((ids) => new Set(ids).size === ids.length, { message: "must not repeat an id" });

export const ZGroup = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  clientCount: z.number().int().min(0).describe("Clients in the group the partner manages with consent"),
  createdAt: ZTimestamp,
});
export const ZGroupDetail = ZGroup.extend({
  clients: z.array(z.object({ orgId: z.string(), name: z.string() })),
});

const ZName = z.string().trim().min(1).max(120);
const ZDescription = z.string().trim().max(1000).nullable();

export const listGroupsMeta = {
  openapi: {
    method: "GET",
    path: GROUPS,
    tags,
    summary: "List client groups",
    description: "The partner's named groups of clients, by name (offset-paged).",
    protect: true,
  },
} satisfies TMeta;
export const ZListGroupsInput = offsetInput(50, 500);
export const ZListGroupsOutput = z.object({ groups: z.array(ZGroup), ...ZOffsetMeta.shape });

export const createGroupMeta = {
  openapi: {
    method: "POST",
    path: GROUPS,
    tags,
    summary: "Create a client group",
    description:
      "ADMIN+. `clientOrgIds` (optional) are managed clients; one the partner does not manage is 404. 409 `conflict` for a name already used. Audited.",
    protect: true,
    successDescription: "Created",
  },
  successStatus: 201,
  errors: ["conflict", "not_found"],
} satisfies TMeta;
export const ZCreateGroupInput = z.strictObject({
  name: ZName,
  description: ZDescription.optional(),
  clientOrgIds: ZClientOrgIds.optional(),
});

export const getGroupMeta = {
  openapi: {
    method: "GET",
    path: `${GROUPS}/{id}`,
    tags,
    summary: "A client group with its clients",
    description: "404 for another partner's group.",
    protect: true,
  },
} satisfies TMeta;
export const ZGroupIdInput = z.strictObject({ id: ZGroupId });

export const updateGroupMeta = {
  openapi: {
    method: "PATCH",
    path: `${GROUPS}/{id}`,
    tags,
    summary: "Rename or describe a client group",
    description: "ADMIN+. 409 `conflict` for a name already used. Audited.",
    protect: true,
  },
  errors: ["conflict"],
} satisfies TMeta;
export const ZUpdateGroupInput = z.strictObject({
  id: ZGroupId,
  name: ZName.optional(),
  description: ZDescription.optional(),
});

export const deleteGroupMeta = {
  openapi: {
    method: "DELETE",
    path: `${GROUPS}/{id}`,
    tags,
    summary: "Delete a client group",
    description:
      "ADMIN+. The standards assigned to the group stop applying to its clients (their drift is recomputed). Audited.",
    protect: true,
  },
} satisfies TMeta;
export const ZDeleteGroupOutput = z.object({ deleted: z.literal(true) });

export const setGroupClientsMeta = {
  openapi: {
    method: "PUT",
    path: `${GROUPS}/{id}/clients`,
    tags,
    summary: "Set a group's clients",
    description:
      "ADMIN+. Replaces the members with `clientOrgIds` (managed clients only; any other id is 404 and nothing changes). Drift from the standards assigned to the group is recomputed. Audited.",
    protect: true,
  },
} satisfies TMeta;
export const ZSetGroupClientsInput = z.strictObject({ id: ZGroupId, clientOrgIds: ZClientOrgIds });
