// The slices of the Google REST resources the adapter reads (Drive v3, Admin SDK Directory and
// Reports v1). Every field is optional because `fields` masks and old records omit them.

export type TGDrivePermission = {
  id?: string;
  type?: "user" | "group" | "domain" | "anyone";
  role?: "owner" | "organizer" | "fileOrganizer" | "writer" | "commenter" | "reader";
  emailAddress?: string;
  domain?: string;
  deleted?: boolean;
  /** `domain`/`anyone` only: people can find the file by search, not just open the link. */
  allowFileDiscovery?: boolean;
  /** RFC 3339; absent: the permission never expires. */
  expirationTime?: string;
};

export type TGDriveFile = {
  id?: string;
  name?: string;
  mimeType?: string;
  driveId?: string;
  owners?: Array<{ emailAddress?: string }>;
  modifiedTime?: string;
  size?: string;
  permissions?: TGDrivePermission[];
  labelInfo?: { labels?: TGAppliedLabel[] };
  trashed?: boolean;
};

/** A Drive label as applied to a file (Drive v3 `Label`): field values keyed by the field's id. */
export type TGAppliedLabel = {
  id?: string;
  revisionId?: string;
  fields?: Record<
    string,
    { id?: string; valueType?: string; selection?: string[]; text?: string[]; integer?: string[] }
  >;
};

export type TGFileList = { files?: TGDriveFile[]; nextPageToken?: string };

/** Drive v3 `Change`: a file's new state, or its removal from the feed (deleted, access lost). */
export type TGChange = {
  changeType?: "file" | "drive";
  removed?: boolean;
  fileId?: string;
  file?: TGDriveFile;
  driveId?: string;
};
export type TGChangeList = { changes?: TGChange[]; nextPageToken?: string; newStartPageToken?: string };
export type TGStartPageToken = { startPageToken?: string };
export type TGPermissionList = { permissions?: TGDrivePermission[]; nextPageToken?: string };

export type TGSharedDrive = {
  id?: string;
  name?: string;
  restrictions?: {
    domainUsersOnly?: boolean;
    driveMembersOnly?: boolean;
    copyRequiresWriterPermission?: boolean;
    adminManagedRestrictions?: boolean;
  };
};
export type TGDriveList = { drives?: TGSharedDrive[]; nextPageToken?: string };

export type TGUser = {
  id?: string;
  primaryEmail?: string;
  name?: { fullName?: string; givenName?: string; familyName?: string };
  isAdmin?: boolean;
  isEnrolledIn2Sv?: boolean;
  suspended?: boolean;
  lastLoginTime?: string;
  creationTime?: string;
  /** The customer the user belongs to (what the licensing API's customerId takes). */
  customerId?: string;
};
export type TGUserList = { users?: TGUser[]; nextPageToken?: string };

/** Directory's Group: `directMembersCount` is an int64, sent as a string, and counts direct users only. */
export type TGGroup = { id?: string; email?: string; name?: string; directMembersCount?: string };
export type TGGroupList = { groups?: TGGroup[]; nextPageToken?: string };

/** Directory's Member: `type` is USER, GROUP, CUSTOMER (everyone in the account) or EXTERNAL. */
export type TGMember = { id?: string; email?: string; type?: string; status?: string; role?: string };
export type TGMemberList = { members?: TGMember[]; nextPageToken?: string };

/** Enterprise License Manager's LicenseAssignment (licensing v1). */
export type TGLicenseAssignment = {
  productId?: string;
  productName?: string;
  skuId?: string;
  skuName?: string;
  userId?: string;
};
export type TGLicenseAssignmentList = { items?: TGLicenseAssignment[]; nextPageToken?: string };

export type TGToken = {
  clientId?: string;
  displayText?: string;
  scopes?: string[];
  userKey?: string;
  anonymous?: boolean;
  nativeApp?: boolean;
};
export type TGTokenList = { items?: TGToken[] };

export type TGDomain = { domainName?: string; isPrimary?: boolean; verified?: boolean };
export type TGDomainList = { domains?: TGDomain[] };

export type TGActivityParameter = {
  name?: string;
  value?: string;
  boolValue?: boolean;
  intValue?: string;
  multiValue?: string[];
};
export type TGActivity = {
  id?: { time?: string; uniqueQualifier?: string; applicationName?: string };
  actor?: { email?: string; profileId?: string };
  events?: Array<{ type?: string; name?: string; parameters?: TGActivityParameter[] }>;
};
export type TGActivityList = { items?: TGActivity[]; nextPageToken?: string };

/** A label of the tenant's taxonomy (Drive Labels API v2 `GoogleAppsDriveLabelsV2Label`). */
export type TGLabel = {
  name?: string;
  id?: string;
  revisionId?: string;
  labelType?: "LABEL_TYPE_UNSPECIFIED" | "SHARED" | "ADMIN" | "GOOGLE_APP";
  properties?: { title?: string; description?: string };
  lifecycle?: { state?: "UNPUBLISHED_DRAFT" | "PUBLISHED" | "DISABLED" | "DELETED" };
  fields?: Array<{
    id?: string;
    queryKey?: string;
    properties?: { displayName?: string };
    selectionOptions?: {
      choices?: Array<{
        id?: string;
        properties?: { displayName?: string; badgeConfig?: { color?: unknown; priorityOverride?: string } };
      }>;
    };
  }>;
};
export type TGLabelList = { labels?: TGLabel[]; nextPageToken?: string };
