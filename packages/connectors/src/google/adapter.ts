import { createJsonClient, type THttpOptions, type TJsonClient } from "../http/client";
import { pagesByToken } from "../http/paginate";
import { workspaceOf } from "../shared/normalise";
import { once } from "../shared/once";
import {
  SourceAuthError,
  SourceUnavailableError,
  type TActivityEvent,
  type TAppGrant,
  type TCoverageGap,
  type TSourceAdapter,
  type TSourceUser,
  type TWorkspace,
} from "../types";
import {
  type TGActivityList,
  type TGDomainList,
  type TGDrivePermission,
  type TGDriveList,
  type TGFileList,
  type TGPermissionList,
  type TGTokenList,
  type TGUserList,
} from "./api-types";
import { GOOGLE_TOKEN_URL, googleTokenProvider, type TGoogleCredentials } from "./auth";
import { mapActivity, mapFile, mapSharedDrive, mapToken, mapUser } from "./map";
import { GOOGLE_ACCESS } from "./access";
import { readGoogleSettings } from "./settings";

const SOURCE = "Google Workspace";

/** Where the APIs live; only tests (and the lead's fakes) override these, never user input. */
export type TGoogleEndpoints = {
  driveBaseUrl?: string;
  adminBaseUrl?: string;
  cloudIdentityBaseUrl?: string;
  tokenUrl?: string;
};

export type TGoogleConfig = {
  /** Primary domain; when absent it is read from the Directory domains API. */
  domain?: string;
  internalDomains?: string[];
};

const FILE_FIELDS =
  "nextPageToken,files(id,name,mimeType,driveId,owners(emailAddress),modifiedTime,size," +
  "permissions(id,type,role,emailAddress,domain,deleted))";
const PERMISSION_FIELDS = "nextPageToken,permissions(id,type,role,emailAddress,domain,deleted)";
const ALL_DRIVES = { supportsAllDrives: true, includeItemsFromAllDrives: true } as const;

