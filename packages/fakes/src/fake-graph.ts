import { randomBytes } from "node:crypto";
import {
  MANAGEMENT_API_PERMISSIONS,
  MICROSOFT_ACCESS,
  MICROSOFT_WRITE_ACCESS,
} from "@posture/connectors/wire";
import {
  type TMsAgentIdentity,
  type TMsCopilotPackage,
  type TMsDrive,
  type TMsOrganization,
  type TMsAppRoleAssignment,
  type TMsPermissionGrant,
  type TMsSensitivityLabel,
  type TMsSite,
  type TMsRegistrationDetails,
  type TMsServicePrincipal,
  type TMsSignIn,
  type TMsSubscribedSku,
  type TMsUser,
} from "@posture/connectors/wire";
import {
  pageAt,
  pageSize,
  startFakeServer,
  type TFakeRequest,
  type TFakeResponse,
  type TFakeServer,
} from "./fake-server";
import { createDriveDeltaLog, type TFakeDriveItem } from "./fake-graph-delta";
import { tenantOf, type TGraphTenant } from "./fake-graph-tenant";
import { graphDenied, graphError, graphNotPremium, oauthError } from "./graph-errors";
import { countTransitiveMembers } from "./fake-graph-groups";
import { graphSettingsRoute, type TGraphSettingsFixture } from "./fake-graph-settings";
import { GRAPH_WRITE_ROUTE_PERMISSIONS, graphWriteRoutes } from "./fake-graph-write";
import { GRAPH_V1_PROPERTIES, type TGraphEntityType } from "./graph-v1-properties";

// A fake of the Microsoft identity platform token endpoint and the Microsoft Graph v1.0 resources
// the adapter reads, written from the Graph reference and as strict as Graph: OData
// $select/$top/$filter, @odata.nextLink paging, `$select` of a property v1.0 does not declare and
// unknown query options refused (400), each resource refused without one of the application
// permissions graph-permissions.json lists for it (403), sign-in data and authentication-method
// reports refused in a tenant without Entra ID P1/P2 (403), tokens that expire (401).

export type TGraphFixture = {
  tenantId: string;
  organization: TMsOrganization;
  users: TMsUser[];
  registrationDetails: TMsRegistrationDetails[];
  /** Items include the root folder (with `root: {}`); a personal drive's owner.user.id ties it to its user. */
  /** `siteId`: the SharePoint site of a library (none: the root site, listed by GET /drives). */
  /** `sensitivityLabelIds`: the Purview labels on the file (what extractSensitivityLabels answers). */
  drives: Array<
    TMsDrive & {
      siteId?: string;
      items: TFakeDriveItem[];
    }
  >;
  sites: Array<TMsSite & { root?: object }>;
  servicePrincipals: TMsServicePrincipal[];
  permissionGrants: TMsPermissionGrant[];
  /** Application permissions: app roles of `resourceId` granted to service principals. */
  appRoleAssignments: TMsAppRoleAssignment[];
  signIns: TMsSignIn[];
  /** Agent identities (also service principals: list them in `servicePrincipals` too, as Graph does). */
  agentIdentities?: TMsAgentIdentity[];
  /** Agent identity blueprints' service principals (also in `servicePrincipals`). */
  agentBlueprintPrincipals?: TMsServicePrincipal[];
  /** The Copilot admin catalog's packages. */
  copilotPackages?: TMsCopilotPackage[];
  /**
   * The directory's groups (GET /groups), which an invitation can also name (by object id or mail);
   * none by default. `members`: direct members by object id and type; nested groups' are theirs.
   */
  groups?: TFakeGraphGroup[];
  /** The tenant's Purview sensitivity labels; sublabels nested under their parent. */
  sensitivityLabels?: TMsSensitivityLabel[];
  /** The tenant's subscriptions (GET /subscribedSkus). */
  subscribedSkus?: TMsSubscribedSku[];
  /**
   * The Graph application permissions admin-consented to the connector's app: the `roles` of the
   * tokens issued. Absent: every Graph permission of MICROSOFT_ACCESS.
   */
  grantedRoles?: string[];
  /** The Office 365 Management API's permissions granted (roles of a manage.office.com token). */
  managementRoles?: string[];
  /** Whether the tenant has Microsoft Entra ID P1 or P2 (default true). */
  entraPremium?: boolean;
  /** Tenant settings (policies, SharePoint settings); absent: those resources are not served. */
  settings?: TGraphSettingsFixture;
};

export { type TGraphTenant } from "./fake-graph-tenant";

