// The one interface every source (demo, Google Workspace, Microsoft 365, GitHub) is read through.
// Everything a scan needs, normalised; identifiers are the source's own, stable across scans.

export type TConnectorType = "google_workspace" | "microsoft_365" | "github";

/** The two office suites: the sources of files and drives (the file demo tenant mirrors one of them). */
export type TSuiteType = Exclude<TConnectorType, "github">;

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
  /**
   * The AI assistants the user is licensed for, read from the source's licence assignments
   * (Graph `assignedLicenses` against `subscribedSkus`: Microsoft 365 Copilot; Google's licence
   * assignments / Gemini settings; GitHub's Copilot seats). Absent: the source did not say (not read, or no permission).
   */
  assistants?: TAssistantKind[];
  /**
   * Values the source could not read for this user (a permission or licence missing, see
   * `coverageGaps()`): `mfa` → `mfaEnabled` (and `isAdmin`) are not known, `lastLogin` →
   * `lastLoginAt` is not known. Absent: everything was read.
   */
  unknown?: Array<"mfa" | "lastLogin">;
};

/**
 * The AI assistants, by their licences: the suites' (Microsoft 365 Copilot, Gemini for Google
 * Workspace) and GitHub Copilot's seats (`github_copilot`: it reads the organization's
 * repositories, not the suites' files).
 */
export type TAssistantKind = "copilot" | "gemini" | "github_copilot";

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
 *
 * Internal reach (issue 30): a `domain` permission on one of the tenant's own domains reaches
 * everyone in the organization: Microsoft's organization-scope sharing links (Graph
 * `link.scope: "organization"`) and Google's `type: "domain"` permissions. Graph's Everyone /
 * Everyone-except-external-users claims are `domain` too, with `everyone` set.
 */
export type TPermission = {
  id: string;
  type: "user" | "group" | "domain" | "anyone";
  role: TPermissionRole;
  emailAddress?: string;
  domain?: string;
  /**
   * Set when the permission is a sharing link rather than a grant to a principal (Microsoft
   * sharing links; Google `anyone` and `domain` permissions, which Drive shows as links).
   * `expiresAt`: ISO timestamp, null when it never expires (Graph `expirationDateTime`, Drive
   * `expirationTime`). `discoverable`: people can find the file by search without the link
   * (Drive `allowFileDiscovery`; always false for Microsoft links).
   */
  link?: { expiresAt: string | null; discoverable: boolean };
  /**
   * A grant to everyone in the tenant through the source's built-in claim: `all` (Graph
   * "Everyone", guests included), `members` ("Everyone except external users").
   */
  everyone?: "all" | "members";
};

/**
 * A group of the directory, as reach needs it: how many people a grant to it reaches (members
 * counted transitively: Graph `transitiveMembers/$count`; Directory `members.list` expanded).
 * `memberEmails`: the members, when the source listed them (reach then counts a person in two
 * granted groups once); absent when only the count was read.
 */
export type TSourceGroup = {
  id: string;
  email: string;
  name: string;
  memberCount: number;
  memberEmails?: string[];
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
  /**
   * The source's sensitivity label, by its display name (a Google Drive label's badged choice, a
   * Microsoft Purview sensitivity label), or null when the file carries none or labels are not read.
   */
  label?: string | null;
  /**
   * Set when the resource is a source-code repository (GitHub, issue 31), not a file: what the
   * file model does not hold. Its visibility and outside collaborators are `permissions`
   * (docs/sources/github.md says how); `deployKeys` null: they could not be read.
   */
  repository?: TSourceRepository;
};

/** A repository's facts beyond its permissions (GitHub). */
export type TSourceRepository = {
  visibility: "public" | "private" | "internal";
  fork: boolean;
  archived: boolean;
  deployKeys: Array<{ id: string; title: string; readOnly: boolean }> | null;
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
  /**
   * How the app reads data (issue 30): `application` (app-only roles or domain-wide delegation:
   * every file its permission covers), `delegated` (as the granting user: what they can open).
   * Absent: delegated.
   */
  access?: "application" | "delegated";
  /**
   * Where `kind: "ai_agent"` came from: a platform registry (Graph `agentIdentity` / agent
   * blueprints, the Copilot admin catalog), the maintained catalog of agent publishers
   * (data with its sources), or absent when the app is not an agent.
   */
  agentSource?: "agent_registry" | "copilot_catalog" | "publisher_catalog";
};

export type TActivityEvent = {
  id: string;
  at: string;
  actorEmail: string;
  /** `file_delete`: a file moved to the bin or deleted (both sources' delete events). */
  type: "share_external" | "file_access" | "login" | "oauth_grant" | "download" | "file_delete";
  resourceId?: string;
  target?: string;
};