export function createGoogleWorkspaceAdapter(opts: {
  credentials: TGoogleCredentials;
  config?: TGoogleConfig;
  endpoints?: TGoogleEndpoints;
  http?: THttpOptions;
}): TSourceAdapter {
  const config = opts.config ?? {};
  const tokens = googleTokenProvider(opts.credentials, {
    tokenUrl: opts.endpoints?.tokenUrl ?? GOOGLE_TOKEN_URL,
    http: opts.http,
  });
  // Drive and the Admin SDK live on different hosts but share the token and transport.
  const client = (baseUrl: string) => createJsonClient({ source: SOURCE, baseUrl, tokens, http: opts.http });
  const drive = client(opts.endpoints?.driveBaseUrl ?? "https://www.googleapis.com");
  const admin = client(opts.endpoints?.adminBaseUrl ?? "https://admin.googleapis.com");
  const cloudIdentity = client(
    opts.endpoints?.cloudIdentityBaseUrl ?? "https://cloudidentity.googleapis.com",
  );
  const gaps: TCoverageGap[] = [];

  const workspace = once(() => readWorkspace(admin, config));

  async function* users(): AsyncGenerator<TSourceUser> {
    const query = { customer: "my_customer", maxResults: 500, projection: "basic", orderBy: "email" };
    for await (const page of pagesByToken<TGUserList>(admin, "/admin/directory/v1/users", query)) {
      for (const user of page.users ?? []) yield mapUser(user);
    }
  }

  async function* listPermissions(fileId: string, asAdmin: boolean): AsyncGenerator<TGDrivePermission> {
    const path = `/drive/v3/files/${encodeURIComponent(fileId)}/permissions`;
    const query = {
      supportsAllDrives: true,
      useDomainAdminAccess: asAdmin || undefined,
      pageSize: 100,
      fields: PERMISSION_FIELDS,
    };
    for await (const page of pagesByToken<TGPermissionList>(drive, path, query))
      yield* page.permissions ?? [];
  }

  async function filePermissions(fileId: string): Promise<TGDrivePermission[]> {
    const permissions: TGDrivePermission[] = [];
    try {
      for await (const permission of listPermissions(fileId, false)) permissions.push(permission);
    } catch (error) {
      // One file the subject may see but not share (insufficientFilePermissions) must not sink the scan;
      // a token that is really refused fails the next files.list page anyway.
      if (!(error instanceof SourceAuthError)) throw error;
    }
    return permissions;
  }

  async function countDriveFiles(driveId: string): Promise<number> {
    let count = 0;
    const query = {
      ...ALL_DRIVES,
      corpora: "drive",
      driveId,
      pageSize: 1000,
      q: "trashed = false",
      fields: "nextPageToken,files(id)",
    };
    for await (const page of pagesByToken<TGFileList>(drive, "/drive/v3/files", query))
      count += page.files?.length ?? 0;
    return count;
  }

  // Directory tokens carry no date; the Reports "authorize" event does, for the last 180 days.
  async function grantDates(): Promise<Map<string, string>> {
    const dates = new Map<string, string>();
    const path = "/admin/reports/v1/activity/users/all/applications/token";
    for await (const page of pagesByToken<TGActivityList>(admin, path, {
      eventName: "authorize",
      maxResults: 1000,
    })) {
      for (const activity of page.items ?? []) {
        const at = activity.id?.time;
        const email = activity.actor?.email?.toLowerCase();
        for (const event of activity.events ?? []) {
          const clientId = event.parameters?.find((p) => p.name === "client_id")?.value;
          const key = `${email}|${clientId}`;
          if (at && email && clientId && (dates.get(key) ?? "") < at) dates.set(key, at);
        }
      }
    }
    return dates;
  }

  return {
    workspace,
    users,

    async *files() {
      const query = {
        ...ALL_DRIVES,
        corpora: "allDrives",
        pageSize: 1000,
        q: "trashed = false",
        fields: FILE_FIELDS,
      };
      for await (const page of pagesByToken<TGFileList>(drive, "/drive/v3/files", query)) {
        for (const file of page.files ?? []) {
          // files.list leaves `permissions` out for shared-drive items; permissions.list has them.
          let permissions = file.permissions;
          if (!permissions && file.id) permissions = await filePermissions(file.id);
          yield mapFile(file, permissions ?? []);
        }
      }
    },

    async *sharedDrives() {
      const query = {
        useDomainAdminAccess: true,
        pageSize: 100,
        fields: "nextPageToken,drives(id,name,restrictions)",
      };
      for await (const page of pagesByToken<TGDriveList>(drive, "/drive/v3/drives", query)) {
        for (const sharedDrive of page.drives ?? []) {
          if (!sharedDrive.id) continue;
          const members: TGDrivePermission[] = [];
          for await (const permission of listPermissions(sharedDrive.id, true)) members.push(permission);
          yield mapSharedDrive(sharedDrive, members, await countDriveFiles(sharedDrive.id));
        }
      }
    },

    async *appGrants(): AsyncGenerator<TAppGrant> {
      const dates = await grantDates();
      for await (const user of users()) {
        const path = `/admin/directory/v1/users/${encodeURIComponent(user.id)}/tokens`;
        const list = await admin.get<TGTokenList>(path);
        for (const token of list.items ?? []) {
          // Without an authorize event in the retention window, the user's creation is the earliest it can be.
          const grantedAt = dates.get(`${user.email}|${token.clientId}`) ?? user.createdAt;
          yield mapToken(token, user, grantedAt);
        }
      }
    },

    async *activity(since: Date): AsyncGenerator<TActivityEvent> {
      const { internalDomains } = await workspace();
      const sources = [
        { app: "drive", eventName: undefined },
        { app: "token", eventName: "authorize" },
        { app: "login", eventName: "login_success" },
      ];
      for (const { app, eventName } of sources) {
        const path = `/admin/reports/v1/activity/users/all/applications/${app}`;
        const query = { startTime: since.toISOString(), eventName, maxResults: 1000 };
        for await (const page of pagesByToken<TGActivityList>(admin, path, query)) {
          for (const activity of page.items ?? []) yield* mapActivity(activity, internalDomains);
        }
      }
    },

    tenantSettings: () => readGoogleSettings({ admin, cloudIdentity }),
    checkAccess: async () => GOOGLE_ACCESS.map((r) => ({ ...r, granted: true })),
    coverageGaps: () => [...gaps],
  };
}

async function readWorkspace(admin: TJsonClient, config: TGoogleConfig): Promise<TWorkspace> {
  if (config.domain) return workspaceOf(config.domain, config.internalDomains ?? []);
  const list = await admin.get<TGDomainList>("/admin/directory/v1/customer/my_customer/domains");
  const domains = (list.domains ?? []).filter((d) => d.domainName && d.verified !== false);
  const primary = domains.find((d) => d.isPrimary) ?? domains[0];
  if (!primary?.domainName)
    throw new SourceUnavailableError(`${SOURCE}: the Directory lists no verified domain`);
  return workspaceOf(
    primary.domainName,
    domains.map((d) => d.domainName ?? ""),
  );
}
