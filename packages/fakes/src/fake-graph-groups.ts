import { header } from "@posture/platform/testing";
import { type TFakeGraphGroup } from "./fake-graph";
import { type TFakeRequest, type TFakeResponse } from "./fake-server";
import { graphError } from "./graph-errors";

/**
 * `GET /groups/{id}/transitiveMembers[/microsoft.graph.user]/$count` as Graph answers it: only as
 * an advanced query (`ConsistencyLevel: eventual`; without it 400 `Request_BadRequest` "$count is
 * not currently supported.", the answer microsoftgraph/microsoft-graph-docs#11882 quotes), in
 * text/plain. Every member counted once, nested groups' included; the user cast counts users only.
 */
export function countTransitiveMembers(
  groups: readonly TFakeGraphGroup[],
  req: TFakeRequest,
  groupId: string,
  usersOnly: boolean,
): TFakeResponse {
  if (header(req, "consistencylevel")?.toLowerCase() !== "eventual")
    return graphError(400, "Request_BadRequest", "$count is not currently supported.");
  const group = groups.find((g) => g.id === groupId);
  if (!group)
    return graphError(
      404,
      "Request_ResourceNotFound",
      `Resource '${groupId}' does not exist or one of its queried reference-property objects are not present.`,
    );
  const counted = new Set<string>();
  const visited = new Set<string>();
  const walk = (g: TFakeGraphGroup) => {
    if (visited.has(g.id)) return;
    visited.add(g.id);
    for (const member of g.members ?? []) {
      if (!usersOnly || member.type === "user") counted.add(member.id);
      const nested = member.type === "group" ? groups.find((x) => x.id === member.id) : undefined;
      if (nested) walk(nested);
    }
  };
  walk(group);
  return { status: 200, text: String(counted.size), headers: { "content-type": "text/plain" } };
}
