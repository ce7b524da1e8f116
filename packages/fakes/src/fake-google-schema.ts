// What Google's APIs accept, as their Discovery documents declare it (Drive v3 revision 20260916,
// Admin SDK Directory and Reports v1, Drive Labels v2): each method's query parameters and scopes,
// and the property names a Drive `fields` mask may select. `fake-google-schema.test.ts` checks these
// lists against the Discovery documents, so the fake refuses exactly what the real API refuses.

const AUTH = "https://www.googleapis.com/auth/";
/** The scopes drive.v3.json lists for files.list, changes.getStartPageToken and changes.list. */
const DRIVE_FILE_SCOPES = [
  `${AUTH}drive`,
  `${AUTH}drive.appdata`,
  `${AUTH}drive.file`,
  `${AUTH}drive.meet.readonly`,
  `${AUTH}drive.metadata`,
  `${AUTH}drive.metadata.readonly`,
  `${AUTH}drive.photos.readonly`,
  `${AUTH}drive.readonly`,
];

/** Parameters every Google API method takes (Discovery `parameters`). */
export const GLOBAL_PARAMETERS = [
  "$.xgafv",
  "access_token",
  "alt",
  "callback",
  "fields",
  "key",
  "oauth_token",
  "prettyPrint",
  "quotaUser",
  "uploadType",
  "upload_protocol",
] as const;

export type TMethodSpec = { parameters: readonly string[]; scopes: readonly string[] };

/** The methods the fake serves, keyed by their Discovery id. Path parameters are listed too. */
export const METHODS = {
  "drive.files.list": {
    parameters: [
      "corpora",
      "corpus",
      "driveId",
      "includeItemsFromAllDrives",
      "includeLabels",
      "includePermissionsForView",
      "includeTeamDriveItems",
      "orderBy",
      "pageSize",
      "pageToken",
      "q",
      "spaces",
      "supportsAllDrives",
      "supportsTeamDrives",
      "teamDriveId",
    ],
    scopes: DRIVE_FILE_SCOPES,
  },
  "drive.permissions.list": {
    parameters: [
      "fileId",
      "includePermissionsForView",
      "pageSize",
      "pageToken",
      "supportsAllDrives",
      "supportsTeamDrives",
      "useDomainAdminAccess",
    ],
    scopes: [
      `${AUTH}drive`,
      `${AUTH}drive.file`,
      `${AUTH}drive.meet.readonly`,
      `${AUTH}drive.metadata`,
      `${AUTH}drive.metadata.readonly`,
      `${AUTH}drive.photos.readonly`,
      `${AUTH}drive.readonly`,
    ],
  },
  "drive.changes.getStartPageToken": {
    parameters: ["driveId", "supportsAllDrives", "supportsTeamDrives", "teamDriveId"],
    scopes: DRIVE_FILE_SCOPES,
  },
  "drive.changes.list": {
    parameters: [
      "driveId",
      "includeCorpusRemovals",
      "includeItemsFromAllDrives",
      "includeLabels",
      "includePermissionsForView",
      "includeRemoved",
      "includeTeamDriveItems",
      "pageSize",
      "pageToken",
      "restrictToMyDrive",
      "spaces",
      "supportsAllDrives",
      "supportsTeamDrives",
      "teamDriveId",
    ],
    scopes: DRIVE_FILE_SCOPES,
  },
  "drive.drives.list": {
    parameters: ["pageSize", "pageToken", "q", "useDomainAdminAccess"],
    scopes: [`${AUTH}drive`, `${AUTH}drive.readonly`],
  },
  "directory.users.list": {
    parameters: [
      "customFieldMask",
      "customer",
      "domain",
      "event",
      "maxResults",
      "orderBy",
      "pageToken",
      "projection",
      "query",
      "showDeleted",
      "sortOrder",
      "viewType",
    ],
    scopes: [`${AUTH}admin.directory.user`, `${AUTH}admin.directory.user.readonly`, `${AUTH}cloud-platform`],
  },
  "directory.tokens.list": { parameters: ["userKey"], scopes: [`${AUTH}admin.directory.user.security`] },
  "directory.groups.list": {
    parameters: ["customer", "domain", "maxResults", "orderBy", "pageToken", "query", "sortOrder", "userKey"],
    scopes: [`${AUTH}admin.directory.group`, `${AUTH}admin.directory.group.readonly`],
  },
  "directory.members.list": {
    parameters: ["groupKey", "includeDerivedMembership", "maxResults", "pageToken", "roles"],
    scopes: [
      `${AUTH}admin.directory.group`,
      `${AUTH}admin.directory.group.member`,
      `${AUTH}admin.directory.group.member.readonly`,
      `${AUTH}admin.directory.group.readonly`,
    ],
  },
  // Enterprise License Manager (vendor/google-licensing-v1-extract.json): who holds Gemini.
  "licensing.licenseAssignments.listForProduct": {
    parameters: ["customerId", "maxResults", "pageToken", "productId"],
    scopes: [`${AUTH}apps.licensing`],
  },
  "directory.domains.list": {
    parameters: ["customer"],
    scopes: [`${AUTH}admin.directory.domain`, `${AUTH}admin.directory.domain.readonly`],
  },
  "reports.activities.list": {
    parameters: [
      "actorIpAddress",
      "agentInfoFilter",
      "applicationInfoFilter",
      "applicationName",
      "customerId",
      "deviceFilter",
      "endTime",
      "eventName",
      "filters",
      "groupIdFilter",
      "includeSensitiveData",
      "maxResults",
      "networkInfoFilter",
      "orgUnitID",
      "pageToken",
      "resourceDetailsFilter",
      "startTime",
      "statusFilter",
      "userKey",
    ],
    scopes: [`${AUTH}admin.reports.audit.readonly`],
  },
  // drivelabels:v2 (googleapis/google-api-go-client drivelabels/v2/drivelabels-api.json), not in
  // the shared reference folder: checked by hand against that document.
  "drivelabels.labels.list": {
    parameters: [
      "customer",
      "languageCode",
      "minimumRole",
      "pageSize",
      "pageToken",
      "publishedOnly",
      "useAdminAccess",
      "view",
    ],
    scopes: [
      `${AUTH}drive.admin.labels`,
      `${AUTH}drive.admin.labels.readonly`,
      `${AUTH}drive.labels`,
      `${AUTH}drive.labels.readonly`,
    ],
  },
} as const satisfies Record<string, TMethodSpec>;

