import { createJsonClient, type THttpOptions, type TJsonClient, type TTokenProvider } from "../http/client";
import { SourceHttpError } from "../http/errors";
import { graphItems } from "../http/paginate";
import { workspaceOf } from "../shared/normalise";
import { once } from "../shared/once";
import {
  SourceUnavailableError,
  type TAccessCheck,
  type TAccessRequirement,
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
  type TMsAgentIdentity,
  type TMsAppRoleAssignment,
  type TMsCopilotPackage,
  type TMsDrive,
  type TMsDriveItem,
  type TMsExtractSensitivityLabelsResult,
  type TMsOrganization,
  type TMsPermission,
  type TMsPermissionGrant,
  type TMsRegistrationDetails,
  type TMsSensitivityLabel,
  type TMsServicePrincipal,
  type TMsSignIn,
  type TMsSite,
  type TMsSubscribedSku,
  type TMsUser,
} from "./api-types";
import { MICROSOFT_LOGIN_URL, microsoftTokenProvider, type TMicrosoftCredentials } from "./auth";
import {
  ENTRA_PREMIUM,
  ENTRA_PREMIUM_SERVICE_PLANS,
  evaluateAccess,
  MANAGEMENT_API_PERMISSIONS,
  MICROSOFT_ACCESS,
  MICROSOFT_GRAPH_ACCESS,
  MS_FEATURE,
  permissionGranted,
  tokenRoles,
} from "./access";
import { createDriveChangeFeed, FILE_READS_AT_ONCE, preferDelta } from "./change-feed";
import { denial } from "./denial";
import { createGroupDirectory } from "./groups";
import { createManagementActivity, MANAGE_DEFAULT_SCOPE } from "./management-activity";
import { readMicrosoftSettings } from "./settings";
import {
  isCopilotAgentPackage,
  isLibrary,
  mapCopilotPackage,
  mapMsAppRoleGrant,
  mapMsFile,
  mapMsGrant,
  mapMsLibrary,
  mapMsPermission,
  mapMsUser,
  mapSignIn,
  type TDirectory,
  type TMsAgentRegistry,
  userEmail,
} from "./map";

import { assistantsOf, copilotSkusOf, type TCopilotSkus } from "./licences";

const SOURCE = "Microsoft 365";

/** Where Graph and the identity platform live; only tests override these, never user input. */
export type TMicrosoftEndpoints = { graphBaseUrl?: string; loginBaseUrl?: string; manageBaseUrl?: string };

export type TMicrosoftConfig = { domain?: string; internalDomains?: string[] };

// Every property below is declared on v1.0's `user` / `servicePrincipal` (graph-v1.0-Prod.csdl).
// The base user read needs only User.Read.All; signInActivity also needs AuditLog.Read.All and
// Entra ID P1/P2, so it is asked for separately and may be refused without losing the users.
const USER_SELECT = "id,displayName,mail,userPrincipalName,accountEnabled,createdDateTime,assignedLicenses";
const USER_SIGN_IN_SELECT = `${USER_SELECT},signInActivity`;
/** Microsoft Graph's application id, the same in every tenant. */
const MICROSOFT_GRAPH_APP_ID = "00000003-0000-0000-c000-000000000000";
const APP_SELECT = "id,appId,displayName,appOwnerOrganizationId,servicePrincipalType,verifiedPublisher";
const LABELS_PATH = "/v1.0/security/dataSecurityAndGovernance/sensitivityLabels";
// Graph v1.0's agent registries (graph-v1.0-Prod.csdl: agentIdentity and
// agentIdentityBlueprintPrincipal derive from servicePrincipal; copilotAdminCatalog/packages).
const AGENT_IDENTITIES_PATH = "/v1.0/servicePrincipals/microsoft.graph.agentIdentity";
const AGENT_BLUEPRINT_PRINCIPALS_PATH =
  "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal";