/** A tenant setting's value as read, normalised to JSON scalars (lists for multi-valued settings). */
export type TSettingValue = string | number | boolean | null | string[];

/**
 * One tenant setting (2-step verification enforcement, external sharing policy, legacy
 * authentication…), keyed by the source's setting key (`google/settings/`, `microsoft/settings/`).
 * `unavailable` says why it could not be read (a missing scope, permission or licence): the
 * checks that need it are skipped, not failed.
 */
export type TTenantSetting =
  | {
      key: string;
      value: TSettingValue;
      /** The API it was read from, e.g. `GET /v1.0/policies/authorizationPolicy`. */ source: string;
    }
  | { key: string; unavailable: string };

/**
 * One thing the connector needs to read a feature: a Google OAuth scope granted to the service
 * account's domain-wide delegation, or a Microsoft Graph / Office 365 application permission.
 */
export type TAccessRequirement = {
  feature: string;
  /** Scope or application permission, exactly as the admin console names it. */
  permission: string;
  /** A licence the feature also needs (e.g. "Entra ID P1"), when there is one. */
  licence?: string;
  /** What is lost without it. */
  impact: string;
};

/** The answer of a connect-time access check: each requirement, whether the tenant granted it. */
export type TAccessCheck = TAccessRequirement & { granted: boolean; detail?: string };

/** Something a scan could not read (a permission or licence missing) and what it skipped. */
export type TCoverageGap = { feature: string; missing: string; detail: string };

/**
 * Where a source's file change feeds stand, opaque to everything but the adapter that made it: a
 * Drive page token per user and per shared drive, a Graph `@odata.deltaLink` per drive, the
 * demo's revision. A scan stores it in the same transaction as its findings, so a scan that dies
 * leaves the previous cursor behind and the next one reads the same changes again (applying a
 * change twice is harmless; losing one is not).
 */
export type TChangeCursor = { source: string; feeds: Record<string, string> };

/**
 * One change a feed reports. `file`: the file as it is now, permissions and label included
 * (added, changed, or moved into scope). `removed`: a file gone (deleted, in the bin, or out of
 * scope). `ownerGone` / `driveGone`: a user's personal drive or a shared drive no longer read (user
 * deleted or suspended, drive deleted): each stored file of it (personal: `driveId` null and
 * owned by the user) that this read did not also report as a `file` is gone.
 */
export type TFileChange =
  | { kind: "file"; file: TSourceFile }
  | { kind: "removed"; fileId: string }
  | { kind: "ownerGone"; ownerEmail: string }
  | { kind: "driveGone"; driveId: string };

/** One read of the change feeds: the changes, streamed, then where the feeds stand after them. */
export type TChangeRead = {
  changes: AsyncIterable<TFileChange>;
  /** Valid once `changes` is exhausted: the cursor the next scan starts from. */
  cursor: () => TChangeCursor;
};

/**
 * A source's file change feeds (Google Drive `changes`, Graph drive delta, the demo's revisions).
 * Users, shared drives, app grants and settings have no such feed worth the name (or none at
 * all): a scan reads them whole every time, and only files incrementally.
 */
export type TChangeFeed = {
  /**
   * The feeds' current position, taken before a full read: what changes while the full read runs
   * is reported by the next incremental read, never lost.
   */
  start: () => Promise<TChangeCursor>;
  /**
   * Every file change since `since`, in feed order (a file may be reported more than once; the
   * last report wins). Iterating throws ChangeCursorExpiredError when a feed's token is no longer
   * valid (Drive 410, Graph 410 `resyncRequired`, a cursor of another source or version): the scan
   * then reads everything.
   */
  read: (since: TChangeCursor) => TChangeRead;
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
  /** The directory's groups with their sizes, read whole every scan (issue 30); absent: none read. */
  groups?: () => AsyncIterable<TSourceGroup>;
  appGrants: () => AsyncIterable<TAppGrant>;
  activity: (since: Date) => AsyncIterable<TActivityEvent>;
  /** The tenant's security settings, each read or marked unavailable; never throws for one setting. */
  tenantSettings: () => Promise<TTenantSetting[]>;
  /** Probes every requirement of the connector's features (on connect); demo grants all. */
  checkAccess: () => Promise<TAccessCheck[]>;
  /** What the reads so far had to skip, and why; read after a scan. */
  coverageGaps: () => TCoverageGap[];
  /** The file change feeds; a source without them is scanned in full every time. */
  changeFeed?: TChangeFeed;
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

/** A change feed's token expired or cannot be used: the scan falls back to a full read. */
export class ChangeCursorExpiredError extends Error {
  constructor(
    message: string,
    /** The feed whose token expired (a user, a drive), when one did. */
    readonly feed?: string,
  ) {
    super(message);
    this.name = "ChangeCursorExpiredError";
  }
}
