import { randomBytes } from "node:crypto";
import { GOOGLE_ACCESS } from "@posture/connectors/wire";
import {
  type TGActivity,
  type TGDomain,
  type TGDriveFile,
  type TGDrivePermission,
  type TGLabel,
  type TGLicenseAssignment,
  type TGSharedDrive,
  type TGToken,
  type TGUser,
} from "@posture/connectors/wire";
import {
  pageAt,
  pageSize,
  startFakeServer,
  type TFakeRequest,
  type TFakeResponse,
  type TFakeServer,
} from "./fake-server";
import { googleSettingsRoute, type TGoogleSettingsFixture } from "./fake-google-settings";
import { createFakeChanges, type TFakeChangesOptions, type TFakeGoogleTenant } from "./fake-google-changes";

export type { TFakeChangesOptions, TFakeGoogleTenant } from "./fake-google-changes";
export type { TFakeGroup } from "./fake-google-directory";
import { createFakeDirectory, type TFakeGroup } from "./fake-google-directory";
import { createFakeDrive, grpcError, type TCaller } from "./fake-google-drive";
import { createFakeDriveWrites, WRITE_METHODS, type TWriteMethodId } from "./fake-google-drive-write";
import { GLOBAL_PARAMETERS, METHODS, type TMethodId, type TMethodSpec } from "./fake-google-schema";
import { checkJwtBearerGrant, type TFakeServiceAccount } from "./fake-google-token";

// A fake of Google's token endpoint, Drive API v3, Drive Labels API v2, Admin SDK Directory API and
// Reports API, written from their reference docs: same paths, query parameters, response shapes and
// paging, and as strict: unknown parameters and `fields` are refused, every token carries a subject
// (the impersonated user) and scopes, each method wants one of its scopes, the Directory and Reports
// answer only administrators, and Drive shows each user only what they may see.

export type TGoogleFixture = {
  domains: TGDomain[];
  users: TGUser[];
  /** A file with `driveId` lives in that shared drive; `trashed` ones are hidden by `q=trashed = false`. */
  files: Array<TGDriveFile & { permissions: TGDrivePermission[]; trashed?: boolean }>;
  drives: Array<TGSharedDrive & { permissions: TGDrivePermission[] }>;
  /** OAuth tokens by user id. */
  tokens: Record<string, TGToken[]>;
  /** Reports activities by application name (drive, token, login). */
  activities: Record<string, TGActivity[]>;
  /** The tenant's Drive labels (Drive Labels API); files carry applied ones in `labelInfo`. */
  labels?: TGLabel[];
  /** Users whose Drive service is turned off: Drive answers them 403 `domainPolicy`. */
  driveDisabled?: string[];
  /** Tenant settings (Cloud Identity policies); absent: those resources are not served. */
  settings?: TGoogleSettingsFixture;
  /** Enterprise License Manager's assignments (licensing v1), every product. */
  licenseAssignments?: TGLicenseAssignment[];
  /** The customer id the licensing API accepts (the users' `customerId`). */
  customerId?: string;
  /** The Directory's groups and their direct members (groups.list, members.list). */
  groups?: TFakeGroup[];
};

export type TFakeGoogle = TFakeServer & {
  tokenUrl: string;
  /** Access tokens the fake has issued through the JWT bearer grant. */
  issuedTokens: string[];
  /** Each issued token's subject and scopes, in order. */
  grants: Array<{ subject: string; scopes: string[] }>;
  /** Changes the tenant as its users would; each file change lands in Drive's change feeds. */
  tenant: TFakeGoogleTenant;
  /** Every change a write request made (Drive permissions, Directory tokens), in order. */
  writes: Array<{ method: string; path: string; status: number }>;
  /**
   * Fails the next write requests (not reads) with Google's answer for `status`: 429
   * `rateLimitExceeded`, 403 `userRateLimitExceeded`, 500 `backendError`, 503 `backendError`
   * (or `reason`). `afterApply`: the change is made, then its answer lost to the fault.
   */
  failWrites: (fault: TWriteFault) => void;
  /**
   * Every access token issued so far stops working now, as if its hour had passed (or an admin had
   * revoked it): Google then answers 401 `authError` until the client exchanges a new assertion.
   */
  expireTokens: () => void;
  /** Every endpoint of this fake, for an adapter's `endpoints`. */
  endpoints: {
    driveBaseUrl: string;
    adminBaseUrl: string;
    cloudIdentityBaseUrl: string;
    drivelabelsBaseUrl: string;
    licensingBaseUrl: string;
    tokenUrl: string;
    tokenInfoUrl: string;
  };
};

