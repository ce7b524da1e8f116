import {
  type TGDriveFile,
  type TGDrivePermission,
  type TGLabel,
  type TGSharedDrive,
  type TGUser,
} from "@posture/connectors/wire";
import { type TFakeResponse } from "./fake-server";
import {
  applyFieldMask,
  DEFAULT_FIELDS,
  DRIVE_LIST,
  FILE_LIST,
  invalidField,
  LABELS_LIST,
  parseFieldMask,
  PERMISSION_LIST,
  type TShape,
} from "./fake-google-schema";

// Drive v3 and Drive Labels v2 as one impersonated user sees them: files.list shows what that user
// may see (`corpora=user` their My Drive and what is shared with them, `corpora=drive` only a drive
// they belong to), and every response honours the request's `fields` mask.

export type TFakeDriveFixture = {
  users: TGUser[];
  files: Array<TGDriveFile & { permissions: TGDrivePermission[]; trashed?: boolean }>;
  drives: Array<TGSharedDrive & { permissions: TGDrivePermission[] }>;
  labels?: TGLabel[];
};

/** The impersonated user a request acts as (the token's subject) and whether they are an admin. */
export type TCaller = { subject: string; isAdmin: boolean };

export type TListPage = <T>(
  items: T[],
  q: URLSearchParams,
  size: { param: string; apiDefault: number; apiMax: number },
  invalidMessage: string,
) => { page: T[]; more: { nextPageToken?: string } } | { refused: TFakeResponse };

export type TGoogleError = (
  status: number,
  message: string,
  reason?: string,
  location?: string,
) => TFakeResponse;

const lower = (value: string | undefined) => (value ?? "").toLowerCase();