const COPILOT_PACKAGES_PATH = "/v1.0/copilot/admin/catalog/packages";
const COPILOT_PACKAGE_SELECT =
  "id,appId,displayName,publisher,type,elementTypes,isBlocked,availableTo,deployedTo,createdDateTime";

/**
 * Files SharePoint and OneDrive keep sensitivity labels for (Office Open XML and PDF, per
 * "Enable sensitivity labels for Office files in SharePoint and OneDrive"): only these are asked.
 */
const LABELLED_EXTENSIONS = new Set([
  "docx",
  "docm",
  "dotx",
  "dotm",
  "xlsx",
  "xlsm",
  "xlsb",
  "xltx",
  "xltm",
  "pptx",
  "pptm",
  "ppsx",
  "ppsm",
  "potx",
  "potm",
  "pdf",
]);

type TDirectoryEntry = { email: string; createdAt: string };

/** An app-only token for the Office 365 Management Activity API, whose roles carry its own permissions. */
export const managementTokenProvider = (
  credentials: TMicrosoftCredentials,
  loginBaseUrl?: string,
  http?: THttpOptions,
): TTokenProvider => microsoftTokenProvider(credentials, { loginBaseUrl, http, scope: MANAGE_DEFAULT_SCOPE });

const PREMIUM_REFUSAL = /premium licen[cs]e|NonPremiumTenant/i;

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
  const graphBaseUrl = opts.endpoints?.graphBaseUrl ?? "https://graph.microsoft.com";
  const graph = createJsonClient({
    source: SOURCE,
    baseUrl: graphBaseUrl,
    tokens,
    http: opts.http,
  });

  const loginBaseUrl = (opts.endpoints?.loginBaseUrl ?? MICROSOFT_LOGIN_URL).replace(/\/$/, "");
  // The Management Activity API's roles are on a token of its own, shared by the feed and checkAccess.
  const managementTokens = managementTokenProvider(opts.credentials, loginBaseUrl, opts.http);

  const gaps = new Map<string, TCoverageGap>();
  /** Records what a 403 cost: the feature, the permission or licence Graph asked for, its message. */
  const recordGap = (feature: string, message: string) => {
    const requirements = MICROSOFT_GRAPH_ACCESS.filter((r) => r.feature === feature);
    const missing = PREMIUM_REFUSAL.test(message)
      ? ENTRA_PREMIUM
      : [...new Set(requirements.map((r) => r.permission))].join(", ") || "permission";
    const impact = requirements[0]?.impact ?? "Not read.";
    gaps.set(`${feature}|${missing}`, { feature, missing, detail: `${impact} Graph answered: ${message}` });
  };

  const organization = once(() => readOrganization(graph));
  const workspace = async (): Promise<TWorkspace> => toWorkspace(config, await organization());
  const management = createManagementActivity({
    credentials: opts.credentials,
    tokens: managementTokens,
    loginBaseUrl: opts.endpoints?.loginBaseUrl,
    manageBaseUrl: opts.endpoints?.manageBaseUrl,
    http: opts.http,
    internalDomains: async () => (await workspace()).internalDomains,
    onGap: (gap) => gaps.set(`${gap.feature}|${gap.missing}`, gap),
  });

  // Permissions and grants name users by object id, SharePoint by login name (the UPN); one index
  // of each resolves them to the user's email.
  const directory = once(async () => {
    const index = new Map<string, TDirectoryEntry>();
    const byLogin = new Map<string, string>();
    const query = { $select: "id,mail,userPrincipalName,createdDateTime", $top: 999 };
    for await (const user of graphItems<TMsUser>(graph, "/v1.0/users", query)) {
      const email = userEmail(user);
      if (user.id) index.set(user.id, { email, createdAt: user.createdDateTime ?? "" });
      if (user.userPrincipalName) byLogin.set(user.userPrincipalName.toLowerCase(), email);
    }
    return { index, byLogin };
  });
  const emailLookup = async () => {
    const { index } = await directory();
    return (id: string | undefined) => (id ? index.get(id)?.email : undefined);
  };
  const groupDirectory = createGroupDirectory(graph, recordGap);
  const principals = async (): Promise<TDirectory> => {
    const { byLogin } = await directory();
    const groupMail = await groupDirectory.mailById();
    return {
      byId: await emailLookup(),
      byLogin: (upn) => byLogin.get(upn.toLowerCase()),
      groupById: (id) => groupMail.get(id),
    };
  };

  // Sensitivity labels: the tenant's catalogue (id → name) once, then each labelable file's ids.
  let labelsReadable = true;
  const labelCatalogue = once(async (): Promise<Map<string, string> | null> => {
    const names = new Map<string, string>();
    const add = (label: TMsSensitivityLabel) => {
      const name = label.displayName || label.name;
      if (label.id && name) names.set(label.id, name);
      for (const sub of label.sublabels ?? []) add(sub);
    };
    try {
      for await (const label of graphItems<TMsSensitivityLabel>(graph, LABELS_PATH)) add(label);
    } catch (error) {
      const message = denial(error);
      if (!message) throw error;
      recordGap(MS_FEATURE.labels, message);
      return null;
    }
    return names;
  });
  async function labelName(catalogue: Map<string, string>, id: string): Promise<string | null> {
    const known = catalogue.get(id);
    if (known) return known;
    // A sublabel the list did not nest: read it by id once.
    try {
      const label = await graph.get<TMsSensitivityLabel>(`${LABELS_PATH}/${encodeURIComponent(id)}`);
      const name = label.displayName || label.name || null;
      if (name) catalogue.set(id, name);
      return name;
    } catch (error) {
      if (error instanceof SourceHttpError && error.status === 404) return null;
      const message = denial(error);
      if (!message) throw error;
      recordGap(MS_FEATURE.labels, message);
      return null;
    }
  }
  async function fileLabel(driveId: string, item: TMsDriveItem): Promise<string | null> {
    const extension = /\.([a-z0-9]+)$/i.exec(item.name ?? "")?.[1]?.toLowerCase() ?? "";
    if (!labelsReadable || !item.id || !LABELLED_EXTENSIONS.has(extension)) return null;
    const catalogue = await labelCatalogue();
    // No readable catalogue, or a tenant without labels: nothing to extract.
    if (!catalogue || catalogue.size === 0) return null;
    const path = `/v1.0/drives/${encodeURIComponent(driveId)}/items/${encodeURIComponent(item.id)}/extractSensitivityLabels`;
    let result: TMsExtractSensitivityLabelsResult;
    try {
      result = await graph.post<TMsExtractSensitivityLabelsResult>(path);
    } catch (error) {
      const message = denial(error);
      if (message) {
        labelsReadable = false;
        recordGap(MS_FEATURE.labels, message);
        return null;
      }
      // One file whose labels cannot be extracted (locked, corrupt) keeps no label, the scan goes on.
      if (error instanceof SourceHttpError && error.status < 500) return null;
      throw error;
    }
    for (const assigned of result.labels ?? []) {
      const name = assigned.sensitivityLabelId
        ? await labelName(catalogue, assigned.sensitivityLabelId)
        : null;
      if (name) return name;
    }
    return null;
  }

  /** SharePoint document libraries: the root site's (GET /drives), then every other site's. */
  async function* libraries(): AsyncGenerator<TMsDrive> {
    yield* graphItems<TMsDrive>(graph, "/v1.0/drives");
    // Libraries of every other SharePoint site: GET /drives lists only the root site's.
    for await (const site of graphItems<TMsSite>(graph, "/v1.0/sites", {
      search: "*",
      $select: "id,displayName",
    })) {
      if (!site.id) continue;
      yield* graphItems<TMsDrive>(graph, `/v1.0/sites/${encodeURIComponent(site.id)}/drives`);
    }
  }

  /** A user's OneDrive; none for a user without one (unlicensed, never provisioned: 404). */
  async function* userDrives(userId: string): AsyncGenerator<TMsDrive> {
    try {
      yield* graphItems<TMsDrive>(graph, `/v1.0/users/${encodeURIComponent(userId)}/drives`);
    } catch (error) {
      if (!(error instanceof SourceHttpError && error.status === 404)) throw error;
    }
  }

  const userIds = async () => (await directory()).index.keys();

  async function* drives(): AsyncGenerator<TMsDrive> {
    const seen = new Set<string>();
    const fresh = (drive: TMsDrive) => {
      if (!drive.id || seen.has(drive.id)) return false;
      seen.add(drive.id);
      return true;
    };
    for await (const drive of libraries()) if (fresh(drive)) yield drive;
    for (const userId of await userIds()) {
      for await (const drive of userDrives(userId)) if (fresh(drive)) yield drive;
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

  /** A file item of `drive` as every read maps it: its permissions and label read. */
  async function fileOf(drive: TMsDrive, item: TMsDriveItem): Promise<TSourceFile> {
    const { domain } = await workspace();
    const driveId = drive.id ?? "";
    const permissions = await itemPermissions(driveId, item.id ?? "", domain);
    const label = await fileLabel(driveId, item);
    return mapMsFile(item, drive, permissions, await emailLookup(), label);
  }

  async function itemPermissions(driveId: string, itemId: string, domain: string): Promise<TPermission[]> {
    const lookup = await principals();
    const path = `/v1.0/drives/${encodeURIComponent(driveId)}/items/${encodeURIComponent(itemId)}/permissions`;
    const mapped: TPermission[] = [];
    for await (const permission of graphItems<TMsPermission>(graph, path)) {
      mapped.push(...mapMsPermission(permission, domain, lookup));
    }
    return mapped;
  }

  /**
   * Application permissions (app-only access) on Microsoft Graph, read from Graph's own service
   * principal: `appRoleAssignedTo` lists every app granted one of its roles; the roles' ids are
   * resolved to their names through its `appRoles`. One grant per app.
   */
  async function* applicationPermissions(
    appOf: (id: string) => Promise<TMsServicePrincipal | undefined>,
    tenantCreatedAt: string,
    registry: TMsAgentRegistry,
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
        yield mapMsAppRoleGrant(
          app,
          { principalId, resourceId: resource.id, roles: [...entry.roles], grantedAt: entry.grantedAt },
          opts.credentials.tenantId,
          registry,
        );
      }
    }
  }

  /** Every item of a registry read, or none (and a coverage gap) when Graph refuses the read. */
  async function registryRead<T>(feature: string, path: string, query: Record<string, string | number>) {
    const items: T[] = [];
    try {
      for await (const item of graphItems<T>(graph, path, query)) items.push(item);
    } catch (error) {
      // A tenant without the registry (no Agent 365 licence, the feature not rolled out) may answer
      // 400 or 404 rather than 403: the registry is an addition to the grants, never their end.
      const absent = error instanceof SourceHttpError && (error.status === 400 || error.status === 404);
      const message = denial(error) ?? (absent ? error.message : null);
      if (!message) throw error;
      recordGap(feature, message);
      return [];
    }
    return items;
  }

  /**
   * The tenant's own lists of agents: Entra agent identities and blueprints' service principals
   * (by object id), the Copilot admin catalog's agent packages (by app id). Each read on its own:
   * a refused one is a coverage gap and the others still count.
   */
  async function agentRegistry() {
    const [identities, blueprints, packages] = await Promise.all([
      registryRead<TMsAgentIdentity>(MS_FEATURE.agentIdentities, AGENT_IDENTITIES_PATH, {
        $select: "id,appId,displayName,agentIdentityBlueprintId",
        $top: 999,
      }),
      registryRead<TMsServicePrincipal>(MS_FEATURE.agentBlueprints, AGENT_BLUEPRINT_PRINCIPALS_PATH, {
        $select: "id,appId,displayName",
        $top: 999,
      }),
      registryRead<TMsCopilotPackage>(MS_FEATURE.copilotAgents, COPILOT_PACKAGES_PATH, {
        $select: COPILOT_PACKAGE_SELECT,
      }),
    ]);
    const agentObjects = new Set([...identities, ...blueprints].map((a) => a.id ?? "").filter(Boolean));
    const agentApps = new Set([...identities, ...blueprints].map((a) => (a.appId ?? "").toLowerCase()));
    const copilotAgents = packages.filter((p) => isCopilotAgentPackage(p) && !p.isBlocked);
    const copilotApps = new Set(copilotAgents.map((p) => (p.appId ?? "").toLowerCase()).filter(Boolean));
    const lookup: TMsAgentRegistry = (app) => {
      const appId = (app.appId ?? "").toLowerCase();
      if ((app.id && agentObjects.has(app.id)) || (appId && agentApps.has(appId))) return "agent_registry";
      if (appId && copilotApps.has(appId)) return "copilot_catalog";
      return undefined;
    };
    return { lookup, copilotAgents };
  }

  return {
    workspace,
    groups: groupDirectory.groups,

    /**
     * Users degrade per feature: the directory read needs only User.Read.All; MFA registration and
     * signInActivity need AuditLog.Read.All and Entra ID P1/P2. A refusal of either is a coverage
     * gap and marks that value unknown on every user; the users still come back.
     */
    async *users(): AsyncGenerator<TSourceUser> {
      const coverage = { mfa: true, lastLogin: true };
      const registrations = new Map<string, TMsRegistrationDetails>();
      const path = "/v1.0/reports/authenticationMethods/userRegistrationDetails";
      try {
        for await (const details of graphItems<TMsRegistrationDetails>(graph, path, {
          $select: "id,userPrincipalName,isAdmin,isMfaRegistered",
        })) {
          if (details.id) registrations.set(details.id, details);
        }
      } catch (error) {
        const message = denial(error);
        if (!message) throw error;
        recordGap(MS_FEATURE.mfa, message);
        coverage.mfa = false;
        registrations.clear();
      }
      // Copilot licences (issue 30): the tenant's Copilot SKUs, then each user's assignedLicenses.
      // A refusal is a coverage gap: the users come back without `assistants` (not known).
      let copilot: TCopilotSkus | null = null;
      try {
        const skus: TMsSubscribedSku[] = [];
        for await (const sku of graphItems<TMsSubscribedSku>(graph, "/v1.0/subscribedSkus", {
          $select: "skuId,skuPartNumber,servicePlans",
        })) {
          skus.push(sku);
        }
        copilot = copilotSkusOf(skus);
      } catch (error) {
        const message = denial(error);
        if (!message) throw error;
        recordGap(MS_FEATURE.assistants, message);
      }
      const map = (user: TMsUser) => {
        const mapped = mapMsUser(user, user.id ? registrations.get(user.id) : undefined, coverage);
        return copilot === null
          ? mapped
          : { ...mapped, assistants: assistantsOf(user.assignedLicenses, copilot) };
      };
      let yielded = 0;
      try {
        for await (const user of graphItems<TMsUser>(graph, "/v1.0/users", {
          $select: USER_SIGN_IN_SELECT,
          $top: 999,
        })) {
          yielded++;
          yield map(user);
        }
        return;
      } catch (error) {
        const message = denial(error);
        // Graph refuses signInActivity on the first page or not at all.
        if (!message || yielded > 0) throw error;
        recordGap(MS_FEATURE.lastLogin, message);
        coverage.lastLogin = false;
      }
      for await (const user of graphItems<TMsUser>(graph, "/v1.0/users", {
        $select: USER_SELECT,
        $top: 999,
      })) {
        yield map(user);
      }
    },

    async *files(): AsyncGenerator<TSourceFile> {
      await workspace();
      // The directory first: a refusal there is the users' permission, not the files'.
      await emailLookup();
      try {
        for await (const drive of drives()) {
          if (!drive.id) continue;
          // Each file costs its permissions and label: a few read at once, yielded in delta order.
          let batch: TMsDriveItem[] = [];
          for await (const item of driveFiles(drive.id)) {
            batch.push(item);
            if (batch.length < FILE_READS_AT_ONCE) continue;
            yield* await Promise.all(batch.map((i) => fileOf(drive, i)));
            batch = [];
          }
          yield* await Promise.all(batch.map((i) => fileOf(drive, i)));
        }
      } catch (error) {
        const message = denial(error);
        if (!message) throw error;
        recordGap(MS_FEATURE.files, message);
      }
    },

    async *sharedDrives() {
      const { domain } = await workspace();
      // The directory first: a refusal there is the users' permission, not the files'.
      await directory();
      try {
        for await (const drive of drives()) {
          if (!drive.id || !isLibrary(drive)) continue;
          const root = await graph.get<TMsDriveItem>(`/v1.0/drives/${encodeURIComponent(drive.id)}/root`);
          const members = root.id ? await itemPermissions(drive.id, root.id, domain) : [];
          let fileCount = 0;
          for await (const _item of driveFiles(drive.id)) fileCount++;
          yield mapMsLibrary(drive, members, fileCount);
        }
      } catch (error) {
        const message = denial(error);
        if (!message) throw error;
        recordGap(MS_FEATURE.files, message);
      }
    },

    async *appGrants(): AsyncGenerator<TAppGrant> {
      const { index } = await directory();
      const org = await organization();
      const tenantId = opts.credentials.tenantId;
      const apps = new Map<string, Promise<TMsServicePrincipal | undefined>>();
      const appOf = (id: string) => {
        let app = apps.get(id);
        if (!app) {
          app = graph
            .get<TMsServicePrincipal>(`/v1.0/servicePrincipals/${encodeURIComponent(id)}`, {
              $select: APP_SELECT,
            })
            .catch((error: unknown) => {
              // Without Application.Read.All the grant is still reported, its app unnamed.
              if (denial(error)) return undefined;
              throw error;
            });
          apps.set(id, app);
        }
        return app;
      };
      const tenantCreatedAt = org.createdDateTime || new Date(0).toISOString();
      const registry = await agentRegistry();
      // Copilot agents that hold an app grant are listed by it; the others on their own below.
      const granted = new Set<string>();
      const seen = (grant: TAppGrant) => {
        granted.add(grant.clientId.toLowerCase());
        return grant;
      };
      try {
        for await (const grant of applicationPermissions(appOf, tenantCreatedAt, registry.lookup))
          yield seen(grant);
      } catch (error) {
        const message = denial(error);
        if (!message) throw error;
        recordGap(MS_FEATURE.appPermissions, message);
      }
      try {
        for await (const grant of graphItems<TMsPermissionGrant>(graph, "/v1.0/oauth2PermissionGrants")) {
          const app = grant.clientId ? await appOf(grant.clientId) : undefined;
          // Tenant-wide (AllPrincipals) consent names no user. Grants carry no date, so the grantee's
          // creation (or the tenant's) is the earliest the consent can have happened.
          const grantee =
            grant.consentType === "Principal" && grant.principalId ? index.get(grant.principalId) : undefined;
          yield seen(
            mapMsGrant(
              grant,
              app,
              { email: grantee?.email ?? "", grantedAt: grantee?.createdAt || tenantCreatedAt },
              tenantId,
              registry.lookup,
            ),
          );
        }
      } catch (error) {
        const message = denial(error);
        if (!message) throw error;
        recordGap(MS_FEATURE.delegatedGrants, message);
      }
      for (const pkg of registry.copilotAgents) {
        if (granted.has((pkg.appId ?? "").toLowerCase())) continue;
        yield mapCopilotPackage(pkg, tenantCreatedAt);
      }
    },

    async *activity(since: Date): AsyncGenerator<TActivityEvent> {
      const query = { $filter: `createdDateTime ge ${since.toISOString()}`, $top: 1000 };
      try {
        for await (const signIn of graphItems<TMsSignIn>(graph, "/v1.0/auditLogs/signIns", query)) {
          const event = mapSignIn(signIn);
          if (event) yield event;
        }
      } catch (error) {
        const message = denial(error);
        if (!message) throw error;
        recordGap(MS_FEATURE.signIns, message);
      }
      yield* management.activity(since);
    },

    tenantSettings: () => readMicrosoftSettings(graph),
    // Permissions from the tokens' roles. The feed's subscriptions start at the first activity
    // read (the connect's first scan), not here: a check changes nothing in the tenant.
    checkAccess: () => checkAccess(graph, tokens, managementTokens),
    coverageGaps: () => [...gaps.values()],

    changeFeed: createDriveChangeFeed({
      // Delta's own client: every request carries the preferences that make Graph report sharing changes.
      graph: createJsonClient({
        source: SOURCE,
        baseUrl: graphBaseUrl,
        tokens,
        http: preferDelta(opts.http),
      }),
      libraries,
      userIds,
      userDrives,
      fileOf,
      ownerEmail: async (drive) => (await emailLookup())(drive.owner?.user?.id) ?? "",
      roles: async () => new Set(tokenRoles(await tokens.getToken())),
    }),
  };
}

