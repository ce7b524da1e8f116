import { type TJsonClient } from "../http/client";
import { SourceHttpError } from "../http/errors";
import { pagesByToken } from "../http/paginate";
import { SourceAuthError, type TSourceGroup } from "../types";
import { GOOGLE_FEATURE, GOOGLE_SCOPE } from "./access";
import { type TGGroup, type TGGroupList, type TGMemberList } from "./api-types";
import { mergeBounded } from "./bounded";
import { type TGapBook } from "./gaps";

// The directory's groups with their sizes (issue 30), from the Admin SDK Directory API: groups.list
// for the groups, then members.list with includeDerivedMembership for each group's people, nested
// groups' members included. `directMembersCount` alone would undercount every group made of
// groups (an "all staff" group of department groups has no direct users at all), so each group
// is expanded, once per scan (docs/decisions.md, "Issue 30, items 1 and 7: directory groups").

const GROUPS_PATH = "/admin/directory/v1/groups";
/** The most either list answers per page (Discovery: "Max allowed value is 200"). */
export const DIRECTORY_GROUP_PAGE = 200;
const GROUP_FIELDS = "nextPageToken,groups(id,email,name,directMembersCount)";
const MEMBER_FIELDS = "nextPageToken,members(email,type,status)";

export type TGoogleGroupsRead = {
  /** A Directory client whose token carries admin.directory.group.readonly, as the admin. */
  directory: TJsonClient;
  gaps: TGapBook;
  /** Groups expanded at once. */
  concurrency: number;
  /** The account's active users: what a group holding the whole account (a CUSTOMER member) reaches. */
  peopleCount: () => Promise<number>;
};

/**
 * Every group of the customer with its people. A refusal (the scope not delegated, the subject
 * not an administrator) is a coverage gap and no group is read: grants to groups then count one
 * addressee each and none is a broad-group grant.
 */
export async function* readGoogleGroups(read: TGoogleGroupsRead): AsyncGenerator<TSourceGroup> {
  const listed: TGGroup[] = [];
  try {
    for await (const page of pagesByToken<TGGroupList>(read.directory, GROUPS_PATH, {
      customer: "my_customer",
      maxResults: DIRECTORY_GROUP_PAGE,
      fields: GROUP_FIELDS,
    })) {
      listed.push(...(page.groups ?? []).filter((g) => g.id && g.email));
    }
  } catch (error) {
    if (!(error instanceof SourceAuthError)) throw error;
    read.gaps.add(GOOGLE_FEATURE.groups, GOOGLE_SCOPE.groups, groupsRefused(error.message));
    return;
  }
  async function* each() {
    yield* listed;
  }
  try {
    yield* mergeBounded(each(), read.concurrency, (group) => expand(read, group));
  } catch (error) {
    if (!(error instanceof SourceAuthError)) throw error;
    read.gaps.add(GOOGLE_FEATURE.groups, GOOGLE_SCOPE.groups, groupsRefused(error.message));
  }
}

const groupsRefused = (message: string) =>
  `Directory groups were not read, so a grant to a group counts as one person and none is a broad-group grant: ${message}`;

const baseOf = (group: TGGroup) => ({
  id: group.id ?? "",
  email: (group.email ?? "").toLowerCase(),
  name: group.name || group.email || group.id || "",
});

/** groups.list's `directMembersCount`: an int64 sent as a string. */
function directCount(group: TGGroup): number {
  const count = Number(group.directMembersCount ?? 0);
  return Number.isSafeInteger(count) && count > 0 ? count : 0;
}

/** One group's people: its users, direct or through nested groups, each once; none for a group gone since the list. */
async function* expand(read: TGoogleGroupsRead, group: TGGroup): AsyncGenerator<TSourceGroup> {
  const id = group.id ?? "";
  const path = `${GROUPS_PATH}/${encodeURIComponent(id)}/members`;
  const people = new Set<string>();
  let wholeAccount = false;
  try {
    for await (const page of pagesByToken<TGMemberList>(read.directory, path, {
      includeDerivedMembership: true,
      maxResults: DIRECTORY_GROUP_PAGE,
      fields: MEMBER_FIELDS,
    })) {
      for (const member of page.members ?? []) {
        if (member.type === "CUSTOMER") wholeAccount = true;
        // Nested groups are listed beside their members; suspended users open nothing.
        if (member.type === "GROUP" || member.type === "CUSTOMER" || member.status === "SUSPENDED") continue;
        const email = member.email?.trim().toLowerCase();
        if (email) people.add(email);
      }
    }
  } catch (error) {
    if (error instanceof SourceHttpError && error.status === 404) return;
    if (!(error instanceof SourceAuthError)) throw error;
    // This group's members refused (a delegated admin role limited to some groups): its direct
    // users, as groups.list counted them, are the best size known.
    read.gaps.add(
      GOOGLE_FEATURE.groups,
      GOOGLE_SCOPE.groups,
      `Some groups' members were not listed, so they count their direct users only: ${error.message}`,
      group.email,
    );
    yield { ...baseOf(group), memberCount: directCount(group) };
    return;
  }
  const base = baseOf(group);
  if (wholeAccount) {
    // The account itself is a member: everyone, whoever is also listed by name.
    yield { ...base, memberCount: Math.max(await read.peopleCount(), people.size) };
    return;
  }
  yield { ...base, memberCount: people.size, memberEmails: [...people].sort() };
}
