import { createJsonClient, type THttpOptions, type TJsonClient } from "../http/client";
import { SourceHttpError } from "../http/errors";
import { graphItems } from "../http/paginate";
import { workspaceOf } from "../shared/normalise";
import { once } from "../shared/once";
import {
  SourceUnavailableError,
  type TActivityEvent,
  type TAppGrant,
  type TCoverageGap,
  type TPermission,
  type TSourceAdapter,
  type TSourceFile,
  type TSourceUser,
  type TWorkspace,
} from "../types";
import {
  type TMsAppRoleAssignment,
  type TMsDrive,
  type TMsDriveItem,
  type TMsOrganization,
  type TMsPermission,
  type TMsPermissionGrant,
  type TMsRegistrationDetails,
  type TMsServicePrincipal,
  type TMsSignIn,
  type TMsSite,
  type TMsUser,
} from "./api-types";
import { microsoftTokenProvider, type TMicrosoftCredentials } from "./auth";
import { MICROSOFT_ACCESS } from "./access";
import { createManagementActivity } from "./management-activity";
import { readMicrosoftSettings } from "./settings";
import {
  isLibrary,
  mapMsAppRoleGrant,
  mapMsFile,
  mapMsGrant,
  mapMsLibrary,
  mapMsPermission,
  mapMsUser,
  mapSignIn,
  userEmail,
} from "./map";

const SOURCE = "Microsoft 365";

/** Where Graph and the identity platform live; only tests override these, never user input. */
export type TMicrosoftEndpoints = { graphBaseUrl?: string; loginBaseUrl?: string; manageBaseUrl?: string };

export type TMicrosoftConfig = { domain?: string; internalDomains?: string[] };

const USER_SELECT = "id,displayName,mail,userPrincipalName,accountEnabled,createdDateTime,signInActivity";
/** Microsoft Graph's application id, the same in every tenant. */
const MICROSOFT_GRAPH_APP_ID = "00000003-0000-0000-c000-000000000000";
const APP_SELECT =
  "id,appId,displayName,publisherName,appOwnerOrganizationId,servicePrincipalType,verifiedPublisher";

type TDirectoryEntry = { email: string; createdAt: string };