/**
 * Every requirement of MICROSOFT_ACCESS, granted or not: permissions from the `roles` claim of the
 * app-only tokens (Graph's, and the Management Activity API's for its own permissions), the
 * Entra ID P1/P2 licence from GET /subscribedSkus when the app may read it.
 */
export async function checkAccess(
  graph: TJsonClient,
  tokens: TTokenProvider,
  managementTokens: TTokenProvider,
  requirements: readonly TAccessRequirement[] = MICROSOFT_ACCESS,
): Promise<TAccessCheck[]> {
  const graphRoles = new Set(tokenRoles(await tokens.getToken()));
  let managementRoles: ReadonlySet<string> | string = new Set<string>();
  if (requirements.some((r) => MANAGEMENT_API_PERMISSIONS.has(r.permission))) {
    managementRoles = await managementTokens.getToken().then(
      (token) => new Set(tokenRoles(token)),
      (error: unknown) =>
        `No token for the Office 365 Management API: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  let licences: { premium: boolean } | string;
  if (permissionGranted("Organization.Read.All", graphRoles)) {
    try {
      let premium = false;
      for await (const sku of graphItems<TMsSubscribedSku>(graph, "/v1.0/subscribedSkus", {
        $select: "skuId,skuPartNumber,capabilityStatus,servicePlans",
      })) {
        const active = sku.capabilityStatus === "Enabled" || sku.capabilityStatus === "Warning";
        const plans = (sku.servicePlans ?? []).filter(
          (p) =>
            ENTRA_PREMIUM_SERVICE_PLANS.includes(p.servicePlanName ?? "") &&
            p.provisioningStatus !== "Disabled",
        );
        if (active && plans.length > 0) premium = true;
      }
      licences = { premium };
    } catch (error) {
      const message = denial(error);
      if (!message) throw error;
      licences = `Licence not checked: ${message}`;
    }
  } else {
    licences = "Licence not checked: Organization.Read.All is not granted.";
  }
  return evaluateAccess(
    requirements,
    (permission) => (MANAGEMENT_API_PERMISSIONS.has(permission) ? managementRoles : graphRoles),
    licences,
  );
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