export type TWriteFault = {
  status: 429 | 403 | 500 | 503;
  count?: number;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
  reason?: string;
  afterApply?: boolean;
};

/** Every scope the connector needs: what a correctly set-up domain-wide delegation lists. */
export const ALL_CONNECTOR_SCOPES: readonly string[] = [...new Set(GOOGLE_ACCESS.map((r) => r.permission))];

const googleError = (status: number, message: string, reason = "error", location?: string) => ({
  status,
  body: {
    error: {
      code: status,
      message,
      errors: [
        {
          message,
          domain: "global",
          reason,
          ...(location ? { location, locationType: "parameter" } : {}),
        },
      ],
      status: statusName(status),
    },
  },
});

const INSUFFICIENT_SCOPES = (service: string, method: string): TFakeResponse => ({
  status: 403,
  body: {
    error: {
      code: 403,
      message: "Request had insufficient authentication scopes.",
      errors: [{ message: "Insufficient Permission", domain: "global", reason: "insufficientPermissions" }],
      status: "PERMISSION_DENIED",
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
          domain: "googleapis.com",
          metadata: { service, method },
        },
      ],
    },
  },
});

function statusName(status: number): string {
  const names: Record<number, string> = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    503: "UNAVAILABLE",
  };
  return names[status] ?? "INTERNAL";
}

