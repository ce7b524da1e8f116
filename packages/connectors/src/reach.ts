import type { TSourceFile, TSourceGroup } from "./types";

/**
 * How many distinct people can open a file (CONTRACT: inventory `reach`). One function for the
 * rule engine (finding details) and the resource store (the file's `reach_*` columns), so both agree.
 */
export type TFileReach = { people: number; orgWide: boolean };

/** The directory as reach needs it, built once per scan (groups are never expanded per file). */
export type TReachDirectory = {
  /** Whether a domain is one of the tenant's own (or a subdomain of one). */
  internal: { has: (domain: string) => boolean };
  /** The tenant's people: its active (not suspended) users read this scan. */
  peopleCount: () => number;
  /** The directory's groups by lower-cased email. */
  groups: ReadonlyMap<string, TSourceGroup>;
};

export function groupsByEmail(groups: Iterable<TSourceGroup>): Map<string, TSourceGroup> {
  const byEmail = new Map<string, TSourceGroup>();
  for (const group of groups) {
    const email = group.email.trim().toLowerCase();
    if (email) byEmail.set(email, group);
  }
  return byEmail;
}

/**
 * Reach of one file: a `domain` grant on one of the tenant's own domains (an organization-wide
 * link, a Google domain permission, an Everyone claim) reaches the whole tenant, so `people` is
 * its people count. Otherwise the owner, the users granted directly, and the members of granted
 * groups, each person once where the members are known (`memberEmails`), by `memberCount` where
 * only the count is. A group the directory does not list (outside the tenant, or not read) counts
 * as one addressee. Drive members reach a shared-drive file through its inherited permissions,
 * which both sources list among the file's own. Public links name nobody and add no one.
 */
export function fileReach(dir: TReachDirectory, file: TSourceFile): TFileReach {
  const people = new Set<string>();
  let countedOnly = 0;
  const owner = file.ownerEmail.trim().toLowerCase();
  if (owner) people.add(owner);
  for (const permission of file.permissions) {
    if (permission.type === "domain") {
      const domain = permission.domain?.toLowerCase();
      if (domain && dir.internal.has(domain)) return { people: dir.peopleCount(), orgWide: true };
      continue;
    }
    const email = permission.emailAddress?.trim().toLowerCase();
    if (!email) continue;
    if (permission.type === "user") people.add(email);
    else if (permission.type === "group") {
      const group = dir.groups.get(email);
      if (!group) people.add(email);
      else if (group.memberEmails) for (const member of group.memberEmails) people.add(member.toLowerCase());
      else countedOnly += group.memberCount;
    }
  }
  return { people: people.size + countedOnly, orgWide: false };
}