export function createFakeDrive(fixture: TFakeDriveFixture, listPage: TListPage, googleError: TGoogleError) {
  const isMember = (drive: TFakeDriveFixture["drives"][number] | undefined, subject: string) =>
    Boolean(
      drive?.permissions.some((p) => p.type === "user" && !p.deleted && lower(p.emailAddress) === subject),
    );
  const driveOf = (id: string | undefined) => fixture.drives.find((d) => d.id === id);
  const owns = (file: TGDriveFile, subject: string) =>
    (file.owners ?? []).some((o) => lower(o.emailAddress) === subject);
  /** My Drive files a user sees in `corpora=user`: their own and those shared with them by name. */
  const inMyDriveView = (file: TFakeDriveFixture["files"][number], subject: string) =>
    !file.driveId &&
    (owns(file, subject) ||
      file.permissions.some((p) => p.type === "user" && !p.deleted && lower(p.emailAddress) === subject));
  const canSee = (file: TFakeDriveFixture["files"][number], subject: string) =>
    file.driveId ? isMember(driveOf(file.driveId), subject) : inMyDriveView(file, subject);

  /** The `fields` mask checked against the resource, or Google's 400 for a name it does not declare. */
  function masked(q: URLSearchParams, shape: TShape, fallback: string, body: unknown): TFakeResponse {
    const tree = parseFieldMask(q.get("fields") ?? fallback);
    if (!tree) return googleError(400, "Invalid field selection", "invalidParameter", "fields");
    const bad = invalidField(tree, shape);
    if (bad) return googleError(400, `Invalid field selection ${bad}`, "invalidParameter", "fields");
    return { status: 200, body: applyFieldMask(body, tree) };
  }

  /** The `q` terms the fake understands, joined by `and`; anything else is Drive's 400. */
  function filterByQuery(
    files: TFakeDriveFixture["files"],
    query: string | null,
    subject: string,
  ): TFakeDriveFixture["files"] | null {
    if (!query) return files;
    let out = files;
    for (const term of query.split(/\s+and\s+/i)) {
      const trashed = /^trashed\s*=\s*(true|false)$/i.exec(term.trim());
      const owner = /^'([^']+)'\s+in\s+owners$/i.exec(term.trim());
      if (trashed) out = out.filter((f) => Boolean(f.trashed) === (trashed[1]?.toLowerCase() === "true"));
      else if (owner) {
        const who = owner[1] === "me" ? subject : lower(owner[1]);
        out = out.filter((f) => owns(f, who));
      } else return null;
    }
    return out;
  }

  function listFiles(q: URLSearchParams, caller: TCaller): TFakeResponse {
    const corpora = q.get("corpora") ?? "user";
    const allDrives = q.get("includeItemsFromAllDrives") === "true";
    if (!["user", "drive", "allDrives", "domain"].includes(corpora))
      return googleError(400, "Invalid Value", "invalid", "corpora");
    if (
      (corpora === "allDrives" || corpora === "drive") &&
      (!allDrives || q.get("supportsAllDrives") !== "true")
    ) {
      return googleError(
        400,
        "The includeItemsFromAllDrives and supportsAllDrives parameters must be set to true for this corpora.",
        "invalid",
      );
    }
    const driveId = q.get("driveId");
    let files: TFakeDriveFixture["files"];
    if (corpora === "drive") {
      if (!driveId)
        return googleError(400, "The driveId parameter is required for this corpora.", "required", "driveId");
      // A drive the caller is not a member of does not exist for them, admin or not.
      if (!isMember(driveOf(driveId), caller.subject))
        return googleError(404, `Shared drive not found: ${driveId}`, "notFound", "driveId");
      files = fixture.files.filter((f) => f.driveId === driveId);
    } else if (corpora === "allDrives") {
      files = fixture.files.filter((f) => canSee(f, caller.subject));
    } else {
      files = fixture.files.filter((f) => inMyDriveView(f, caller.subject));
    }
    const filtered = filterByQuery(files, q.get("q"), caller.subject);
    if (!filtered) return googleError(400, "Invalid Value", "invalid", "q");
    const listed = listPage(
      filtered,
      q,
      { param: "pageSize", apiDefault: 100, apiMax: 1000 },
      "Invalid Value",
    );
    if ("refused" in listed) return listed.refused;
    const labelIds = includedLabels(q);
    return masked(q, FILE_LIST, DEFAULT_FIELDS.files, {
      kind: "drive#fileList",
      incompleteSearch: false,
      ...listed.more,
      files: listed.page.map((file) => fileResource(file, labelIds)),
    });
  }

  function listPermissions(fileId: string, q: URLSearchParams, caller: TCaller): TFakeResponse {
    const file = fixture.files.find((f) => f.id === fileId);
    const drive = driveOf(fileId);
    const supportsAllDrives = q.get("supportsAllDrives") === "true";
    let permissions: TGDrivePermission[] | null = null;
    if (drive) {
      if (!supportsAllDrives) return googleError(404, `File not found: ${fileId}.`, "notFound", "fileId");
      if (q.get("useDomainAdminAccess") === "true") {
        if (!caller.isAdmin)
          return googleError(
            403,
            "The user does not have sufficient permissions for this file.",
            "insufficientFilePermissions",
          );
        permissions = drive.permissions;
      } else if (isMember(drive, caller.subject)) permissions = drive.permissions;
      else return googleError(404, `Shared drive not found: ${fileId}`, "notFound", "fileId");
    } else if (file && (!file.driveId || supportsAllDrives) && canSee(file, caller.subject)) {
      permissions = file.permissions;
    }
    if (!permissions) return googleError(404, `File not found: ${fileId}.`, "notFound", "fileId");
    const listed = listPage(
      permissions,
      q,
      { param: "pageSize", apiDefault: 100, apiMax: 100 },
      "Invalid Value",
    );
    if ("refused" in listed) return listed.refused;
    return masked(q, PERMISSION_LIST, DEFAULT_FIELDS.permissions, {
      kind: "drive#permissionList",
      ...listed.more,
      permissions: listed.page.map((p) => ({ kind: "drive#permission", ...p })),
    });
  }

  function listDrives(q: URLSearchParams, caller: TCaller): TFakeResponse {
    let drives = fixture.drives.filter((d) => isMember(d, caller.subject));
    if (q.get("useDomainAdminAccess") === "true") {
      if (!caller.isAdmin)
        return googleError(
          403,
          "The user does not have sufficient permissions for this file.",
          "insufficientFilePermissions",
        );
      drives = fixture.drives;
    }
    const listed = listPage(drives, q, { param: "pageSize", apiDefault: 10, apiMax: 100 }, "Invalid Value");
    if ("refused" in listed) return listed.refused;
    return masked(q, DRIVE_LIST, DEFAULT_FIELDS.drives, {
      kind: "drive#driveList",
      ...listed.more,
      drives: listed.page.map(({ permissions: _p, ...d }) => ({ kind: "drive#drive", ...d })),
    });
  }

  /** labels.list: published only on request, the full view only on request, all labels only to an admin. */
  function listLabels(q: URLSearchParams, caller: TCaller): TFakeResponse {
    if (q.get("useAdminAccess") === "true" && q.get("minimumRole"))
      return grpcError(400, "INVALID_ARGUMENT", "useAdminAccess and minimumRole cannot both be set.");
    if (q.get("useAdminAccess") === "true" && !caller.isAdmin)
      return grpcError(403, "PERMISSION_DENIED", "The caller is not an administrator of the customer.");
    const view = q.get("view") ?? "LABEL_VIEW_BASIC";
    if (!["LABEL_VIEW_BASIC", "LABEL_VIEW_FULL"].includes(view))
      return grpcError(
        400,
        "INVALID_ARGUMENT",
        `Invalid value at 'view' (type.googleapis.com/google.apps.drive.labels.v2.LabelView), "${view}"`,
      );
    let labels = fixture.labels ?? [];
    if (q.get("publishedOnly") === "true")
      labels = labels.filter((l) => ["PUBLISHED", "DISABLED"].includes(l.lifecycle?.state ?? ""));
    const listed = listPage(
      labels,
      q,
      { param: "pageSize", apiDefault: 50, apiMax: 200 },
      "Invalid page token.",
    );
    if ("refused" in listed) return listed.refused;
    const shown = listed.page.map((l) =>
      view === "LABEL_VIEW_FULL"
        ? l
        : {
            name: l.name,
            id: l.id,
            revisionId: l.revisionId,
            labelType: l.labelType,
            properties: l.properties,
          },
    );
    const body = { labels: shown, ...listed.more };
    const fields = q.get("fields");
    if (fields === null) return { status: 200, body };
    // A gRPC-transcoded API: its 400s carry the google.rpc status, as the others here.
    const tree = parseFieldMask(fields);
    const bad = tree ? invalidField(tree, LABELS_LIST) : fields;
    if (!tree || bad)
      return grpcError(400, "INVALID_ARGUMENT", `Invalid field selection ${bad ?? ""}`.trim());
    return { status: 200, body: applyFieldMask(body, tree) };
  }

  return { listFiles, listPermissions, listDrives, listLabels, canSee, isMember, masked };
}

/** The label ids a request's `includeLabels` names. */
export const includedLabels = (q: URLSearchParams) =>
  new Set((q.get("includeLabels") ?? "").split(",").filter(Boolean));

/** A fixture file as Drive lists it (files.list, changes.list), before the `fields` mask. */
export function fileResource(
  { permissions, trashed, labelInfo, ...file }: TFakeDriveFixture["files"][number],
  labelIds: Set<string>,
) {
  return {
    kind: "drive#file",
    ...file,
    trashed: Boolean(trashed),
    // Only the labels named in includeLabels come back.
    labelInfo: { labels: (labelInfo?.labels ?? []).filter((l) => l.id && labelIds.has(l.id)) },
    // Drive leaves `permissions` out of file lists for items in shared drives.
    ...(file.driveId ? {} : { permissions: permissions.map((p) => ({ kind: "drive#permission", ...p })) }),
  };
}

/** The error body of Google's gRPC-transcoded APIs (Drive Labels, Cloud Identity): no `errors` array. */
export function grpcError(status: number, code: string, message: string, details?: unknown[]): TFakeResponse {
  return {
    status,
    body: { error: { code: status, message, status: code, ...(details ? { details } : {}) } },
  };
}
