import {
  type TGActivity,
  type TGDomain,
  type TGDriveFile,
  type TGDrivePermission,
  type TGSharedDrive,
  type TGToken,
  type TGUser,
} from "../google/api-types";
import {
  createTokenBook,
  pageAt,
  pageSize,
  startFakeServer,
  type TFakeRequest,
  type TFakeResponse,
  type TFakeServer,
} from "./fake-server";
import { googleSettingsRoute, type TGoogleSettingsFixture } from "./fake-google-settings";
import { checkJwtBearerGrant, type TFakeServiceAccount } from "./fake-google-token";

// A fake of Google's token endpoint, Drive API v3, Admin SDK Directory API and Reports API, written
// from their reference docs: same paths, query parameters, response shapes and paging.

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
  /** Tenant settings (Cloud Identity policies); absent: those resources are not served. */
  settings?: TGoogleSettingsFixture;
};

export type TFakeGoogle = TFakeServer & {
  tokenUrl: string;
  /** Access tokens the fake has issued through the JWT bearer grant. */
  issuedTokens: string[];
};

const googleError = (status: number, message: string, reason = "error") => ({
  status,
  body: {
    error: {
      code: status,
      message,
      errors: [{ message, domain: "global", reason }],
      status: statusName(status),
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
  serviceAccounts?: TFakeServiceAccount[];
  /** Upper bound on items per page, below the APIs' own maxima, to force paging. */
  pageSize?: number;
  tokenTtlSec?: number;
}): Promise<TFakeGoogle> {
  const { fixture } = opts;
  const fakeMax = opts.pageSize ?? 1000;
  const tokens = createTokenBook("ya29.", opts.accessToken);

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

  function issueToken(req: TFakeRequest, tokenUrl: string): TFakeResponse {
    const refused = checkJwtBearerGrant(req.body, {
      tokenUrl,
      serviceAccounts: opts.serviceAccounts ?? [],
      // Domain-wide delegation is granted for reading as an admin; the fake accepts only admins.
      mayImpersonate: (email) => fixture.users.some((u) => u.primaryEmail === email && u.isAdmin),
    });
    if (refused) return refused;
    return {
      status: 200,
      body: { access_token: tokens.issue(), expires_in: opts.tokenTtlSec ?? 3599, token_type: "Bearer" },
    };
  }

  function listFiles(q: URLSearchParams): TFakeResponse {
    const corpora = q.get("corpora") ?? "user";
    const allDrives = q.get("includeItemsFromAllDrives") === "true";
    if (
      (corpora === "allDrives" || corpora === "drive") &&
      (!allDrives || q.get("supportsAllDrives") !== "true")
    ) {
      return googleError(
        400,
        "includeItemsFromAllDrives and supportsAllDrives must be set for this corpora.",
        "invalid",
      );
    }
    if (corpora === "drive" && !q.get("driveId"))
      return googleError(400, "driveId is required for corpora=drive.", "required");
    let files = fixture.files;
    if (corpora === "drive") files = files.filter((f) => f.driveId === q.get("driveId"));
    else if (corpora === "user") files = files.filter((f) => !f.driveId);
    if (/trashed\s*=\s*false/.test(q.get("q") ?? "")) files = files.filter((f) => !f.trashed);
    const listed = listPage(files, q, { param: "pageSize", apiDefault: 100, apiMax: 1000 }, "Invalid Value");
    if ("refused" in listed) return listed.refused;
    const fields = q.get("fields") ?? "";
    const wantPermissions = /permissions\(/.test(fields);
    return {
      status: 200,
      body: {
        kind: "drive#fileList",
        ...listed.more,
        files: listed.page.map(({ permissions, trashed: _trashed, ...file }) => ({
          ...file,
          // Drive leaves `permissions` out of files.list for items in shared drives.
          ...(wantPermissions && !file.driveId ? { permissions } : {}),
        })),
      },
    };
  }

  function listPermissions(fileId: string, q: URLSearchParams): TFakeResponse {
    const file = fixture.files.find((f) => f.id === fileId);
    const drive = fixture.drives.find((d) => d.id === fileId);
    const inSharedDrive = Boolean(file?.driveId) || Boolean(drive);
    if ((!file && !drive) || (inSharedDrive && q.get("supportsAllDrives") !== "true")) {
      return googleError(404, `File not found: ${fileId}.`, "notFound");
    }
    if (drive && q.get("useDomainAdminAccess") !== "true")
      return googleError(404, `Shared drive not found: ${fileId}`, "notFound");
    const permissions = file?.permissions ?? drive?.permissions ?? [];
    const listed = listPage(
      permissions,
      q,
      { param: "pageSize", apiDefault: 100, apiMax: 100 },
      "Invalid Value",
    );
    if ("refused" in listed) return listed.refused;
    return {
      status: 200,
      body: { kind: "drive#permissionList", ...listed.more, permissions: listed.page },
    };
  }

  function listDrives(q: URLSearchParams): TFakeResponse {
    // Without domain admin access only drives the caller is a member of are listed; the fake's caller is in none.
    const drives = q.get("useDomainAdminAccess") === "true" ? fixture.drives : [];
    const listed = listPage(drives, q, { param: "pageSize", apiDefault: 10, apiMax: 100 }, "Invalid Value");
    if ("refused" in listed) return listed.refused;
    return {
      status: 200,
      body: {
        kind: "drive#driveList",
        ...listed.more,
        drives: listed.page.map(({ permissions: _p, ...d }) => ({ kind: "drive#drive", ...d })),
      },
    };
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
    return {
      status: 200,
      body: { kind: "admin#directory#users", users: listed.page, ...listed.more },
    };
  }

  function listTokens(userKey: string): TFakeResponse {
    const user = fixture.users.find((u) => u.id === userKey || u.primaryEmail === userKey);
    if (!user?.id) return googleError(404, "Resource Not Found: userKey", "notFound");
    const items = (fixture.tokens[user.id] ?? []).map((t) => ({
      kind: "admin#directory#token",
      userKey: user.id,
      ...t,
    }));
    return { status: 200, body: { kind: "admin#directory#tokenList", items } };
  }

  function listActivities(app: string, q: URLSearchParams): TFakeResponse {
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
    return {
      status: 200,
      body: { kind: "admin#reports#activities", items: listed.page, ...listed.more },
    };
  }

  const server = await startFakeServer({
    faultBody: (status) => googleError(status, status === 429 ? "Rate Limit Exceeded" : "Backend Error").body,
    handle: (req, baseUrl) => {
      if (req.method === "POST" && req.path === "/token") return issueToken(req, `${baseUrl}/token`);
      if (!tokens.accepts(req)) {
        return googleError(
          401,
          "Request had invalid authentication credentials. Expected OAuth 2 access token.",
          "authError",
        );
      }
      const q = req.query;
      let match: RegExpExecArray | null;
      if (req.path === "/drive/v3/files") return listFiles(q);
      if ((match = /^\/drive\/v3\/files\/([^/]+)\/permissions$/.exec(req.path))) {
        return listPermissions(decodeURIComponent(match[1] ?? ""), q);
      }
      if (req.path === "/drive/v3/drives") return listDrives(q);
      if (req.path === "/admin/directory/v1/users") return listUsers(q);
      if ((match = /^\/admin\/directory\/v1\/users\/([^/]+)\/tokens$/.exec(req.path))) {
        return listTokens(decodeURIComponent(match[1] ?? ""));
      }
      if (req.path === "/admin/directory/v1/customer/my_customer/domains") {
        return { status: 200, body: { kind: "admin#directory#domainsList", domains: fixture.domains } };
      }
      if ((match = /^\/admin\/reports\/v1\/activity\/users\/all\/applications\/([^/]+)$/.exec(req.path))) {
        return listActivities(match[1] ?? "", q);
      }
      return (
        googleSettingsRoute(fixture.settings, req) ?? googleError(404, `Not Found: ${req.path}`, "notFound")
      );
    },
  });
  return { ...server, tokenUrl: `${server.url}/token`, issuedTokens: tokens.issued };
}
