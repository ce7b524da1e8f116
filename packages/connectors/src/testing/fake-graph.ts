import { randomBytes } from "node:crypto";
import {
  type TMsDrive,
  type TMsDriveItem,
  type TMsOrganization,
  type TMsPermission,
  type TMsAppRoleAssignment,
  type TMsPermissionGrant,
  type TMsSite,
  type TMsRegistrationDetails,
  type TMsServicePrincipal,
  type TMsSignIn,
  type TMsUser,
} from "../microsoft/api-types";
import {
  createTokenBook,
  encodeCursor,
  pageAt,
  pageSize,
  startFakeServer,
  type TFakeRequest,
  type TFakeResponse,
  type TFakeServer,
} from "./fake-server";
import { graphSettingsRoute, type TGraphSettingsFixture } from "./fake-graph-settings";

// A fake of the Microsoft identity platform token endpoint and the Microsoft Graph v1.0 resources
// the adapter reads, written from the Graph reference: OData $select/$top/$filter, @odata.nextLink paging.

export type TGraphFixture = {
  tenantId: string;
  organization: TMsOrganization;
  users: TMsUser[];
  registrationDetails: TMsRegistrationDetails[];
  /** Items include the root folder (with `root: {}`); a personal drive's owner.user.id ties it to its user. */
  /** `siteId`: the SharePoint site of a library (none: the root site, listed by GET /drives). */
  drives: Array<
    TMsDrive & { siteId?: string; items: Array<TMsDriveItem & { permissions?: TMsPermission[] }> }
  >;
  sites: Array<TMsSite & { root?: object }>;
  servicePrincipals: TMsServicePrincipal[];
  permissionGrants: TMsPermissionGrant[];
  /** Application permissions: app roles of `resourceId` granted to service principals. */
  appRoleAssignments: TMsAppRoleAssignment[];
  signIns: TMsSignIn[];
  /** Tenant settings (policies, SharePoint settings); absent: those resources are not served. */
  settings?: TGraphSettingsFixture;
};

export type TFakeGraph = TFakeServer & { issuedTokens: string[] };

// Graph returns only these user properties unless $select asks for others (signInActivity never by default).
const USER_DEFAULT_PROPERTIES = ["id", "displayName", "mail", "userPrincipalName"];

const graphError = (status: number, code: string, message: string): TFakeResponse => ({
  status,
  body: {
    error: {
      code,
      message,
      innerError: { date: new Date().toISOString(), "request-id": randomBytes(8).toString("hex") },
    },
  },
});

function select<T extends object>(item: T, q: URLSearchParams, defaults?: string[]): Partial<T> {
  const wanted =
    q
      .get("$select")
      ?.split(",")
      .map((s) => s.trim()) ?? defaults;
  if (!wanted) return item;
  return Object.fromEntries(Object.entries(item).filter(([key]) => wanted.includes(key))) as Partial<T>;
}