export async function startFakeGoogle(opts: {
  fixture: TGoogleFixture;
  /** A pre-shared access token accepted as-is (the `{ accessToken }` credential). */
  accessToken?: string;
  /** Whose token the pre-shared one is (the first admin by default) and its scopes (all by default). */
  accessTokenSubject?: string;
  accessTokenScopes?: readonly string[];
  serviceAccounts?: TFakeServiceAccount[];
  /** The scopes of the service account's domain-wide delegation; every connector scope by default. */
  authorizedScopes?: readonly string[];
  /** Users the token endpoint refuses to impersonate though the Directory lists them (deleted since). */
  refuseImpersonation?: string[];
  /** Upper bound on items per page, below the APIs' own maxima, to force paging. */
  pageSize?: number;
  tokenTtlSec?: number;
  /** The fake's clock (ms): an issued token expires `tokenTtlSec` after it; the real clock when absent. */
  now?: () => number;
  /** Drive's change log: how an expired page token is answered, and how many changes are kept. */
  changes?: TFakeChangesOptions;
}): Promise<TFakeGoogle> {
  const { fixture } = opts;
  const fakeMax = opts.pageSize ?? 1000;
  const authorizedScopes = opts.authorizedScopes ?? ALL_CONNECTOR_SCOPES;
  const userOf = (email: string) => fixture.users.find((u) => (u.primaryEmail ?? "").toLowerCase() === email);
  const firstAdmin = fixture.users.find((u) => u.isAdmin)?.primaryEmail ?? "";
  const now = opts.now ?? Date.now;
  /** `expiresAt`: absent for the pre-shared token, whose lifetime is not the fake's to know. */
  const tokens = new Map<string, { subject: string; scopes: string[]; expiresAt?: number }>();
  if (opts.accessToken) {
    tokens.set(opts.accessToken, {
      subject: (opts.accessTokenSubject ?? firstAdmin).toLowerCase(),
      scopes: [...(opts.accessTokenScopes ?? authorizedScopes)],
    });
  }
  const issuedTokens: string[] = [];
  const grants: TFakeGoogle["grants"] = [];

  /** Drive, Directory and Reports page alike: `pageToken` in, `nextPageToken` out; a bad token is a 400. */
  function listPage<T>(
    items: T[],
    q: URLSearchParams,
    size: { param: string; apiDefault: number; apiMax: number },
    invalidMessage: string,
  ): { page: T[]; more: { nextPageToken?: string } } | { refused: TFakeResponse } {
    const at = pageAt(
      items,
      q.get("pageToken"),
      pageSize(q.get(size.param), size.apiDefault, size.apiMax, fakeMax),
    );
    if (at === "invalid") return { refused: googleError(400, invalidMessage, "invalid") };
    return { page: at.page, more: at.nextToken === undefined ? {} : { nextPageToken: at.nextToken } };
  }

  /** licenseAssignments.listForProduct: customerId required (a suspended or unknown customer: 400/404). */
  function listLicences(productId: string, q: URLSearchParams): TFakeResponse {
    const customer = q.get("customerId");
    if (!customer) return googleError(400, "Required parameter: customerId", "required", "customerId");
    if (customer !== (fixture.customerId ?? "C0abc"))
      return googleError(404, "Resource Not Found: customerId", "notFound");
    const items = (fixture.licenseAssignments ?? []).filter((l) => l.productId === productId);
    const listed = listPage(
      items,
      q,
      { param: "maxResults", apiDefault: 100, apiMax: 1000 },
      "Invalid Page Token",
    );
    if ("refused" in listed) return listed.refused;
    return {
      status: 200,
      body: {
        kind: "licensing#licenseAssignmentList",
        items: listed.page.map((l) => ({ kind: "licensing#licenseAssignment", ...l })),
        ...listed.more,
      },
    };
  }

  const drive = createFakeDrive(fixture, listPage, googleError);
  const directory = createFakeDirectory(fixture, listPage, googleError);
  const changes = createFakeChanges(fixture, drive, googleError, { ...opts.changes, fakeMax });
  const driveWrites = createFakeDriveWrites(fixture, drive, changes.tenant, googleError);
  const writes: TFakeGoogle["writes"] = [];
  const writeFaults: Array<TWriteFault & { count: number }> = [];

  function issueToken(req: TFakeRequest, tokenUrl: string): TFakeResponse {
    const grant = checkJwtBearerGrant(req.body, {
      tokenUrl,
      serviceAccounts: opts.serviceAccounts ?? [],
      authorizedScopes,
      // Domain-wide delegation impersonates any active user of the tenant, and no one else.
      refuseSubject: (subject) => {
        const user = userOf(subject);
        return !user || user.suspended || opts.refuseImpersonation?.includes(subject)
          ? "Invalid email or User ID"
          : null;
      },
    });
    if ("refused" in grant) return grant.refused;
    const token = `ya29.${randomBytes(16).toString("hex")}`;
    tokens.set(token, { ...grant, expiresAt: now() + (opts.tokenTtlSec ?? 3599) * 1000 });
    issuedTokens.push(token);
    grants.push(grant);
    return {
      status: 200,
      body: { access_token: token, expires_in: opts.tokenTtlSec ?? 3599, token_type: "Bearer" },
    };
  }

  function tokenInfo(q: URLSearchParams): TFakeResponse {
    const held = tokens.get(q.get("access_token") ?? "");
    if (!held) return { status: 400, body: { error: "invalid_token", error_description: "Invalid Value" } };
    return {
      status: 200,
      body: {
        scope: held.scopes.join(" "),
        email: held.subject,
        expires_in: String(opts.tokenTtlSec ?? 3599),
      },
    };
  }

  /** Unknown query parameters and a token without one of the method's scopes are refused first. */
  function precheck(
    method: TMethodId | TWriteMethodId,
    q: URLSearchParams,
    scopes: readonly string[],
    pathParameters: string[] = [],
  ): TFakeResponse | null {
    const spec: TMethodSpec =
      method in METHODS ? METHODS[method as TMethodId] : WRITE_METHODS[method as TWriteMethodId];
    const known = new Set<string>([...GLOBAL_PARAMETERS, ...spec.parameters]);
    for (const name of q.keys()) {
      if (!known.has(name) || pathParameters.includes(name)) {
        const message =
          `Invalid JSON payload received. Unknown name "${name}": Cannot bind query parameter. ` +
          `Field '${name}' could not be found in request message.`;
        return method.startsWith("drivelabels")
          ? grpcError(400, "INVALID_ARGUMENT", message)
          : googleError(400, message, "badRequest", name);
      }
    }
    if (!scopes.some((s) => (spec.scopes as readonly string[]).includes(s))) {
      const service = method.split(".")[0] ?? "";
      return INSUFFICIENT_SCOPES(
        `${service === "drivelabels" ? "drivelabels" : service}.googleapis.com`,
        method,
      );
    }
    return null;
  }

  const notAdmin = () => googleError(403, "Not Authorized to access this resource/api", "forbidden");

  function route(req: TFakeRequest, held: { subject: string; scopes: string[] }): TFakeResponse {
    const q = req.query;
    const caller: TCaller = { subject: held.subject, isAdmin: userOf(held.subject)?.isAdmin === true };
    const driveOff = fixture.driveDisabled?.some((e) => e.toLowerCase() === caller.subject);
    const driveApi = (
      method: TMethodId | TWriteMethodId,
      pathParameters: string[],
      answer: () => TFakeResponse,
    ) =>
      precheck(method, q, held.scopes, pathParameters) ??
      (driveOff
        ? googleError(403, "The domain administrators have disabled Drive apps.", "domainPolicy")
        : answer());
    const adminApi = (
      method: TMethodId | TWriteMethodId,
      pathParameters: string[],
      answer: () => TFakeResponse,
    ) => precheck(method, q, held.scopes, pathParameters) ?? (caller.isAdmin ? answer() : notAdmin());
    let match: RegExpExecArray | null;
    const write = writeRoute(req, driveApi, adminApi, caller);
    if (write) return write;
    if (req.path === "/drive/v3/files")
      return driveApi("drive.files.list", [], () => drive.listFiles(q, caller));
    if ((match = /^\/drive\/v3\/files\/([^/]+)\/permissions$/.exec(req.path))) {
      const fileId = decodeURIComponent(match[1] ?? "");
      return driveApi("drive.permissions.list", ["fileId"], () => drive.listPermissions(fileId, q, caller));
    }
    if (req.path === "/drive/v3/changes/startPageToken")
      return driveApi("drive.changes.getStartPageToken", [], () => changes.getStartPageToken(q, caller));
    if (req.path === "/drive/v3/changes")
      return driveApi("drive.changes.list", [], () => changes.list(q, caller));
    if (req.path === "/drive/v3/drives")
      return driveApi("drive.drives.list", [], () => drive.listDrives(q, caller));
    if (req.path === "/v2/labels")
      return precheck("drivelabels.labels.list", q, held.scopes) ?? labels(q, held.scopes, caller);
    if (req.path === "/admin/directory/v1/users")
      return adminApi("directory.users.list", [], () => directory.listUsers(q));
    if (req.path === "/admin/directory/v1/groups")
      return adminApi("directory.groups.list", [], () => directory.listGroups(q));
    if ((match = /^\/admin\/directory\/v1\/groups\/([^/]+)\/members$/.exec(req.path))) {
      const groupKey = decodeURIComponent(match[1] ?? "");
      return adminApi("directory.members.list", ["groupKey"], () => directory.listMembers(groupKey, q));
    }
    if ((match = /^\/apps\/licensing\/v1\/product\/([^/]+)\/users$/.exec(req.path))) {
      const productId = decodeURIComponent(match[1] ?? "");
      return adminApi("licensing.licenseAssignments.listForProduct", ["productId"], () =>
        listLicences(productId, q),
      );
    }
    if ((match = /^\/admin\/directory\/v1\/users\/([^/]+)\/tokens$/.exec(req.path))) {
      const userKey = decodeURIComponent(match[1] ?? "");
      return adminApi("directory.tokens.list", ["userKey"], () => directory.listTokens(userKey, q));
    }
    if (req.path === "/admin/directory/v1/customer/my_customer/domains") {
      return adminApi("directory.domains.list", ["customer"], () => directory.listDomains(q));
    }
    if ((match = /^\/admin\/reports\/v1\/activity\/users\/all\/applications\/([^/]+)$/.exec(req.path))) {
      const app = match[1] ?? "";
      return adminApi("reports.activities.list", ["userKey", "applicationName"], () =>
        directory.listActivities(app, q),
      );
    }
    return (
      googleSettingsRoute(fixture.settings, req) ?? googleError(404, `Not Found: ${req.path}`, "notFound")
    );
  }

  type TApi = (
    method: TWriteMethodId,
    pathParameters: string[],
    answer: () => TFakeResponse,
  ) => TFakeResponse;

  /** Drive permissions.get/create/update/delete, files.get, Directory tokens.get/delete; null for other requests. */
  function writeRoute(
    req: TFakeRequest,
    driveApi: TApi,
    adminApi: TApi,
    caller: TCaller,
  ): TFakeResponse | null {
    const { query: q, method } = req;
    const decode = (value: string | undefined) => decodeURIComponent(value ?? "");
    let answer: (() => TFakeResponse) | null = null;
    let match: RegExpExecArray | null;
    if ((match = /^\/drive\/v3\/files\/([^/]+)\/permissions\/([^/]+)$/.exec(req.path))) {
      const [fileId, permissionId] = [decode(match[1]), decode(match[2])];
      const params = ["fileId", "permissionId"];
      if (method === "GET")
        return driveApi("drive.permissions.get", params, () =>
          driveWrites.getPermission(fileId, permissionId, q, caller),
        );
      if (method === "DELETE")
        answer = () =>
          driveApi("drive.permissions.delete", params, () =>
            driveWrites.deletePermission(fileId, permissionId, q, caller),
          );
      if (method === "PATCH")
        answer = () =>
          driveApi("drive.permissions.update", params, () =>
            driveWrites.updatePermission(fileId, permissionId, q, req.json, caller),
          );
    } else if ((match = /^\/drive\/v3\/files\/([^/]+)\/permissions$/.exec(req.path)) && method === "POST") {
      const fileId = decode(match[1]);
      answer = () =>
        driveApi("drive.permissions.create", ["fileId"], () =>
          driveWrites.createPermission(fileId, q, req.json, caller),
        );
    } else if ((match = /^\/drive\/v3\/files\/([^/]+)$/.exec(req.path)) && method === "GET") {
      const fileId = decode(match[1]);
      return driveApi("drive.files.get", ["fileId"], () => driveWrites.getFile(fileId, q, caller));
    } else if ((match = /^\/admin\/directory\/v1\/users\/([^/]+)\/tokens\/([^/]+)$/.exec(req.path))) {
      const [userKey, clientId] = [decode(match[1]), decode(match[2])];
      const params = ["userKey", "clientId"];
      if (method === "GET")
        return adminApi("directory.tokens.get", params, () => directory.getToken(userKey, clientId));
      if (method === "DELETE")
        answer = () =>
          adminApi("directory.tokens.delete", params, () => directory.deleteToken(userKey, clientId));
    }
    if (!answer) return null;
    const fault = writeFaults.find((f) => f.count > 0);
    if (fault) fault.count--;
    if (fault && !fault.afterApply) return writeFault(fault);
    const response = answer();
    if (response.status < 300) writes.push({ method, path: req.path, status: response.status });
    return fault ? writeFault(fault) : response;
  }

  function writeFault(fault: TWriteFault): TFakeResponse {
    const defaults: Record<number, [string, string]> = {
      429: ["Rate Limit Exceeded", "rateLimitExceeded"],
      403: ["User Rate Limit Exceeded", "userRateLimitExceeded"],
      500: ["Internal Error", "backendError"],
      503: ["Service Unavailable", "backendError"],
    };
    const [message, reason] = defaults[fault.status] ?? ["Backend Error", "backendError"];
    return {
      ...googleError(fault.status, message, fault.reason ?? reason),
      ...(fault.retryAfter === undefined ? {} : { headers: { "retry-after": String(fault.retryAfter) } }),
    };
  }

  /** All of the customer's labels need the label-admin scope as well as an administrator. */
  function labels(q: URLSearchParams, scopes: string[], caller: TCaller): TFakeResponse {
    const adminScopes = METHODS["drivelabels.labels.list"].scopes.filter((s) => s.includes(".admin."));
    if (q.get("useAdminAccess") === "true" && !scopes.some((s) => (adminScopes as string[]).includes(s)))
      return INSUFFICIENT_SCOPES("drivelabels.googleapis.com", "drivelabels.labels.list");
    return drive.listLabels(q, caller);
  }

  const server = await startFakeServer({
    faultBody: (status) => googleError(status, status === 429 ? "Rate Limit Exceeded" : "Backend Error").body,
    handle: (req, baseUrl) => {
      if (req.method === "POST" && req.path === "/token") return issueToken(req, `${baseUrl}/token`);
      if (req.method === "GET" && req.path === "/tokeninfo") return tokenInfo(req.query);
      const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1];
      const held = bearer ? tokens.get(bearer) : undefined;
      // An expired access token gets the same 401 as an unknown one (Google says no more).
      if (!held || (held.expiresAt !== undefined && now() >= held.expiresAt)) {
        return googleError(
          401,
          "Request had invalid authentication credentials. Expected OAuth 2 access token.",
          "authError",
        );
      }
      return route(req, held);
    },
  });
  const tokenUrl = `${server.url}/token`;
  return {
    ...server,
    tokenUrl,
    issuedTokens,
    grants,
    tenant: changes.tenant,
    writes,
    failWrites: (fault) => void writeFaults.push({ ...fault, count: fault.count ?? 1 }),
    expireTokens: () => {
      for (const held of tokens.values()) if (held.expiresAt !== undefined) held.expiresAt = now();
    },
    endpoints: {
      driveBaseUrl: server.url,
      adminBaseUrl: server.url,
      cloudIdentityBaseUrl: server.url,
      drivelabelsBaseUrl: server.url,
      licensingBaseUrl: server.url,
      tokenUrl,
      tokenInfoUrl: `${server.url}/tokeninfo`,
    },
  };
}