export type TFakeGraphGroup = {
  id: string;
  displayName?: string;
  mail?: string | null;
  members?: Array<{ id: string; type: "user" | "group" | "device" }>;
};

export type TFakeGraph = TFakeServer & {
  issuedTokens: string[];
  tenant: TGraphTenant;
  /**
   * Every access token issued so far stops working now, as if its lifetime had passed: Graph then
   * answers 401 `InvalidAuthenticationToken` ("Lifetime validation failed, the token is expired.").
   */
  expireTokens: () => void;
};

export const GRAPH_AUDIENCE = "https://graph.microsoft.com";
export const MANAGEMENT_AUDIENCE = "https://manage.office.com";

/** Every Graph permission the connector documents: what a fully consented app holds. */
export const ALL_GRAPH_ROLES: readonly string[] = [
  ...new Set(MICROSOFT_ACCESS.map((r) => r.permission).filter((p) => !MANAGEMENT_API_PERMISSIONS.has(p))),
];

/** What an app consented for remediation holds: every read permission and the writes' (write.ts). */
export const ALL_GRAPH_WRITE_ROLES: readonly string[] = [
  ...ALL_GRAPH_ROLES,
  ...MICROSOFT_WRITE_ACCESS.map((r) => r.permission),
];

// Graph returns only these user properties unless $select asks for others (signInActivity never by default).
const USER_DEFAULT_PROPERTIES = ["id", "displayName", "mail", "userPrincipalName"];

/**
 * The application permissions graph-permissions.json lists for each path the fake serves (any one
 * suffices; permissions that only reach part of the data, such as User.ReadBasic.All or
 * Application.ReadWrite.OwnedBy, are left out). Keys are the file's own path templates.
 */
export const GRAPH_ROUTE_PERMISSIONS = {
  "GET /organization": [
    "User.Read.All",
    "Organization.Read.All",
    "Organization.ReadWrite.All",
    "Directory.Read.All",
    "Directory.ReadWrite.All",
  ],
  "GET /users": ["User.Read.All", "User.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"],
  "GET /reports/authenticationMethods/userRegistrationDetails": ["AuditLog.Read.All"],
  "GET /auditLogs/signIns": ["AuditLog.Read.All"],
  "GET /sites": ["Sites.Read.All", "Sites.ReadWrite.All"],
  "GET /sites/{id}/drives": [
    "Files.Read.All",
    "Files.ReadWrite.All",
    "Sites.Read.All",
    "Sites.ReadWrite.All",
  ],
  "GET /users/{id}/drives": [
    "Files.Read.All",
    "Files.ReadWrite.All",
    "Sites.Read.All",
    "Sites.ReadWrite.All",
  ],
  "GET /drives/{id}": ["Files.Read.All", "Files.ReadWrite.All", "Sites.Read.All", "Sites.ReadWrite.All"],
  "GET /drives/{id}/items/{id}": [
    "Files.Read.All",
    "Files.ReadWrite.All",
    "Sites.Read.All",
    "Sites.ReadWrite.All",
  ],
  "GET /drives/{id}/root/delta": [
    "Files.Read.All",
    "Files.ReadWrite.All",
    "Sites.Read.All",
    "Sites.ReadWrite.All",
  ],
  "GET /drives/{id}/items/{id}/permissions": [
    "Files.Read.All",
    "Files.ReadWrite.All",
    "Sites.Read.All",
    "Sites.ReadWrite.All",
  ],
  "POST /drives/{id}/items/{id}/extractSensitivityLabels": [
    "Files.Read.All",
    "Files.ReadWrite.All",
    "Sites.Read.All",
    "Sites.ReadWrite.All",
  ],
  "GET /security/dataSecurityAndGovernance/sensitivityLabels": [
    "SensitivityLabel.Read",
    "SensitivityLabels.Read.All",
  ],
  "GET /security/dataSecurityAndGovernance/sensitivityLabels/{id}": [
    "SensitivityLabel.Read",
    "SensitivityLabels.Read.All",
  ],
  // Directory.ReadWrite.All lists service principals only delegated.
  "GET /servicePrincipals": ["Application.Read.All", "Application.ReadWrite.All", "Directory.Read.All"],
  "GET /servicePrincipals/microsoft.graph.agentIdentity": [
    "AgentIdentity.Read.All",
    "AgentIdentity.ReadWrite.All",
  ],
  "GET /servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal": [
    "AgentIdentityBlueprintPrincipal.Read.All",
    "AgentIdentityBlueprintPrincipal.ReadWrite.All",
  ],
  "GET /copilot/admin/catalog/packages": ["CopilotPackages.Read.All", "CopilotPackages.ReadWrite.All"],
  "GET /servicePrincipals/{id}": [
    "Application.Read.All",
    "Application.ReadWrite.All",
    "Directory.Read.All",
    "Directory.ReadWrite.All",
  ],
  "GET /servicePrincipals/{id}/appRoleAssignedTo": [
    "Application.Read.All",
    "Application.ReadWrite.All",
    "Directory.Read.All",
    "Directory.ReadWrite.All",
  ],
  "GET /oauth2PermissionGrants": [
    "Directory.Read.All",
    "Directory.ReadWrite.All",
    "DelegatedPermissionGrant.ReadWrite.All",
  ],
  "GET /groups": ["GroupMember.Read.All", "Group.Read.All", "Group.ReadWrite.All", "Directory.Read.All"],
  // Its `$count` segment, the only part the fake serves (graph-permissions.json lists the collection).
  "GET /groups/{id}/transitiveMembers": [
    "GroupMember.Read.All",
    "Group.Read.All",
    "Group.ReadWrite.All",
    "Directory.Read.All",
  ],
  "GET /subscribedSkus": [
    "LicenseAssignment.Read.All",
    "Organization.Read.All",
    "Organization.ReadWrite.All",
    "Directory.Read.All",
    "Directory.ReadWrite.All",
  ],
} as const satisfies Record<string, readonly string[]>;

