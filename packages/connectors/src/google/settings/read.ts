import type { TJsonClient } from "../../http/client";
import { pagesByToken } from "../../http/paginate";
import type { TSettingValue, TTenantSetting } from "../../types";
import {
  DIRECTORY_USERS_SCOPE,
  ORG_UNITS_SCOPE,
  POLICIES_SCOPE,
  ROLES_SCOPE,
  type TGAdminUser,
  type TGOrgUnit,
  type TGOrgUnitList,
  type TGPolicy,
  type TGPolicyList,
  type TGRole,
  type TGRoleAssignment,
  type TGUserList,
  type TRoleData,
} from "./api";
import { DEFS, policySource } from "./catalog";
import { active } from "./directory";
import type { TPolicySetting } from "./shapes";

export type TGoogleSettingsClients = {
  /** Admin SDK (Directory, Reports): https://admin.googleapis.com */
  admin: TJsonClient;
  /** Cloud Identity Policy API: https://cloudidentity.googleapis.com */
  cloudIdentity: TJsonClient;
};

type TRead<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Why a read failed, naming the scope the delegation lacks when Google refused it. */
function reasonOf(error: unknown, scope: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/\(HTTP 40[13]\)/.test(message))
    return `${scope} not granted to the delegation, or the API is not enabled (${message})`;
  return message;
}

async function attempt<T>(scope: string, read: () => Promise<T>): Promise<TRead<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    return { ok: false, reason: reasonOf(error, scope) };
  }
}

/**
 * Policy API filter for one application's settings, anchored like the reference's example
 * (`setting.type.matches('^settings/gmail\\..*$')`); the dot is a character class so the CEL
 * string literal needs no escape.
 */
export const policyFilter = (namespace: string) => `setting.type.matches('^settings/${namespace}[.].*$')`;

async function readNamespace(client: TJsonClient, namespace: string): Promise<TGPolicy[]> {
  const policies: TGPolicy[] = [];
  const query = { filter: policyFilter(namespace), pageSize: 100 };
  for await (const page of pagesByToken<TGPolicyList>(client, "/v1/policies", query))
    policies.push(...(page.policies ?? []));
  return policies;
}

async function readAdmins(admin: TJsonClient): Promise<TGAdminUser[]> {
  const byId = new Map<string, TGAdminUser>();
  for (const [query, isOne] of [
    ["isAdmin=true", (u: TGAdminUser) => u.isAdmin === true],
    ["isDelegatedAdmin=true", (u: TGAdminUser) => u.isDelegatedAdmin === true],
  ] as const) {
    const params = { customer: "my_customer", query, maxResults: 500, projection: "basic" };
    for await (const page of pagesByToken<TGUserList>(admin, "/admin/directory/v1/users", params)) {
      // The query already narrows the list; the flag is checked again rather than trusted.
      for (const user of page.users ?? [])
        if (isOne(user)) byId.set(user.id ?? user.primaryEmail ?? "", user);
    }
  }
  return [...byId.values()];
}

async function readOrgUnits(admin: TJsonClient): Promise<TGOrgUnit[]> {
  const list = await admin.get<TGOrgUnitList>("/admin/directory/v1/customer/my_customer/orgunits", {
    orgUnitPath: "/",
    type: "allIncludingParent",
  });
  return list.organizationUnits ?? [];
}

async function readRoles(admin: TJsonClient): Promise<TRoleData> {
  const base = "/admin/directory/v1/customer/my_customer";
  const superAdminRoleIds = new Set<string>();
  type TPage<T> = { items?: T[]; nextPageToken?: string };
  for await (const page of pagesByToken<TPage<TGRole>>(admin, `${base}/roles`, { maxResults: 100 }))
    for (const role of page.items ?? [])
      if (role.isSuperAdminRole && role.roleId) superAdminRoleIds.add(role.roleId);
  const assignments: TGRoleAssignment[] = [];
  const query = { maxResults: 200 };
  for await (const page of pagesByToken<TPage<TGRoleAssignment>>(admin, `${base}/roleassignments`, query))
    assignments.push(...(page.items ?? []));
  return { superAdminRoleIds, assignments };
}

/** Whether a policy sets this setting (its type, and for alert rules its rule). */
const appliesTo = (def: TPolicySetting, p: TGPolicy) =>
  p.setting?.type === `settings/${def.setting}` && (!def.where || def.where(p.setting.value ?? {}));

const ouRef = (orgUnitId: string | undefined) => `orgUnits/${(orgUnitId ?? "").replace(/^id:/, "")}`;

function parentPath(path: string): string | null {
  if (path === "/" || path === "") return null;
  const cut = path.replace(/\/$/, "").lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}

/**
 * The tenant's value of one policy setting: the least secure of the root org unit's value and
 * every org-unit or group override's, so a check fails when any org unit's effective value fails.
 * When the root sets nothing, Google's default applies there and is counted too.
 */
