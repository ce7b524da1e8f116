import {
  type TGActivity,
  type TGDomain,
  type TGGroup,
  type TGMember,
  type TGToken,
  type TGUser,
} from "@posture/connectors/wire";
import { type TGoogleError, type TListPage } from "./fake-google-drive";
import { applyFieldMask, invalidField, parseFieldMask, type TShape } from "./fake-google-schema";
import { type TFakeResponse } from "./fake-server";
import {
  DIRECTORY_DOMAINS,
  DIRECTORY_GROUPS,
  DIRECTORY_MEMBERS,
  DIRECTORY_TOKENS,
  DIRECTORY_USERS,
  REPORTS_ACTIVITIES,
  REPORTS_APPLICATION_PATTERN,
} from "./google-discovery";

// The Admin SDK as the fake serves it: Directory users, groups and their members, OAuth tokens,
// Reports activities. Only an administrator's token gets here (fake-google.ts checks it).

/** A group and its direct members (users, nested groups by email, `CUSTOMER` for the whole account). */
export type TFakeGroup = Omit<TGGroup, "directMembersCount"> & { members: TGMember[] };

export type TFakeDirectoryFixture = {
  users: TGUser[];
  domains: TGDomain[];
  tokens: Record<string, TGToken[]>;
  activities: Record<string, TGActivity[]>;
  groups?: TFakeGroup[];
  /** The customer id `customer` also takes besides `my_customer` (the users' `customerId`). */
  customerId?: string;
};

/** Reports' `applicationName`: one of the applications Discovery's pattern names, whole. */
const APPLICATION = new RegExp(`^(?:${REPORTS_APPLICATION_PATTERN})$`);

const sameEmail = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

