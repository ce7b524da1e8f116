// The one interface every source (demo, Google Workspace, Microsoft 365) is read through.
// Everything a scan needs, normalised; identifiers are the source's own, stable across scans.

export type TConnectorType = "google_workspace" | "microsoft_365";

export type TWorkspace = {
  /** Primary domain of the tenant, e.g. "acme.com". */
  domain: string;
  /** Every domain the tenant owns: sharing to these is internal. */
  internalDomains: string[];
};

export type TSourceUser = {
  id: string;
  email: string;
  name: string;
  isAdmin: boolean;
  mfaEnabled: boolean;
  suspended: boolean;
  /** ISO timestamp, null if never signed in. */
  lastLoginAt: string | null;
  createdAt: string;
};

export type TPermissionRole = "owner" | "organizer" | "writer" | "commenter" | "reader";

/** How much a role may do: higher can do everything lower can. */
export const PERMISSION_ROLE_RANK: Record<TPermissionRole, number> = {
  reader: 1,
  commenter: 2,
  writer: 3,
  organizer: 4,
  owner: 5,
};

/**
 * One grant on a file. `anyone` is a public link (Google "anyone with the link", Microsoft
 * anonymous sharing link); `domain` is everyone in a domain; `user`/`group` a principal.
 */
export type TPermission = {
  id: string;
  type: "user" | "group" | "domain" | "anyone";
  role: TPermissionRole;
  emailAddress?: string;
  domain?: string;
};

export type TSourceFile = {
  id: string;
  name: string;
  mimeType: string;
  ownerEmail: string;
  /** Shared drive (Google) / document library or drive (Microsoft) holding it; null for a personal drive. */
  driveId: string | null;
  permissions: TPermission[];
  modifiedAt: string;
  sizeBytes: number;
};

export type TSharedDrive = {
  id: string;
  name: string;
  members: Array<{ email: string; role: TPermissionRole }>;
  restrictions: {
    domainUsersOnly: boolean;
    driveMembersOnly: boolean;
    copyRequiresWriterPermission: boolean;
  };
  fileCount: number;
};

export type TAppGrant = {
  id: string;
  clientId: string;
  label: string;
  kind: "ai_agent" | "oauth_app" | "service_account";
  publisher: string;
  /** Verified / known publisher (Google verified app, Microsoft verified publisher). */
  isKnownPublisher: boolean;
  scopes: string[];
  userEmail: string;
  grantedAt: string;
};

export type TActivityEvent = {
  id: string;
  at: string;
  actorEmail: string;
  type: "share_external" | "file_access" | "login" | "oauth_grant" | "download";
  resourceId?: string;
  target?: string;
};

/**
 * A source, read page by page: large tenants are streamed, never held whole by the adapter.
 * Adapters throw SourceAuthError when the credentials are refused (the connector turns
 * unhealthy) and SourceUnavailableError when the source is down after its retries.
 */
export type TSourceAdapter = {
  workspace: () => Promise<TWorkspace>;
  users: () => AsyncIterable<TSourceUser>;
  files: () => AsyncIterable<TSourceFile>;
  sharedDrives: () => AsyncIterable<TSharedDrive>;
  appGrants: () => AsyncIterable<TAppGrant>;
  activity: (since: Date) => AsyncIterable<TActivityEvent>;
};

export class SourceAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SourceAuthError";
  }
}

export class SourceUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SourceUnavailableError";
  }
}