function tenantValue(
  def: TPolicySetting,
  policies: readonly TGPolicy[],
  rootId: string | null,
): TSettingValue {
  const mine = policies.filter((p) => appliesTo(def, p));
  const valueOf = (p: TGPolicy) => def.read(p.setting?.value ?? {}) ?? def.googleDefault;
  const values = mine.map(valueOf);
  const rootSet = def.customerLevel
    ? mine.length > 0
    : rootId
      ? mine.some((p) => !p.policyQuery?.group && p.policyQuery?.orgUnit === ouRef(rootId))
      : mine.length > 0;
  if (!rootSet) values.push(def.googleDefault);
  return values.reduce((a, b) => def.weaker(a, b));
}

/** The value where admins live: each admin's org unit's nearest policy, and every group policy. */
function adminsValue(
  def: TPolicySetting,
  policies: readonly TGPolicy[],
  orgUnits: readonly TGOrgUnit[],
  admins: readonly TGAdminUser[],
): TSettingValue {
  const mine = policies.filter((p) => appliesTo(def, p));
  const idByPath = new Map(orgUnits.map((o) => [o.orgUnitPath ?? "", o.orgUnitId]));
  const valueOf = (p: TGPolicy) => def.read(p.setting?.value ?? {}) ?? def.googleDefault;
  const effective = (path: string): TSettingValue => {
    for (let at: string | null = path || "/"; at !== null; at = parentPath(at)) {
      const id = idByPath.get(at);
      const found = id
        ? mine.find((p) => !p.policyQuery?.group && p.policyQuery?.orgUnit === ouRef(id))
        : undefined;
      if (found) return valueOf(found);
    }
    return def.googleDefault;
  };
  const paths = new Set(admins.filter(active).map((u) => u.orgUnitPath || "/"));
  if (paths.size === 0) paths.add("/");
  // Group membership is not read, so a group policy counts as reaching an admin.
  const values = [...[...paths].map(effective), ...mine.filter((p) => p.policyQuery?.group).map(valueOf)];
  return values.reduce((a, b) => def.weaker(a, b));
}

/** Every setting of GOOGLE_SETTINGS, read or marked unavailable (never throws for one setting). */
export async function readGoogleSettings(clients: TGoogleSettingsClients): Promise<TTenantSetting[]> {
  const { admin, cloudIdentity } = clients;
  const namespaces = [
    ...new Set(DEFS.flatMap((d) => (d.kind === "policy" ? [d.setting.split(".")[0] ?? ""] : []))),
  ];
  const [adminsRead, orgUnitsRead, rolesRead, ...namespaceReads] = await Promise.all([
    attempt(DIRECTORY_USERS_SCOPE, () => readAdmins(admin)),
    attempt(ORG_UNITS_SCOPE, () => readOrgUnits(admin)),
    attempt(ROLES_SCOPE, () => readRoles(admin)),
    ...namespaces.map((ns) => attempt(POLICIES_SCOPE, () => readNamespace(cloudIdentity, ns))),
  ]);
  const byNamespace = new Map(namespaces.map((ns, i) => [ns, namespaceReads[i]]));
  const rootId = orgUnitsRead?.ok
    ? (orgUnitsRead.value.find((o) => o.orgUnitPath === "/")?.orgUnitId ?? null)
    : null;

  return DEFS.map((def): TTenantSetting => {
    if (def.kind === "roles") {
      if (!adminsRead?.ok) return { key: def.key, unavailable: adminsRead?.reason ?? "not read" };
      if (!rolesRead?.ok) return { key: def.key, unavailable: rolesRead?.reason ?? "not read" };
      return { key: def.key, value: def.compute(adminsRead.value, rolesRead.value), source: def.source };
    }
    if (def.kind === "directory") {
      if (!adminsRead?.ok) return { key: def.key, unavailable: adminsRead?.reason ?? "not read" };
      return { key: def.key, value: def.compute(adminsRead.value), source: def.source };
    }
    const read = byNamespace.get(def.setting.split(".")[0] ?? "");
    if (!read?.ok) return { key: def.key, unavailable: read?.reason ?? "not read" };
    if (def.adminsOnly) {
      if (!adminsRead?.ok) return { key: def.key, unavailable: adminsRead?.reason ?? "not read" };
      if (!orgUnitsRead?.ok) return { key: def.key, unavailable: orgUnitsRead?.reason ?? "not read" };
      return {
        key: def.key,
        value: adminsValue(def, read.value, orgUnitsRead.value, adminsRead.value),
        source: `${policySource(def)}: effective policy of the org units holding admin accounts`,
      };
    }
    const mine = read.value.filter((p) => appliesTo(def, p));
    const overrides = def.customerLevel
      ? 0
      : mine.filter(
          (p) => p.policyQuery?.group || (rootId !== null && p.policyQuery?.orgUnit !== ouRef(rootId)),
        ).length;
    const how =
      mine.length === 0
        ? ": no policy set, Google's default"
        : overrides > 0
          ? `: least secure of the root and ${overrides} org-unit or group override(s)`
          : "";
    return { key: def.key, value: tenantValue(def, read.value, rootId), source: policySource(def) + how };
  });
}