export function createFakeDirectory(
  fixture: TFakeDirectoryFixture,
  listPage: TListPage,
  googleError: TGoogleError,
) {
  /** A user by unique id or primary email (Directory's `userKey`), case-insensitive. */
  const userByKey = (userKey: string) =>
    fixture.users.find(
      (u) => u.id === userKey || (u.primaryEmail ?? "").toLowerCase() === userKey.toLowerCase(),
    );

  /**
   * The answer as the request's `fields` selects it; a property the resource's Discovery schema
   * does not declare is Google's 400, as Drive's lists answer it. No `fields`: the whole resource.
   */
  function selected(q: URLSearchParams, shape: TShape, body: unknown): TFakeResponse {
    const fields = q.get("fields");
    if (fields === null) return { status: 200, body };
    const tree = parseFieldMask(fields);
    if (!tree) return googleError(400, "Invalid field selection", "invalidParameter", "fields");
    const bad = invalidField(tree, shape);
    if (bad) return googleError(400, `Invalid field selection ${bad}`, "invalidParameter", "fields");
    return { status: 200, body: applyFieldMask(body, tree) };
  }

  function listUsers(q: URLSearchParams): TFakeResponse {
    if (q.get("customer") !== "my_customer" && !q.get("domain"))
      return googleError(400, "Bad Request", "badRequest");
    const sorted = [...fixture.users].sort((a, b) =>
      (a.primaryEmail ?? "").localeCompare(b.primaryEmail ?? ""),
    );
    const listed = listPage(
      sorted,
      q,
      { param: "maxResults", apiDefault: 100, apiMax: 500 },
      "Invalid Input",
    );
    if ("refused" in listed) return listed.refused;
    return selected(q, DIRECTORY_USERS, {
      kind: "admin#directory#users",
      users: listed.page,
      ...listed.more,
    });
  }

  /**
   * groups.list: `customer` or `domain` is required, `userKey` excludes `customer` (the reference's
   * words for both); sorted by email, `maxResults` up to 200. `directMembersCount` counts the
   * direct users only, as an int64 string.
   */
  function listGroups(q: URLSearchParams): TFakeResponse {
    const customer = q.get("customer");
    const domain = q.get("domain")?.toLowerCase();
    const userKey = q.get("userKey")?.toLowerCase();
    if ((!customer && !domain && !userKey) || (customer && userKey))
      return googleError(400, "Bad Request", "badRequest");
    if (customer && customer !== "my_customer" && customer !== (fixture.customerId ?? "C0abc"))
      return googleError(400, "Bad Request", "badRequest");
    const member = userKey ? userByKey(userKey) : undefined;
    if (userKey && !member) return googleError(404, "Resource Not Found: userKey", "notFound");
    const groups = (fixture.groups ?? [])
      .filter((g) => !domain || (g.email ?? "").toLowerCase().endsWith(`@${domain}`))
      .filter((g) => !member || directMembersOf(g).some((m) => sameEmail(m.email, member.primaryEmail)))
      .sort((a, b) => (a.email ?? "").localeCompare(b.email ?? ""));
    const listed = listPage(
      groups,
      q,
      { param: "maxResults", apiDefault: 200, apiMax: 200 },
      "Invalid Input",
    );
    if ("refused" in listed) return listed.refused;
    return selected(q, DIRECTORY_GROUPS, {
      kind: "admin#directory#groups",
      groups: listed.page.map(({ members, ...g }) => ({
        kind: "admin#directory#group",
        ...g,
        directMembersCount: String(members.filter((m) => m.type === "USER").length),
      })),
      ...listed.more,
    });
  }

  /** A group by unique id or email (Directory's `groupKey`), case-insensitive. */
  const groupByKey = (key: string) =>
    (fixture.groups ?? []).find((g) => g.id === key || sameEmail(g.email, key));

  const directMembersOf = (group: TFakeGroup) => group.members;

  /**
   * members.list: the direct members, or with `includeDerivedMembership=true` the nested groups'
   * members too (each once, a cycle followed once); `roles` filters by OWNER, MANAGER, MEMBER.
   */
  function listMembers(groupKey: string, q: URLSearchParams): TFakeResponse {
    const group = groupByKey(groupKey);
    if (!group) return googleError(404, "Resource Not Found: groupKey", "notFound");
    const derived = q.get("includeDerivedMembership");
    if (derived !== null && derived !== "true" && derived !== "false")
      return googleError(400, `Invalid value '${derived}'. Values must be 'true' or 'false'`, "invalid");
    const roles = q.get("roles")?.toUpperCase().split(",");
    const members: TGMember[] = [];
    const seen = new Set<string>();
    const visited = new Set<string>();
    const walk = (g: TFakeGroup) => {
      if (visited.has(g.id ?? "")) return;
      visited.add(g.id ?? "");
      for (const m of g.members) {
        const key = (m.email ?? m.id ?? "").toLowerCase();
        if (!seen.has(key)) {
          seen.add(key);
          members.push(m);
        }
        const nested = m.type === "GROUP" && m.email ? groupByKey(m.email) : undefined;
        if (nested && derived === "true") walk(nested);
      }
    };
    walk(group);
    const shown = members.filter((m) => !roles || roles.includes((m.role ?? "MEMBER").toUpperCase()));
    const listed = listPage(shown, q, { param: "maxResults", apiDefault: 200, apiMax: 200 }, "Invalid Input");
    if ("refused" in listed) return listed.refused;
    return selected(q, DIRECTORY_MEMBERS, {
      kind: "admin#directory#members",
      members: listed.page.map((m) => ({ kind: "admin#directory#member", role: "MEMBER", ...m })),
      ...listed.more,
    });
  }

  function listDomains(q: URLSearchParams): TFakeResponse {
    return selected(q, DIRECTORY_DOMAINS, { kind: "admin#directory#domainsList", domains: fixture.domains });
  }

  function listTokens(userKey: string, q: URLSearchParams): TFakeResponse {
    const user = fixture.users.find((u) => u.id === userKey || u.primaryEmail === userKey);
    if (!user?.id) return googleError(404, "Resource Not Found: userKey", "notFound");
    const items = (fixture.tokens[user.id] ?? []).map((t) => ({
      kind: "admin#directory#token",
      userKey: user.id,
      ...t,
    }));
    return selected(q, DIRECTORY_TOKENS, { kind: "admin#directory#tokenList", items });
  }

  /** tokens.get / tokens.delete's lookup: the user, then their token for the client, or the 404. */
  function findToken(userKey: string, clientId: string): { userId: string; index: number } | TFakeResponse {
    const user = userByKey(userKey);
    if (!user?.id) return googleError(404, "Resource Not Found: userKey", "notFound");
    const index = (fixture.tokens[user.id] ?? []).findIndex((t) => t.clientId === clientId);
    if (index < 0) return googleError(404, "Resource Not Found: clientId", "notFound");
    return { userId: user.id, index };
  }

  function getToken(userKey: string, clientId: string): TFakeResponse {
    const found = findToken(userKey, clientId);
    if ("status" in found) return found;
    const token = fixture.tokens[found.userId]?.[found.index];
    return { status: 200, body: { kind: "admin#directory#token", userKey: found.userId, ...token } };
  }

  /** Revokes the grant: the next tokens.list of the user no longer has it. */
  function deleteToken(userKey: string, clientId: string): TFakeResponse {
    const found = findToken(userKey, clientId);
    if ("status" in found) return found;
    fixture.tokens[found.userId]?.splice(found.index, 1);
    return { status: 204 };
  }

  function listActivities(app: string, q: URLSearchParams): TFakeResponse {
    if (!APPLICATION.test(app))
      return googleError(
        400,
        `Invalid value '${app}'. Values must match the following regular expression: '${REPORTS_APPLICATION_PATTERN}'`,
        "invalidParameter",
        "applicationName",
      );
    const startTime = q.get("startTime");
    const eventName = q.get("eventName");
    if (startTime && Number.isNaN(Date.parse(startTime)))
      return googleError(400, "Invalid value for startTime", "invalid");
    const matching = (fixture.activities[app] ?? [])
      .filter((a) => !startTime || Date.parse(a.id?.time ?? "") >= Date.parse(startTime))
      .map((a) => (eventName ? { ...a, events: (a.events ?? []).filter((e) => e.name === eventName) } : a))
      .filter((a) => (a.events ?? []).length > 0)
      .sort((a, b) => Date.parse(b.id?.time ?? "") - Date.parse(a.id?.time ?? ""));
    const listed = listPage(
      matching,
      q,
      { param: "maxResults", apiDefault: 1000, apiMax: 1000 },
      "Invalid pageToken",
    );
    if ("refused" in listed) return listed.refused;
    return selected(q, REPORTS_ACTIVITIES, {
      kind: "admin#reports#activities",
      items: listed.page,
      ...listed.more,
    });
  }

  return {
    listUsers,
    listDomains,
    listGroups,
    listMembers,
    listTokens,
    listActivities,
    getToken,
    deleteToken,
  };
}