export function createMicrosoft365Adapter(opts: {
  credentials: TMicrosoftCredentials;
  config?: TMicrosoftConfig;
  endpoints?: TMicrosoftEndpoints;
  http?: THttpOptions;
}): TSourceAdapter {
  const config = opts.config ?? {};
  const tokens = microsoftTokenProvider(opts.credentials, {
    loginBaseUrl: opts.endpoints?.loginBaseUrl,
    http: opts.http,
  });
  const graph = createJsonClient({
    source: SOURCE,
    baseUrl: opts.endpoints?.graphBaseUrl ?? "https://graph.microsoft.com",
    tokens,
    http: opts.http,
  });

  const gaps: TCoverageGap[] = [];
  const organization = once(() => readOrganization(graph));
  const workspace = async (): Promise<TWorkspace> => toWorkspace(config, await organization());
  const management = createManagementActivity({
    credentials: opts.credentials,
    loginBaseUrl: opts.endpoints?.loginBaseUrl,
    manageBaseUrl: opts.endpoints?.manageBaseUrl,
    http: opts.http,
    internalDomains: async () => (await workspace()).internalDomains,
    onGap: (gap) => gaps.push(gap),
  });

  // Permissions and grants name users by object id only; one id → email index resolves them.
  const directory = once(async () => {
    const index = new Map<string, TDirectoryEntry>();
    const query = { $select: "id,mail,userPrincipalName,createdDateTime", $top: 999 };
    for await (const user of graphItems<TMsUser>(graph, "/v1.0/users", query)) {
      if (user.id) index.set(user.id, { email: userEmail(user), createdAt: user.createdDateTime ?? "" });
    }
    return index;
  });
  const emailLookup = async () => {
    const index = await directory();
    return (id: string | undefined) => (id ? index.get(id)?.email : undefined);
  };

  async function* drives(): AsyncGenerator<TMsDrive> {
    const seen = new Set<string>();
    for await (const drive of graphItems<TMsDrive>(graph, "/v1.0/drives")) {
      if (drive.id && !seen.has(drive.id)) {
        seen.add(drive.id);
        yield drive;
      }
    }
    // Libraries of every other SharePoint site: GET /drives lists only the root site's.
    for await (const site of graphItems<TMsSite>(graph, "/v1.0/sites", {
      search: "*",
      $select: "id,displayName",
    })) {
      if (!site.id) continue;
      for await (const drive of graphItems<TMsDrive>(
        graph,
        `/v1.0/sites/${encodeURIComponent(site.id)}/drives`,
      )) {
        if (drive.id && !seen.has(drive.id)) {
          seen.add(drive.id);
          yield drive;
        }
      }
    }
    for (const userId of (await directory()).keys()) {
      try {
        for await (const drive of graphItems<TMsDrive>(
          graph,
          `/v1.0/users/${encodeURIComponent(userId)}/drives`,
        )) {
          if (drive.id && !seen.has(drive.id)) {
            seen.add(drive.id);
            yield drive;
          }
        }
      } catch (error) {
        // Users without a OneDrive (unlicensed, never provisioned) answer 404.
        if (!(error instanceof SourceHttpError && error.status === 404)) throw error;
      }
    }
  }

  // delta walks the whole drive, folders included, in flat pages: no recursion per folder.
  async function* driveFiles(driveId: string): AsyncGenerator<TMsDriveItem> {
    for await (const item of graphItems<TMsDriveItem>(
      graph,
      `/v1.0/drives/${encodeURIComponent(driveId)}/root/delta`,
    )) {
      if (item.file && !item.deleted && item.id) yield item;
    }
  }

  async function itemPermissions(driveId: string, itemId: string, domain: string): Promise<TPermission[]> {
    const emailOf = await emailLookup();
    const path = `/v1.0/drives/${encodeURIComponent(driveId)}/items/${encodeURIComponent(itemId)}/permissions`;
    const mapped: TPermission[] = [];
    for await (const permission of graphItems<TMsPermission>(graph, path)) {
      mapped.push(...mapMsPermission(permission, domain, emailOf));
    }
    return mapped;
  }

  /**
   * Application permissions (app-only access) on Microsoft Graph, read from Graph's own service
   * principal: `appRoleAssignedTo` lists every app granted one of its roles; the roles' ids are
   * resolved to their names through its `appRoles`. One grant per app.
   */
  async function* applicationPermissions(
    appOf: (id: string) => Promise<TMsServicePrincipal>,
    tenantCreatedAt: string,
  ): AsyncGenerator<TAppGrant> {
    const resources = graphItems<TMsServicePrincipal>(graph, "/v1.0/servicePrincipals", {
      $filter: `appId eq '${MICROSOFT_GRAPH_APP_ID}'`,
      $select: "id,appId,displayName,appRoles",
    });
    for await (const resource of resources) {
      if (!resource.id) continue;
      const roleName = new Map((resource.appRoles ?? []).map((r) => [r.id ?? "", r.value ?? r.id ?? ""]));
      const byApp = new Map<string, { roles: Set<string>; grantedAt: string }>();
      const path = `/v1.0/servicePrincipals/${encodeURIComponent(resource.id)}/appRoleAssignedTo`;
      for await (const a of graphItems<TMsAppRoleAssignment>(graph, path, { $top: 999 })) {
        if (a.principalType !== "ServicePrincipal" || !a.principalId || !a.appRoleId) continue;
        const entry = byApp.get(a.principalId) ?? {
          roles: new Set<string>(),
          grantedAt: a.createdDateTime || tenantCreatedAt,
        };
        entry.roles.add(roleName.get(a.appRoleId) || a.appRoleId);
        if (a.createdDateTime && a.createdDateTime < entry.grantedAt) entry.grantedAt = a.createdDateTime;
        byApp.set(a.principalId, entry);
      }
      for (const [principalId, entry] of byApp) {
        const app = await appOf(principalId);
        yield mapMsAppRoleGrant(app, {
          principalId,
          resourceId: resource.id,
          roles: [...entry.roles],
          grantedAt: entry.grantedAt,
        });
      }
    }
  }

  return {
    workspace,

    async *users(): AsyncGenerator<TSourceUser> {
      const registrations = new Map<string, TMsRegistrationDetails>();
      const path = "/v1.0/reports/authenticationMethods/userRegistrationDetails";
      for await (const details of graphItems<TMsRegistrationDetails>(graph, path)) {
        if (details.id) registrations.set(details.id, details);
      }
      for await (const user of graphItems<TMsUser>(graph, "/v1.0/users", {
        $select: USER_SELECT,
        $top: 999,
      })) {
        yield mapMsUser(user, user.id ? registrations.get(user.id) : undefined);
      }
    },

    async *files(): AsyncGenerator<TSourceFile> {
      const { domain } = await workspace();
      const emailOf = await emailLookup();
      for await (const drive of drives()) {
        if (!drive.id) continue;
        for await (const item of driveFiles(drive.id)) {
          const permissions = await itemPermissions(drive.id, item.id ?? "", domain);
          yield mapMsFile(item, drive, permissions, emailOf);
        }
      }
    },

    async *sharedDrives() {
      const { domain } = await workspace();
      for await (const drive of drives()) {
        if (!drive.id || !isLibrary(drive)) continue;
        const root = await graph.get<TMsDriveItem>(`/v1.0/drives/${encodeURIComponent(drive.id)}/root`);
        const members = root.id ? await itemPermissions(drive.id, root.id, domain) : [];
        let fileCount = 0;
        for await (const _item of driveFiles(drive.id)) fileCount++;
        yield mapMsLibrary(drive, members, fileCount);
      }
    },

    async *appGrants(): AsyncGenerator<TAppGrant> {
      const index = await directory();
      const org = await organization();
      const apps = new Map<string, Promise<TMsServicePrincipal>>();
      const appOf = (id: string) => {
        let app = apps.get(id);
        if (!app) {
          app = graph.get<TMsServicePrincipal>(`/v1.0/servicePrincipals/${encodeURIComponent(id)}`, {
            $select: APP_SELECT,
          });
          apps.set(id, app);
        }
        return app;
      };
      yield* applicationPermissions(appOf, org.createdDateTime || new Date(0).toISOString());
      for await (const grant of graphItems<TMsPermissionGrant>(graph, "/v1.0/oauth2PermissionGrants")) {
        const app = grant.clientId ? await appOf(grant.clientId) : undefined;
        // Tenant-wide (AllPrincipals) consent names no user. Grants carry no date, so the grantee's
        // creation (or the tenant's) is the earliest the consent can have happened.
        const grantee =
          grant.consentType === "Principal" && grant.principalId ? index.get(grant.principalId) : undefined;
        yield mapMsGrant(grant, app, {
          email: grantee?.email ?? "",
          grantedAt: grantee?.createdAt || org.createdDateTime || new Date(0).toISOString(),
        });
      }
    },

    async *activity(since: Date): AsyncGenerator<TActivityEvent> {
      const query = { $filter: `createdDateTime ge ${since.toISOString()}`, $top: 1000 };
      for await (const signIn of graphItems<TMsSignIn>(graph, "/v1.0/auditLogs/signIns", query)) {
        const event = mapSignIn(signIn);
        if (event) yield event;
      }
      yield* management.activity(since);
    },

    tenantSettings: () => readMicrosoftSettings(graph),
    checkAccess: async () => MICROSOFT_ACCESS.map((r) => ({ ...r, granted: true })),
    coverageGaps: () => [...gaps],
  };
}

async function readOrganization(graph: TJsonClient): Promise<TMsOrganization> {
  const list = await graph.get<{ value?: TMsOrganization[] }>("/v1.0/organization", {
    $select: "id,createdDateTime,verifiedDomains",
  });
  const org = list.value?.[0];
  if (!org) throw new SourceUnavailableError(`${SOURCE}: /organization returned no tenant`);
  return org;
}

function toWorkspace(config: TMicrosoftConfig, org: TMsOrganization): TWorkspace {
  const verified = (org.verifiedDomains ?? [])
    .map((d) => ({ ...d, name: (d.name ?? "").toLowerCase() }))
    .filter((d) => d.name);
  const domain = config.domain?.toLowerCase() ?? verified.find((d) => d.isDefault)?.name ?? verified[0]?.name;
  if (!domain) throw new SourceUnavailableError(`${SOURCE}: the tenant lists no verified domain`);
  const others = [
    ...verified.map((d) => d.name),
    ...(config.internalDomains ?? []).map((d) => d.toLowerCase()),
  ];
  return workspaceOf(domain, [...new Set(others)]);
}