type TRouteKey = keyof typeof GRAPH_ROUTE_PERMISSIONS | keyof typeof GRAPH_WRITE_ROUTE_PERMISSIONS;

const ROUTE_PERMISSIONS: Record<TRouteKey, readonly string[]> = {
  ...GRAPH_ROUTE_PERMISSIONS,
  ...GRAPH_WRITE_ROUTE_PERMISSIONS,
};

/** A collection answer: `$top`/`$skiptoken` paging and `$select`, as every list route serves it. */
export type TGraphCollection = <T extends object>(
  req: TFakeRequest,
  baseUrl: string,
  items: T[],
  opts: { maxTop: number; defaults?: string[] },
) => TFakeResponse;

/** Which route a request is, and the checks Graph makes before serving it. */
export type TGraphRoute = {
  key: TRouteKey;
  /** The entity type `$select` is checked against; none: the resource takes no $select. */
  entity?: TGraphEntityType;
  options: readonly string[];
  /** Sign-in data and authentication-method reports: Entra ID P1/P2 only. */
  premium?: (q: URLSearchParams) => boolean;
  /** More permissions a part of the request needs (signInActivity: AuditLog.Read.All too). */
  also?: (q: URLSearchParams) => readonly string[];
  /** The refusal when the app lacks the permissions (default: the directory's Authorization_RequestDenied). */
  denied?: () => TFakeResponse;
  serve: (
    req: TFakeRequest,
    baseUrl: string,
    m: RegExpExecArray,
    roles: Set<string>,
    collection: TGraphCollection,
  ) => TFakeResponse;
};

/** Graph's answer to a `$select` naming a property the entity type does not declare in v1.0. */
function selectError(entity: TGraphEntityType, q: URLSearchParams): TFakeResponse | null {
  const wanted = q.get("$select");
  if (wanted === null) return null;
  const known: readonly string[] = GRAPH_V1_PROPERTIES[entity];
  for (const property of wanted.split(",").map((s) => s.trim())) {
    if (!known.includes(property)) {
      return graphError(
        400,
        "BadRequest",
        `Could not find a property named '${property}' on type 'microsoft.graph.${entity}'.`,
      );
    }
  }
  return null;
}

/** Graph's answer to a query option the resource does not support. */
function optionError(q: URLSearchParams, allowed: readonly string[]): TFakeResponse | null {
  for (const key of q.keys()) {
    if (!allowed.includes(key)) {
      return graphError(400, "BadRequest", `Query option '${key}' is not supported on this resource.`);
    }
  }
  return null;
}