export async function startFakeGraph(opts: {
  fixture: TGraphFixture;
  clientId: string;
  clientSecret: string;
  /** Upper bound on items per page, to force paging. */
  pageSize?: number;
  tokenTtlSec?: number;
}): Promise<TFakeGraph> {
  const { fixture } = opts;
  const fakeMax = opts.pageSize ?? 1000;
  const tokens = createTokenBook("eyJ0eXAi.");

  function issueToken(tenant: string, req: TFakeRequest): TFakeResponse {
    const form = new URLSearchParams(req.body);
    const oauthError = (status: number, error: string, description: string) => ({
      status,
      body: { error, error_description: description, error_codes: [], timestamp: new Date().toISOString() },
    });
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
    if (form.get("scope") !== "https://graph.microsoft.com/.default") {
      return oauthError(400, "invalid_scope", "AADSTS1002012: The provided value for scope is not valid.");
    }
    const ttl = opts.tokenTtlSec ?? 3599;
    return {
      status: 200,
      body: { token_type: "Bearer", expires_in: ttl, ext_expires_in: ttl, access_token: tokens.issue() },
    };
  }

  function collection<T extends object>(
    req: TFakeRequest,
    baseUrl: string,
    items: T[],
    opts2: { maxTop: number; defaults?: string[]; delta?: boolean },
  ): TFakeResponse {
    const q = req.query;
    const at = pageAt(items, q.get("$skiptoken"), pageSize(q.get("$top"), 100, opts2.maxTop, fakeMax));
    if (at === "invalid") return graphError(400, "BadRequest", "Invalid $skiptoken");
    const link = (params: URLSearchParams) => `${baseUrl}${req.path}?${params.toString()}`;
    const nextParams = new URLSearchParams(q);
    if (at.nextToken !== undefined) nextParams.set("$skiptoken", at.nextToken);
    const deltaParams = new URLSearchParams({ token: encodeCursor(items.length) });
    return {
      status: 200,
      body: {
        "@odata.context": `${baseUrl}/v1.0/$metadata#collection`,
        value: at.page.map((item) => select(item, q, opts2.defaults)),
        ...(at.nextToken !== undefined
          ? { "@odata.nextLink": link(nextParams) }
          : opts2.delta
            ? { "@odata.deltaLink": link(deltaParams) }
            : {}),
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

  function route(req: TFakeRequest, baseUrl: string): TFakeResponse {
    const p = req.path;
    const q = req.query;
    let m: RegExpExecArray | null;
    if (p === "/v1.0/organization")
      return { status: 200, body: { value: [select(fixture.organization, q)] } };
    if (p === "/v1.0/users")
      return collection(req, baseUrl, fixture.users, { maxTop: 999, defaults: USER_DEFAULT_PROPERTIES });
    if (p === "/v1.0/reports/authenticationMethods/userRegistrationDetails") {
      return collection(req, baseUrl, fixture.registrationDetails, { maxTop: 999 });
    }
    if (p === "/v1.0/drives") {
      return collection(
        req,
        baseUrl,
        fixture.drives.filter((d) => d.driveType === "documentLibrary" && !d.siteId).map(withoutItems),
        { maxTop: 999 },
      );
    }
    if (p === "/v1.0/sites") {
      // Site search: `search=*` enumerates every site the app may read.
      if (q.get("search") === null)
        return graphError(400, "BadRequest", "Sites must be searched or addressed by id.");
      return collection(req, baseUrl, fixture.sites, { maxTop: 999 });
    }
    if ((m = /^\/v1\.0\/sites\/([^/]+)\/drives$/.exec(p))) {
      const site = fixture.sites.find((x) => x.id === decodeURIComponent(m?.[1] ?? ""));
      if (!site) return graphError(404, "itemNotFound", "Requested site could not be found");
      const own = (d: TGraphFixture["drives"][number]) => (site.root ? !d.siteId : d.siteId === site.id);
      return collection(
        req,
        baseUrl,
        fixture.drives.filter((d) => d.driveType === "documentLibrary" && own(d)).map(withoutItems),
        { maxTop: 999 },
      );
    }
    if ((m = /^\/v1\.0\/users\/([^/]+)\/drives$/.exec(p))) {
      const userId = decodeURIComponent(m[1] ?? "");
      if (!fixture.users.some((u) => u.id === userId))
        return graphError(404, "Request_ResourceNotFound", `Resource '${userId}' does not exist.`);
      const own = fixture.drives.filter(
        (d) => d.driveType !== "documentLibrary" && d.owner?.user?.id === userId,
      );
      if (own.length === 0) return graphError(404, "itemNotFound", "User's mysite not found.");
      return collection(req, baseUrl, own.map(withoutItems), { maxTop: 999 });
    }
    if ((m = /^\/v1\.0\/drives\/([^/]+)\/(root|root\/delta|items\/([^/]+)\/permissions)$/.exec(p))) {
      const drive = fixture.drives.find((d) => d.id === decodeURIComponent(m?.[1] ?? ""));
      if (!drive) return graphError(404, "itemNotFound", "The resource could not be found.");
      const strip = ({ permissions: _p, ...item }: TGraphFixture["drives"][number]["items"][number]) => ({
        ...item,
        parentReference: { driveId: drive.id, driveType: drive.driveType },
      });
      if (m[2] === "root") {
        const root = drive.items.find((i) => i.root);
        return root ? { status: 200, body: strip(root) } : graphError(404, "itemNotFound", "Root not found.");
      }
      if (m[2] === "root/delta")
        return collection(req, baseUrl, drive.items.map(strip), { maxTop: 999, delta: true });
      const item = drive.items.find((i) => i.id === decodeURIComponent(m?.[3] ?? ""));
      if (!item) return graphError(404, "itemNotFound", "The resource could not be found.");
      return collection(req, baseUrl, item.permissions ?? [], { maxTop: 999 });
    }
    if (p === "/v1.0/servicePrincipals") {
      // The only filter the adapter sends (and Graph supports on appId): equality.
      const filter = q.get("$filter");
      const byAppId = filter ? /^appId eq '([^']*)'$/.exec(filter) : null;
      if (filter && !byAppId) return graphError(400, "BadRequest", `Unsupported filter: ${filter}`);
      const rows = byAppId
        ? fixture.servicePrincipals.filter((s) => s.appId === byAppId[1])
        : fixture.servicePrincipals;
      return collection(req, baseUrl, rows, { maxTop: 999 });
    }
    if ((m = /^\/v1\.0\/servicePrincipals\/([^/]+)\/appRoleAssignedTo$/.exec(p))) {
      const id = decodeURIComponent(m[1] ?? "");
      if (!fixture.servicePrincipals.some((s) => s.id === id))
        return graphError(404, "Request_ResourceNotFound", "Resource does not exist.");
      return collection(
        req,
        baseUrl,
        fixture.appRoleAssignments.filter((a) => a.resourceId === id),
        { maxTop: 999 },
      );
    }
    if ((m = /^\/v1\.0\/servicePrincipals\/([^/]+)$/.exec(p))) {
      const sp = fixture.servicePrincipals.find((s) => s.id === decodeURIComponent(m?.[1] ?? ""));
      return sp
        ? { status: 200, body: select(sp, q) }
        : graphError(404, "Request_ResourceNotFound", "Resource does not exist.");
    }
    if (p === "/v1.0/oauth2PermissionGrants")
      return collection(req, baseUrl, fixture.permissionGrants, { maxTop: 999 });
    if (p === "/v1.0/auditLogs/signIns") return signIns(req, baseUrl);
    return graphError(400, "BadRequest", `Resource not found for the segment '${p}'.`);
  }

  const server = await startFakeServer({
    faultBody: (status) =>
      status === 429
        ? { error: { code: "TooManyRequests", message: "Too many requests." } }
        : status === 403
          ? {
              error: {
                code: "Authorization_RequestDenied",
                message: "Insufficient privileges to complete the operation.",
              },
            }
          : { error: { code: "serviceNotAvailable", message: "The service is temporarily unavailable." } },
    handle: (req, baseUrl) => {
      const tokenPath = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(req.path);
      if (req.method === "POST" && tokenPath) return issueToken(decodeURIComponent(tokenPath[1] ?? ""), req);
      if (!tokens.accepts(req)) {
        return graphError(
          401,
          "InvalidAuthenticationToken",
          "Access token validation failure. Invalid audience.",
        );
      }
      return graphSettingsRoute(fixture.settings, req) ?? route(req, baseUrl);
    },
  });
  return { ...server, issuedTokens: tokens.issued };
}