export type TMethodId = keyof typeof METHODS;

/** A resource's selectable properties, and the shape of those that hold objects. */
export type TShape = { properties: readonly string[]; nested?: Record<string, TShape> };

const USER: TShape = {
  properties: ["displayName", "emailAddress", "kind", "me", "permissionId", "photoLink"],
};

export const PERMISSION: TShape = {
  properties: [
    "allowFileDiscovery",
    "deleted",
    "displayName",
    "domain",
    "emailAddress",
    "expirationTime",
    "id",
    "inheritedPermissionsDisabled",
    "kind",
    "pendingOwner",
    "permissionDetails",
    "photoLink",
    "role",
    "teamDrivePermissionDetails",
    "type",
    "view",
  ],
};

const LABEL: TShape = { properties: ["fields", "id", "kind", "revisionId"] };

/**
 * Drive Labels v2's Label and labels.list's answer (drivelabels-api.json's
 * GoogleAppsDriveLabelsV2Label and ListLabelsResponse; that document is not in the shared
 * reference folder: checked by hand against it and the published reference).
 */
export const LABELS_LIST: TShape = {
  properties: ["labels", "nextPageToken"],
  nested: {
    labels: {
      properties: [
        "appliedCapabilities",
        "appliedLabelPolicy",
        "createTime",
        "creator",
        "customer",
        "disableTime",
        "disabler",
        "displayHints",
        "enabledAppSettings",
        "fields",
        "id",
        "labelType",
        "learnMoreUri",
        "lifecycle",
        "lockStatus",
        "name",
        "properties",
        "publishTime",
        "publisher",
        "revisionCreateTime",
        "revisionCreator",
        "revisionId",
        "schemaCapabilities",
      ],
    },
  },
};

export const FILE: TShape = {
  properties: [
    "appProperties",
    "capabilities",
    "clientEncryptionDetails",
    "contentHints",
    "contentRestrictions",
    "copyRequiresWriterPermission",
    "createdTime",
    "description",
    "downloadRestrictions",
    "driveId",
    "explicitlyTrashed",
    "exportLinks",
    "fileExtension",
    "folderColorRgb",
    "fullFileExtension",
    "hasAugmentedPermissions",
    "hasThumbnail",
    "headRevisionId",
    "iconLink",
    "id",
    "imageMediaMetadata",
    "inheritedPermissionsDisabled",
    "isAppAuthorized",
    "kind",
    "labelInfo",
    "lastModifyingUser",
    "linkShareMetadata",
    "md5Checksum",
    "mimeType",
    "modifiedByMe",
    "modifiedByMeTime",
    "modifiedTime",
    "name",
    "originalFilename",
    "ownedByMe",
    "owners",
    "parents",
    "permissionIds",
    "permissions",
    "properties",
    "quotaBytesUsed",
    "resourceKey",
    "sha1Checksum",
    "sha256Checksum",
    "shared",
    "sharedWithMeTime",
    "sharingUser",
    "shortcutDetails",
    "size",
    "spaces",
    "starred",
    "teamDriveId",
    "thumbnailLink",
    "thumbnailVersion",
    "trashed",
    "trashedTime",
    "trashingUser",
    "version",
    "videoMediaMetadata",
    "viewedByMe",
    "viewedByMeTime",
    "viewersCanCopyContent",
    "webContentLink",
    "webViewLink",
    "writersCanShare",
  ],
  nested: {
    owners: USER,
    lastModifyingUser: USER,
    sharingUser: USER,
    trashingUser: USER,
    permissions: PERMISSION,
    labelInfo: { properties: ["labels"], nested: { labels: LABEL } },
  },
};