function select<T extends object>(item: T, q: URLSearchParams, defaults?: string[]): Partial<T> {
  const wanted =
    q
      .get("$select")
      ?.split(",")
      .map((s) => s.trim()) ?? defaults;
  if (!wanted) return item;
  return Object.fromEntries(Object.entries(item).filter(([key]) => wanted.includes(key))) as Partial<T>;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

export async function startFakeGraph(opts: {
  fixture: TGraphFixture;
  clientId: string;
  clientSecret: string;
  /** Upper bound on items per page, to force paging. */
  pageSize?: number;
  tokenTtlSec?: number;
  /** The fake's clock (ms), for token expiry; the real clock when absent. */
  now?: () => number;
}): Promise<TFakeGraph> {
  const { fixture } = opts;
  const fakeMax = opts.pageSize ?? 1000;
  const now = opts.now ?? Date.now;
  const issued: string[] = [];
  const deltaLog = createDriveDeltaLog(fakeMax);
  for (const drive of fixture.drives) deltaLog.track(drive);
  const tenant = tenantOf(fixture, deltaLog);
  const tokens = new Map<string, { audience: string; roles: Set<string>; expiresAt: number }>();

  /** A JWT-shaped app-only token: header.payload.signature, the payload carrying `roles` as Entra's does. */
  function mintToken(audience: string, roles: readonly string[]): { token: string; ttl: number } {
    const ttl = opts.tokenTtlSec ?? 3599;
    const iat = Math.floor(now() / 1000);
    const payload = {
      aud: audience,
      iss: `https://sts.windows.net/${fixture.tenantId}/`,
      iat,
      nbf: iat,
      exp: iat + ttl,
      appid: opts.clientId,
      idtyp: "app",
      tid: fixture.tenantId,
      roles,
    };
    const token = `${b64url({ typ: "JWT", alg: "RS256" })}.${b64url(payload)}.${randomBytes(32).toString("base64url")}`;
    tokens.set(token, { audience, roles: new Set(roles), expiresAt: now() + ttl * 1000 });
    issued.push(token);
    return { token, ttl };
  }

  function issueToken(tenant: string, req: TFakeRequest): TFakeResponse {
    const form = new URLSearchParams(req.body);

    if (
      tenant !== fixture.tenantId &&
      !(fixture.organization.verifiedDomains ?? []).some((d) => d.name === tenant)
    ) {
      return oauthError(400, "invalid_request", `AADSTS90002: Tenant '${tenant}' not found.`);
    }
    if (form.get("grant_type") !== "client_credentials") {
      return oauthError(
        400,
        "unsupported_grant_type",
        "AADSTS70003: The app requested an unsupported grant type.",
      );
    }
    if (form.get("client_id") !== opts.clientId) {
      return oauthError(
        400,
        "unauthorized_client",
        `AADSTS700016: Application '${form.get("client_id")}' was not found.`,
      );
    }
    if (form.get("client_secret") !== opts.clientSecret) {
      return oauthError(401, "invalid_client", "AADSTS7000215: Invalid client secret provided.");
    }
    const scope = form.get("scope");
    const minted =
      scope === `${GRAPH_AUDIENCE}/.default`
        ? mintToken(GRAPH_AUDIENCE, fixture.grantedRoles ?? ALL_GRAPH_ROLES)
        : scope === `${MANAGEMENT_AUDIENCE}/.default`
          ? mintToken(MANAGEMENT_AUDIENCE, fixture.managementRoles ?? ["ActivityFeed.Read"])
          : null;
    if (!minted) {
      return oauthError(400, "invalid_scope", "AADSTS1002012: The provided value for scope is not valid.");
    }
    return {
      status: 200,
      body: {
        token_type: "Bearer",
        expires_in: minted.ttl,
        ext_expires_in: minted.ttl,
        access_token: minted.token,
      },
    };
  }

  /** The Graph token of a request, or Graph's 401 for a missing, foreign or expired one. */
  function authenticate(req: TFakeRequest): { roles: Set<string> } | TFakeResponse {
    const header = req.headers.authorization;
    const bearer = typeof header === "string" ? /^Bearer (.+)$/.exec(header)?.[1] : undefined;
    const token = bearer ? tokens.get(bearer) : undefined;
    if (!token) {
      return graphError(
        401,
        "InvalidAuthenticationToken",
        "Access token validation failure. Invalid audience.",
      );
    }
    if (token.audience !== GRAPH_AUDIENCE) {
      return graphError(
        401,
        "InvalidAuthenticationToken",
        "Access token validation failure. Invalid audience.",
      );
    }
    if (now() >= token.expiresAt) {
      return graphError(
        401,
        "InvalidAuthenticationToken",
        "Lifetime validation failed, the token is expired.",
      );
    }
    return { roles: token.roles };
  }

  function collection<T extends object>(
    req: TFakeRequest,
    baseUrl: string,
    items: T[],
    opts2: { maxTop: number; defaults?: string[] },
  ): TFakeResponse {
    const q = req.query;
    const at = pageAt(items, q.get("$skiptoken"), pageSize(q.get("$top"), 100, opts2.maxTop, fakeMax));
    if (at === "invalid") return graphError(400, "BadRequest", "Invalid $skiptoken");
    const link = (params: URLSearchParams) => `${baseUrl}${req.path}?${params.toString()}`;
    const nextParams = new URLSearchParams(q);
    if (at.nextToken !== undefined) nextParams.set("$skiptoken", at.nextToken);
    return {
      status: 200,
      body: {
        "@odata.context": `${baseUrl}/v1.0/$metadata#collection`,
        value: at.page.map((item) => select(item, q, opts2.defaults)),
        ...(at.nextToken !== undefined ? { "@odata.nextLink": link(nextParams) } : {}),
      },
    };
  }

  function signIns(req: TFakeRequest, baseUrl: string): TFakeResponse {
    const filter = req.query.get("$filter");
    let rows = [...fixture.signIns];
    if (filter) {
      const match = /^createdDateTime ge (\S+)$/.exec(filter);
      if (!match?.[1] || Number.isNaN(Date.parse(match[1])))
        return graphError(400, "BadRequest", `Invalid filter clause: ${filter}`);
      const since = Date.parse(match[1]);
      rows = rows.filter((s) => Date.parse(s.createdDateTime ?? "") >= since);
    }
    rows.sort((a, b) => Date.parse(b.createdDateTime ?? "") - Date.parse(a.createdDateTime ?? ""));
    return collection(req, baseUrl, rows, { maxTop: 1000 });
  }

  const withoutItems = ({ items: _items, siteId: _site, ...drive }: TGraphFixture["drives"][number]) => drive;
  const premium = fixture.entraPremium ?? true;
  const COLLECTION_OPTIONS = ["$select", "$top", "$skiptoken"];

  type TRoute = TGraphRoute;
  const selectsSignIns = (q: URLSearchParams) =>
    (q.get("$select") ?? "").split(",").some((p) => p.trim() === "signInActivity");

  const driveOf = (m: RegExpExecArray) => fixture.drives.find((d) => d.id === decodeURIComponent(m[1] ?? ""));
  const strip =
    (drive: TGraphFixture["drives"][number]) =>
    ({ permissions: _p, sensitivityLabelIds: _l, ...item }: TFakeDriveItem) => ({
      ...item,
      parentReference: { ...item.parentReference, driveId: drive.id, driveType: drive.driveType },
    });
  const allLabels = (labels: TMsSensitivityLabel[]): TMsSensitivityLabel[] =>
    labels.flatMap((l) => [l, ...allLabels(l.sublabels ?? [])]);
  const withoutSublabels = ({ sublabels: _s, ...label }: TMsSensitivityLabel) => label;

  const routes: Array<[string, RegExp, TRoute]> = [
    [
      "GET",
      /^\/v1\.0\/organization$/,
      {
        key: "GET /organization",
        entity: "organization",
        options: ["$select"],
        serve: (req) => ({ status: 200, body: { value: [select(fixture.organization, req.query)] } }),
      },
    ],
    [
      "GET",
      /^\/v1\.0\/users$/,
      {
        key: "GET /users",
        entity: "user",
        options: [...COLLECTION_OPTIONS, "$filter"],
        premium: selectsSignIns,
        also: (q) => (selectsSignIns(q) ? ["AuditLog.Read.All"] : []),
        serve: (req, baseUrl) => {
          // The one filter served: a user by mail (the writer's lookup of a OneDrive owner).
          const filter = req.query.get("$filter");
          const byMail = filter ? /^mail eq '((?:[^']|'')*)'$/.exec(filter) : null;
          if (filter && !byMail) return graphError(400, "BadRequest", `Unsupported filter: ${filter}`);
          const mail = byMail?.[1]?.replace(/''/g, "'").toLowerCase();
          const rows = mail
            ? fixture.users.filter((u) => (u.mail ?? "").toLowerCase() === mail)
            : fixture.users;
          return collection(req, baseUrl, rows, { maxTop: 999, defaults: USER_DEFAULT_PROPERTIES });
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/reports\/authenticationMethods\/userRegistrationDetails$/,
      {
        key: "GET /reports/authenticationMethods/userRegistrationDetails",
        entity: "userRegistrationDetails",
        options: [...COLLECTION_OPTIONS, "$filter"],
        premium: () => true,
        serve: (req, baseUrl) => collection(req, baseUrl, fixture.registrationDetails, { maxTop: 999 }),
      },
    ],
    [
      "GET",
      /^\/v1\.0\/drives$/,
      {
        key: "GET /drives/{id}",
        entity: "drive",
        options: COLLECTION_OPTIONS,
        serve: (req, baseUrl) =>
          collection(
            req,
            baseUrl,
            fixture.drives.filter((d) => d.driveType === "documentLibrary" && !d.siteId).map(withoutItems),
            { maxTop: 999 },
          ),
      },
    ],
    [
      "GET",
      /^\/v1\.0\/sites$/,
      {
        key: "GET /sites",
        entity: "site",
        options: [...COLLECTION_OPTIONS, "search"],
        serve: (req, baseUrl) =>
          // Site search: `search=*` enumerates every site the app may read.
          req.query.get("search") === null
            ? graphError(400, "BadRequest", "Sites must be searched or addressed by id.")
            : collection(req, baseUrl, fixture.sites, { maxTop: 999 }),
      },
    ],
    [
      "GET",
      /^\/v1\.0\/sites\/([^/]+)\/drives$/,
      {
        key: "GET /sites/{id}/drives",
        entity: "drive",
        options: COLLECTION_OPTIONS,
        serve: (req, baseUrl, m) => {
          const site = fixture.sites.find((x) => x.id === decodeURIComponent(m[1] ?? ""));
          if (!site) return graphError(404, "itemNotFound", "Requested site could not be found");
          const own = (d: TGraphFixture["drives"][number]) => (site.root ? !d.siteId : d.siteId === site.id);
          return collection(
            req,
            baseUrl,
            fixture.drives.filter((d) => d.driveType === "documentLibrary" && own(d)).map(withoutItems),
            { maxTop: 999 },
          );
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/users\/([^/]+)\/drives$/,
      {
        key: "GET /users/{id}/drives",
        entity: "drive",
        options: COLLECTION_OPTIONS,
        serve: (req, baseUrl, m) => {
          const userId = decodeURIComponent(m[1] ?? "");
          if (!fixture.users.some((u) => u.id === userId))
            return graphError(404, "Request_ResourceNotFound", `Resource '${userId}' does not exist.`);
          const own = fixture.drives.filter(
            (d) => d.driveType !== "documentLibrary" && d.owner?.user?.id === userId,
          );
          if (own.length === 0) return graphError(404, "itemNotFound", "User's mysite not found.");
          return collection(req, baseUrl, own.map(withoutItems), { maxTop: 999 });
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/drives\/([^/]+)\/root$/,
      {
        key: "GET /drives/{id}/items/{id}",
        entity: "driveItem",
        options: ["$select"],
        serve: (req, _baseUrl, m) => {
          const drive = driveOf(m);
          const root = drive?.items.find((i) => i.root);
          return drive && root
            ? { status: 200, body: select(strip(drive)(root), req.query) }
            : graphError(404, "itemNotFound", "The resource could not be found.");
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/drives\/([^/]+)\/root\/delta$/,
      {
        key: "GET /drives/{id}/root/delta",
        entity: "driveItem",
        // Delta's own paging is in `token`; $expand is not served by the fake.
        options: ["$select", "$top", "token"],
        serve: (req, baseUrl, m, roles) => {
          const drive = driveOf(m);
          if (!drive) return graphError(404, "itemNotFound", "The resource could not be found.");
          return deltaLog.serve(req, baseUrl, drive, { roles }, (item) =>
            select(strip(drive)(item), req.query),
          );
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/drives\/([^/]+)\/items\/([^/]+)\/permissions$/,
      {
        key: "GET /drives/{id}/items/{id}/permissions",
        entity: "permission",
        options: COLLECTION_OPTIONS,
        serve: (req, baseUrl, m) => {
          const item = driveOf(m)?.items.find((i) => i.id === decodeURIComponent(m[2] ?? ""));
          if (!item) return graphError(404, "itemNotFound", "The resource could not be found.");
          return collection(req, baseUrl, item.permissions ?? [], { maxTop: 999 });
        },
      },
    ],
    [
      "POST",
      /^\/v1\.0\/drives\/([^/]+)\/items\/([^/]+)\/extractSensitivityLabels$/,
      {
        key: "POST /drives/{id}/items/{id}/extractSensitivityLabels",
        options: [],
        serve: (_req, _baseUrl, m) => {
          const item = driveOf(m)?.items.find((i) => i.id === decodeURIComponent(m[2] ?? ""));
          if (!item?.file) return graphError(404, "itemNotFound", "The resource could not be found.");
          const labels = (item.sensitivityLabelIds ?? []).map((sensitivityLabelId) => ({
            sensitivityLabelId,
            assignmentMethod: "standard",
            tenantId: fixture.tenantId,
          }));
          return { status: 200, body: { labels } };
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/security\/dataSecurityAndGovernance\/sensitivityLabels$/,
      {
        key: "GET /security/dataSecurityAndGovernance/sensitivityLabels",
        entity: "sensitivityLabel",
        options: COLLECTION_OPTIONS,
        // Top-level labels; a sublabel is read by its id (navigation properties are not expanded).
        serve: (req, baseUrl) =>
          collection(req, baseUrl, (fixture.sensitivityLabels ?? []).map(withoutSublabels), { maxTop: 999 }),
      },
    ],
    [
      "GET",
      /^\/v1\.0\/security\/dataSecurityAndGovernance\/sensitivityLabels\/([^/]+)$/,
      {
        key: "GET /security/dataSecurityAndGovernance/sensitivityLabels/{id}",
        entity: "sensitivityLabel",
        options: ["$select"],
        serve: (req, _baseUrl, m) => {
          const label = allLabels(fixture.sensitivityLabels ?? []).find(
            (l) => l.id === decodeURIComponent(m[1] ?? ""),
          );
          return label
            ? { status: 200, body: select(withoutSublabels(label), req.query) }
            : graphError(404, "itemNotFound", "The sensitivity label could not be found.");
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/servicePrincipals$/,
      {
        key: "GET /servicePrincipals",
        entity: "servicePrincipal",
        options: [...COLLECTION_OPTIONS, "$filter"],
        serve: (req, baseUrl) => {
          // The only filter the adapter sends (and Graph supports on appId): equality.
          const filter = req.query.get("$filter");
          const byAppId = filter ? /^appId eq '([^']*)'$/.exec(filter) : null;
          if (filter && !byAppId) return graphError(400, "BadRequest", `Unsupported filter: ${filter}`);
          const rows = byAppId
            ? fixture.servicePrincipals.filter((s) => s.appId === byAppId[1])
            : fixture.servicePrincipals;
          return collection(req, baseUrl, rows, { maxTop: 999 });
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/servicePrincipals\/microsoft\.graph\.agentIdentity$/,
      {
        key: "GET /servicePrincipals/microsoft.graph.agentIdentity",
        entity: "agentIdentity",
        options: COLLECTION_OPTIONS,
        serve: (req, baseUrl) => collection(req, baseUrl, fixture.agentIdentities ?? [], { maxTop: 999 }),
      },
    ],
    [
      "GET",
      /^\/v1\.0\/servicePrincipals\/microsoft\.graph\.agentIdentityBlueprintPrincipal$/,
      {
        key: "GET /servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal",
        entity: "agentIdentityBlueprintPrincipal",
        options: COLLECTION_OPTIONS,
        serve: (req, baseUrl) =>
          collection(req, baseUrl, fixture.agentBlueprintPrincipals ?? [], { maxTop: 999 }),
      },
    ],
    [
      "GET",
      /^\/v1\.0\/copilot\/admin\/catalog\/packages$/,
      {
        key: "GET /copilot/admin/catalog/packages",
        entity: "copilotPackageDetail",
        // The metadata declares skip tokens (SkipTokenSupported) and a few filters; the fake serves
        // no $filter, and pages at Graph's default size.
        options: ["$select", "$skiptoken"],
        serve: (req, baseUrl) => collection(req, baseUrl, fixture.copilotPackages ?? [], { maxTop: 100 }),
      },
    ],
    [
      "GET",
      /^\/v1\.0\/servicePrincipals\/([^/]+)\/appRoleAssignedTo$/,
      {
        key: "GET /servicePrincipals/{id}/appRoleAssignedTo",
        entity: "appRoleAssignment",
        options: COLLECTION_OPTIONS,
        serve: (req, baseUrl, m) => {
          const id = decodeURIComponent(m[1] ?? "");
          if (!fixture.servicePrincipals.some((s) => s.id === id))
            return graphError(404, "Request_ResourceNotFound", "Resource does not exist.");
          return collection(
            req,
            baseUrl,
            fixture.appRoleAssignments.filter((a) => a.resourceId === id),
            { maxTop: 999 },
          );
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/servicePrincipals\/([^/]+)$/,
      {
        key: "GET /servicePrincipals/{id}",
        entity: "servicePrincipal",
        options: ["$select"],
        serve: (req, _baseUrl, m) => {
          const sp = fixture.servicePrincipals.find((s) => s.id === decodeURIComponent(m[1] ?? ""));
          return sp
            ? { status: 200, body: select(sp, req.query) }
            : graphError(404, "Request_ResourceNotFound", "Resource does not exist.");
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/oauth2PermissionGrants$/,
      {
        key: "GET /oauth2PermissionGrants",
        entity: "oAuth2PermissionGrant",
        options: [...COLLECTION_OPTIONS, "$filter"],
        serve: (req, baseUrl) => {
          const filter = req.query.get("$filter");
          const byClient = filter ? /^clientId eq '([^']*)'$/.exec(filter) : null;
          if (filter && !byClient) return graphError(400, "BadRequest", `Unsupported filter: ${filter}`);
          const rows = byClient
            ? fixture.permissionGrants.filter((g) => g.clientId === byClient[1])
            : fixture.permissionGrants;
          return collection(req, baseUrl, rows, { maxTop: 999 });
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/auditLogs\/signIns$/,
      {
        key: "GET /auditLogs/signIns",
        entity: "signIn",
        options: [...COLLECTION_OPTIONS, "$filter"],
        premium: () => true,
        serve: signIns,
      },
    ],
    [
      "GET",
      /^\/v1\.0\/groups$/,
      {
        key: "GET /groups",
        entity: "group",
        options: COLLECTION_OPTIONS,
        serve: (req, baseUrl) =>
          collection(
            req,
            baseUrl,
            (fixture.groups ?? []).map(({ members: _m, ...group }) => group),
            { maxTop: 999 },
          ),
      },
    ],
    [
      "GET",
      /^\/v1\.0\/groups\/([^/]+)\/transitiveMembers(\/microsoft\.graph\.user)?\/\$count$/,
      {
        key: "GET /groups/{id}/transitiveMembers",
        options: [],
        serve: (req, _baseUrl, m) =>
          countTransitiveMembers(fixture.groups ?? [], req, decodeURIComponent(m[1] ?? ""), Boolean(m[2])),
      },
    ],
    [
      "GET",
      /^\/v1\.0\/subscribedSkus$/,
      {
        key: "GET /subscribedSkus",
        entity: "subscribedSku",
        options: ["$select"],
        // Graph answers the tenant's subscriptions in one response: no $top, no paging.
        serve: (req) => ({
          status: 200,
          body: { value: (fixture.subscribedSkus ?? []).map((sku) => select(sku, req.query)) },
        }),
      },
    ],
  ];

  routes.push(...graphWriteRoutes({ fixture, tenant, select, userDefaults: USER_DEFAULT_PROPERTIES, now }));

  function route(req: TFakeRequest, baseUrl: string, roles: Set<string>): TFakeResponse {
    let known = false;
    for (const [method, pattern, r] of routes) {
      const m = pattern.exec(req.path);
      if (!m) continue;
      known = true;
      if (req.method !== method) continue;
      const refused =
        optionError(req.query, r.options) ?? (r.entity ? selectError(r.entity, req.query) : null);
      if (refused) return refused;
      const needs = ROUTE_PERMISSIONS[r.key];
      const denied = r.denied ?? graphDenied;
      if (!needs.some((p) => roles.has(p))) return denied();
      if ((r.also?.(req.query) ?? []).some((p) => !roles.has(p))) return denied();
      if (r.premium?.(req.query) && !premium) return graphNotPremium();
      return r.serve(req, baseUrl, m, roles, collection);
    }
    if (known) {
      return graphError(
        405,
        "BadRequest",
        `The HTTP method '${req.method}' is not allowed on this resource.`,
      );
    }
    return graphError(400, "BadRequest", `Resource not found for the segment '${req.path}'.`);
  }

  const server = await startFakeServer({
    faultBody: (status) =>
      (status === 429
        ? graphError(429, "TooManyRequests", "Too many requests.")
        : status === 403
          ? graphDenied()
          : status === 500
            ? graphError(500, "generalException", "An unspecified error has occurred.")
            : graphError(status, "serviceNotAvailable", "The service is temporarily unavailable.")
      ).body,
    handle: (req, baseUrl) => {
      const tokenPath = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(req.path);
      if (req.method === "POST" && tokenPath) return issueToken(decodeURIComponent(tokenPath[1] ?? ""), req);
      const caller = authenticate(req);
      if ("status" in caller) return caller;
      return graphSettingsRoute(fixture.settings, req) ?? route(req, baseUrl, caller.roles);
    },
  });
  return {
    ...server,
    issuedTokens: issued,
    tenant,
    expireTokens: () => {
      for (const token of tokens.values()) token.expiresAt = now();
    },
  };
}
