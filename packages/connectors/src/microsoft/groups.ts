import { readJson, type TJsonClient } from "../http/client";
import { SourceHttpError } from "../http/errors";
import { graphItems } from "../http/paginate";
import { once } from "../shared/once";
import { type TSourceGroup } from "../types";
import { MS_FEATURE } from "./access";
import { type TMsGroup } from "./api-types";
import { denial } from "./denial";

// The directory's groups with their sizes (issue 30): `GET /groups` for the groups, then each
// mail-enabled group's people counted by Graph: `GET /groups/{id}/transitiveMembers/microsoft.graph.user/$count`,
// users only (devices, contacts and nested groups themselves open nothing), nested groups' members
// included. Graph answers `$count` only as an advanced query, with `ConsistencyLevel: eventual`
// (without it: 400 "$count is not currently supported."); the count comes from an index that may
// lag recent changes by a little, which a posture scan can live with.

/** Every property is declared on v1.0's `group` (graph-v1.0-Prod.csdl). */
export const GROUP_SELECT = "id,displayName,mail";
/** Graph's largest page for directory objects. */
const GROUP_PAGE = 999;
/** Counts asked at once: one request each, so a tenant of 5,000 groups is not read one by one. */
export const GROUP_COUNTS_AT_ONCE = 8;
const ADVANCED_QUERY = { headers: { ConsistencyLevel: "eventual" } } as const;

export type TGroupDirectory = {
  /** Mail-enabled groups by object id → their mail (lower-cased): what a group grant's address is. */
  mailById: () => Promise<ReadonlyMap<string, string>>;
  /** The groups with their sizes; a refusal is a coverage gap and no group. */
  groups: () => AsyncGenerator<TSourceGroup>;
};

export function createGroupDirectory(
  graph: TJsonClient,
  recordGap: (feature: string, message: string) => void,
): TGroupDirectory {
  /** The listing once per adapter: the files' grants and the groups read the same one. */
  const listed = once(async (): Promise<TMsGroup[]> => {
    const groups: TMsGroup[] = [];
    try {
      for await (const group of graphItems<TMsGroup>(graph, "/v1.0/groups", {
        $select: GROUP_SELECT,
        $top: GROUP_PAGE,
      })) {
        groups.push(group);
      }
    } catch (error) {
      const message = denial(error);
      if (!message) throw error;
      recordGap(MS_FEATURE.groups, message);
      return [];
    }
    return groups;
  });

  const mailById = once(async () => {
    const byId = new Map<string, string>();
    for (const group of await listed()) {
      const mail = group.mail?.trim().toLowerCase();
      if (group.id && mail) byId.set(group.id, mail);
    }
    return byId;
  });

  /** A group's users, transitively; null for a group gone since the listing. */
  async function countOf(id: string): Promise<number | null> {
    const path = `/v1.0/groups/${encodeURIComponent(id)}/transitiveMembers/microsoft.graph.user/$count`;
    const response = await graph.send("GET", path, undefined, undefined, ADVANCED_QUERY);
    if (!response.ok) {
      try {
        await readJson(SOURCE_NAME, response);
      } catch (error) {
        if (error instanceof SourceHttpError && error.status === 404) return null;
        throw error;
      }
    }
    // `$count` answers text/plain, an integer (Graph may put a byte-order mark before it).
    const text = (await response.text()).replace(/^\uFEFF/, "").trim();
    const count = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(count))
      throw new SourceHttpError(`${SOURCE_NAME}: $count of group ${id} answered "${text.slice(0, 40)}"`, 502);
    return count;
  }

  async function* groups(): AsyncGenerator<TSourceGroup> {
    const ids = await mailById();
    // Security groups without mail are not listed: no grant names them by address (see decisions).
    const named = (await listed()).filter((g) => g.id && ids.has(g.id));
    try {
      for (let at = 0; at < named.length; at += GROUP_COUNTS_AT_ONCE) {
        const batch = named.slice(at, at + GROUP_COUNTS_AT_ONCE);
        const counts = await Promise.all(batch.map((g) => countOf(g.id ?? "")));
        for (const [i, group] of batch.entries()) {
          const memberCount = counts[i];
          if (memberCount === null || memberCount === undefined) continue;
          const email = ids.get(group.id ?? "") ?? "";
          yield { id: group.id ?? "", email, name: group.displayName || email, memberCount };
        }
      }
    } catch (error) {
      const message = denial(error);
      if (!message) throw error;
      recordGap(MS_FEATURE.groups, message);
    }
  }

  return { mailById, groups };
}

const SOURCE_NAME = "Microsoft 365";