export const DRIVE: TShape = {
  properties: [
    "backgroundImageFile",
    "backgroundImageLink",
    "capabilities",
    "colorRgb",
    "createdTime",
    "hidden",
    "id",
    "kind",
    "name",
    "orgUnitId",
    "restrictions",
    "themeId",
  ],
  nested: {
    restrictions: {
      properties: [
        "adminManagedRestrictions",
        "copyRequiresWriterPermission",
        "domainUsersOnly",
        "downloadRestriction",
        "driveMembersOnly",
        "sharingFoldersRequiresOrganizerPermission",
      ],
    },
  },
};

export const FILE_LIST: TShape = {
  properties: ["files", "incompleteSearch", "kind", "nextPageToken"],
  nested: { files: FILE },
};
export const PERMISSION_LIST: TShape = {
  properties: ["kind", "nextPageToken", "permissions"],
  nested: { permissions: PERMISSION },
};
export const DRIVE_LIST: TShape = {
  properties: ["drives", "kind", "nextPageToken"],
  nested: { drives: DRIVE },
};

/** A Drive `Change`: a file's or a shared drive's new state, or its removal from the feed. */
export const CHANGE: TShape = {
  properties: [
    "changeType",
    "drive",
    "driveId",
    "file",
    "fileId",
    "kind",
    "removed",
    "teamDrive",
    "teamDriveId",
    "time",
    "type",
  ],
  nested: { file: FILE, drive: DRIVE },
};
export const CHANGE_LIST: TShape = {
  properties: ["changes", "kind", "newStartPageToken", "nextPageToken"],
  nested: { changes: CHANGE },
};
export const START_PAGE_TOKEN: TShape = { properties: ["kind", "startPageToken"] };

/** What Drive returns when a request names no `fields`. */
export const DEFAULT_FIELDS = {
  files: "kind,incompleteSearch,nextPageToken,files(kind,id,name,mimeType)",
  permissions: "kind,nextPageToken,permissions(kind,id,type,role,emailAddress,domain)",
  drives: "kind,nextPageToken,drives(kind,id,name,createdTime,hidden)",
  changes:
    "kind,nextPageToken,newStartPageToken,changes(kind,changeType,time,removed,fileId,driveId," +
    "file(kind,id,name,mimeType),drive(kind,id,name))",
  startPageToken: "kind,startPageToken",
} as const;

type TMask = Map<string, TMask | true>;

/** Parses a `fields` mask (`a,b(c,d(e)),f/g`) into a tree; null when its brackets do not balance. */
export function parseFieldMask(mask: string): TMask | null {
  let at = 0;
  const parseList = (): TMask | null => {
    const tree: TMask = new Map();
    while (at < mask.length && mask[at] !== ")") {
      const start = at;
      while (at < mask.length && !",()".includes(mask[at] ?? "")) at++;
      const path = mask.slice(start, at).trim().split("/");
      let sub: TMask | true = true;
      if (mask[at] === "(") {
        at++;
        const inner = parseList();
        if (!inner || mask[at] !== ")") return null;
        at++;
        sub = inner;
      }
      // `a/b/c` is `a(b(c))`.
      for (let i = path.length - 1; i > 0; i--) sub = new Map([[path[i] ?? "", sub]]);
      const name = path[0] ?? "";
      if (name === "") return null;
      const existing = tree.get(name);
      tree.set(name, existing instanceof Map && sub instanceof Map ? new Map([...existing, ...sub]) : sub);
      if (mask[at] === ",") at++;
    }
    return tree;
  };
  const tree = parseList();
  return tree && at === mask.length ? tree : null;
}

/** The first selected name the shape does not declare, as Google names it in its 400; null when valid. */
export function invalidField(tree: TMask, shape: TShape): string | null {
  for (const [name, sub] of tree) {
    if (name === "*") continue;
    if (!shape.properties.includes(name)) return name;
    const nested = shape.nested?.[name];
    if (sub instanceof Map && nested) {
      const bad = invalidField(sub, nested);
      if (bad) return bad;
    }
  }
  return null;
}

/** The response as the mask selects it: only the named properties, at every level. */
export function applyFieldMask(value: unknown, tree: TMask): unknown {
  if (Array.isArray(value)) return value.map((item) => applyFieldMask(item, tree));
  if (typeof value !== "object" || value === null || tree.has("*")) return value;
  const out: Record<string, unknown> = {};
  for (const [name, sub] of tree) {
    const property = (value as Record<string, unknown>)[name];
    if (property === undefined) continue;
    out[name] = sub === true ? property : applyFieldMask(property, sub);
  }
  return out;
}
