import { type TGDomain, type TGDrivePermission } from "@posture/connectors/wire";
import { type TFakeGoogleTenant } from "./fake-google-changes";
import {
  fileResource,
  includedLabels,
  type TCaller,
  type TFakeDriveFixture,
  type TGoogleError,
} from "./fake-google-drive";
import { FILE, PERMISSION, type TMethodSpec, type TShape } from "./fake-google-schema";
import { type TFakeResponse } from "./fake-server";
import { DRIVE_PERMISSION_BODY } from "./google-discovery";

// Drive v3's sharing writes as the fake serves them: permissions.get / create / update / delete and
// files.get, acting as the impersonated caller on the fake tenant's own state (every change goes
// through the tenant handle, so files.list, permissions.list and the change feeds see it). What
// Drive refuses is refused with its reason: a file the caller cannot see is 404 `notFound`, a
// caller who may not share gets `insufficientFilePermissions`, the owner cannot be removed
// (`cannotRemoveOwner`), a shared drive's inherited permission cannot be touched, ownership needs
// `transferOwnership`, stays in the domain and does not exist in shared drives.

const AUTH = "https://www.googleapis.com/auth/";
const DRIVE_WRITE_SCOPES = [`${AUTH}drive`, `${AUTH}drive.file`];
const DRIVE_READ_SCOPES = [
  `${AUTH}drive`,
  `${AUTH}drive.file`,
  `${AUTH}drive.meet.readonly`,
  `${AUTH}drive.metadata`,
  `${AUTH}drive.metadata.readonly`,
  `${AUTH}drive.photos.readonly`,
  `${AUTH}drive.readonly`,
];

/** The write (and write-support) methods, as drive.v3.json and admin.directory_v1.json declare them. */
export const WRITE_METHODS = {
  "drive.permissions.get": {
    parameters: ["fileId", "permissionId", "supportsAllDrives", "supportsTeamDrives", "useDomainAdminAccess"],
    scopes: DRIVE_READ_SCOPES,
  },
  "drive.permissions.create": {
    parameters: [
      "emailMessage",
      "enforceExpansiveAccess",
      "enforceSingleParent",
      "fileId",
      "moveToNewOwnersRoot",
      "sendNotificationEmail",
      "supportsAllDrives",
      "supportsTeamDrives",
      "transferOwnership",
      "useDomainAdminAccess",
    ],
    scopes: DRIVE_WRITE_SCOPES,
  },
  "drive.permissions.update": {
    parameters: [
      "enforceExpansiveAccess",
      "fileId",
      "permissionId",
      "removeExpiration",
      "supportsAllDrives",
      "supportsTeamDrives",
      "transferOwnership",
      "useDomainAdminAccess",
    ],
    scopes: DRIVE_WRITE_SCOPES,
  },
  "drive.permissions.delete": {
    parameters: [
      "enforceExpansiveAccess",
      "fileId",
      "permissionId",
      "supportsAllDrives",
      "supportsTeamDrives",
      "useDomainAdminAccess",
    ],
    scopes: DRIVE_WRITE_SCOPES,
  },
  "drive.files.get": {
    parameters: [
      "acknowledgeAbuse",
      "fileId",
      "includeLabels",
      "includePermissionsForView",
      "supportsAllDrives",
      "supportsTeamDrives",
    ],
    scopes: [...DRIVE_READ_SCOPES, `${AUTH}drive.appdata`].sort(),
  },
  "directory.tokens.get": {
    parameters: ["clientId", "userKey"],
    scopes: [`${AUTH}admin.directory.user.security`],
  },
  "directory.tokens.delete": {
    parameters: ["clientId", "userKey"],
    scopes: [`${AUTH}admin.directory.user.security`],
  },
} as const satisfies Record<string, TMethodSpec>;

export type TWriteMethodId = keyof typeof WRITE_METHODS;

/** A permission as the fake keeps it: Drive's resource, with the fields undo re-creates. */
type TPermission = TGDrivePermission & { allowFileDiscovery?: boolean; expirationTime?: string };
type TFile = TFakeDriveFixture["files"][number];

const ROLES = ["owner", "organizer", "fileOrganizer", "writer", "commenter", "reader"] as const;
const TYPES = ["user", "group", "domain", "anyone"] as const;
/** Who may change a file's sharing: a My Drive file's owner and writers, a shared drive's members above commenter. */
const SHARERS = new Set(["owner", "organizer", "fileOrganizer", "writer"]);
const DEFAULT_PERMISSION_FIELDS = "kind,id,type,role,emailAddress,domain";
const DEFAULT_FILE_FIELDS = "kind,id,name,mimeType";

const lower = (value: string | undefined) => (value ?? "").toLowerCase();
const emailDomainOf = (email: string) => lower(email.split("@")[1]);

export function createFakeDriveWrites(
  fixture: TFakeDriveFixture & { domains: TGDomain[] },
  view: {
    canSee: (file: TFile, subject: string) => boolean;
    masked: (q: URLSearchParams, shape: TShape, fallback: string, body: unknown) => TFakeResponse;
  },
  tenant: TFakeGoogleTenant,
  googleError: TGoogleError,
) {
  const driveOf = (id: string | undefined) => fixture.drives.find((d) => d.id === id);
  const insufficient = () =>
    googleError(
      403,
      "The user does not have sufficient permissions for this file.",
      "insufficientFilePermissions",
    );
  const internal = (email: string) =>
    fixture.domains.some((d) => lower(d.domainName) === emailDomainOf(email));

  /** The file as the caller may see it, or Drive's 404 (a file one cannot see does not exist). */
  function visible(fileId: string, q: URLSearchParams, caller: TCaller): TFile | TFakeResponse {
    const file = fixture.files.find((f) => f.id === fileId);
    // useDomainAdminAccess reaches a shared drive itself, never the files in it.
    if (
      !file ||
      (file.driveId && q.get("supportsAllDrives") !== "true") ||
      !view.canSee(file, caller.subject)
    )
      return googleError(404, `File not found: ${fileId}.`, "notFound", "fileId");
    return file;
  }

  /** The caller's role on a file: owner, the role shared with them, or their shared-drive role. */
  function roleOf(file: TFile, subject: string): string | null {
    if (file.driveId) {
      const member = driveOf(file.driveId)?.permissions.find(
        (p) => p.type === "user" && !p.deleted && lower(p.emailAddress) === subject,
      );
      return member?.role ?? null;
    }
    if ((file.owners ?? []).some((o) => lower(o.emailAddress) === subject)) return "owner";
    const named = file.permissions.find(
      (p) => p.type === "user" && !p.deleted && lower(p.emailAddress) === subject,
    );
    return named?.role ?? null;
  }

  const isFile = (value: TFile | TFakeResponse): value is TFile => !("status" in value);

  /** A file the caller may share, and one of its permissions (404 when it has no such one). */
  function target(
    fileId: string,
    permissionId: string,
    q: URLSearchParams,
    caller: TCaller,
  ): { file: TFile; permission: TPermission } | TFakeResponse {
    const file = visible(fileId, q, caller);
    if (!isFile(file)) return file;
    if (!SHARERS.has(roleOf(file, caller.subject) ?? "")) return insufficient();
    const permission = file.permissions.find((p) => p.id === permissionId);
    if (!permission)
      return googleError(404, `Permission not found: ${permissionId}.`, "notFound", "permissionId");
    if (file.driveId && driveOf(file.driveId)?.permissions.some((p) => p.id === permissionId))
      return googleError(
        403,
        "Cannot update or delete an inherited permission on a shared drive item.",
        "cannotModifyInheritedTeamDrivePermission",
      );
    return { file, permission };
  }

  const permissionBody = (q: URLSearchParams, permission: TPermission) =>
    view.masked(q, PERMISSION, DEFAULT_PERMISSION_FIELDS, { kind: "drive#permission", ...permission });

  /** Ownership moves to `email`: they become owner (their permission kept or made), the owner a writer. */
  function transfer(file: TFile, email: string): TPermission {
    const owner = lower(email);
    const existing = file.permissions.find((p) => p.type === "user" && lower(p.emailAddress) === owner);
    const granted: TPermission = existing
      ? { ...existing, role: "owner" }
      : { id: permissionIdFor("user", owner), type: "user", role: "owner", emailAddress: owner };
    tenant.updateFile(file.id ?? "", {
      owners: [{ emailAddress: owner }],
      permissions: [
        granted,
        ...file.permissions
          .filter((p) => p.id !== granted.id)
          .map((p) => (p.role === "owner" ? { ...p, role: "writer" as const } : p)),
      ],
    });
    return granted;
  }

  /** What a transfer must pass before it is made: the owner's own, inside the domain, My Drive only. */
  function refuseTransfer(
    file: TFile,
    caller: TCaller,
    q: URLSearchParams,
    email: string,
  ): TFakeResponse | null {
    if (q.get("transferOwnership") !== "true")
      return googleError(
        403,
        "The transferOwnership parameter must be enabled when the permission role is 'owner'.",
        "forbidden",
        "transferOwnership",
      );
    if (file.driveId)
      return googleError(
        403,
        'Bad Request. User message: "Owner role is not supported for items in shared drives."',
        "ownerOnTeamDriveItemNotSupported",
      );
    if (roleOf(file, caller.subject) !== "owner") return insufficient();
    if (q.get("sendNotificationEmail") === "false")
      return googleError(
        400,
        'Bad Request. User message: "sendNotificationEmail must not be disabled for ownership transfers."',
        "badRequest",
        "sendNotificationEmail",
      );
    if (!internal(email))
      return googleError(
        403,
        'Bad Request. User message: "Ownership can\'t be transferred to a user outside the domain."',
        "ownershipChangeAcrossDomainNotPermitted",
      );
    return null;
  }

  /** Ids of grantees whose last permission was removed: the account keeps its id. */
  const formerIds = new Map<string, string>();
  const grantee = (p: TGDrivePermission) => `${p.type ?? ""}:${lower(p.emailAddress)}`;

  /**
   * Drive's permission ids name the grantee: the same user or group has the same id on every file
   * and shared drive, before and after it is removed; an anyone permission's id says whether the
   * file can be found (`anyone`) or only opened with the link (`anyoneWithLink`).
   */
  function permissionIdFor(type: string, who: string, discoverable = false): string {
    if (type === "anyone") return discoverable ? "anyone" : "anyoneWithLink";
    if (type === "domain") return `perm-domain-${who}`;
    for (const holder of [...fixture.files, ...fixture.drives]) {
      const same = holder.permissions.find((p) => p.type === type && lower(p.emailAddress) === who);
      if (same?.id) return same.id;
    }
    return formerIds.get(`${type}:${who}`) ?? `perm-${type}-${who}`;
  }

  /**
   * Drive's Permission.expirationTime: "They can only be set on user and group permissions - The
   * time must be in the future - The time cannot be more than a year in the future" (drive.v3.json),
   * on create and update alike: an anyone or domain link never takes an expiry.
   */
  function refuseExpiry(type: string, expirationTime: string): TFakeResponse | null {
    if (type !== "user" && type !== "group")
      return googleError(
        400,
        "Expiration dates cannot be set on anyone or domain permissions.",
        "cannotSetExpirationOnAnyoneOrDomain",
      );
    const at = Date.parse(expirationTime);
    if (!(at > Date.now()))
      return googleError(400, "Expiration dates must be in the future.", "expirationDatesMustBeInTheFuture");
    if (at > Date.now() + 366 * 86_400_000)
      return googleError(
        400,
        "Expiration dates cannot be more than a year in the future.",
        "expirationDateTooFarInFuture",
      );
    return null;
  }

  /** A role the item cannot hold: organizers only in shared drives, owners only in My Drive. */
  function refuseRole(file: TFile, role: string): TFakeResponse | null {
    if (!(ROLES as readonly string[]).includes(role))
      return googleError(400, `Invalid permission role: ${role}`, "invalid", "role");
    if (!file.driveId && (role === "organizer" || role === "fileOrganizer"))
      return googleError(
        403,
        'Bad Request. User message: "Organizer roles are only supported for items in shared drives."',
        "organizerOnNonTeamDriveItemNotSupported",
      );
    return null;
  }

  /** A shared drive's sharing restrictions, which bind its files' new permissions. */
  function refuseByDriveRestrictions(file: TFile, type: string, who: string): TFakeResponse | null {
    const drive = driveOf(file.driveId);
    if (!drive) return null;
    const inDomain =
      type === "domain" ? fixture.domains.some((d) => lower(d.domainName) === who) : internal(who);
    if (drive.restrictions?.domainUsersOnly && (type === "anyone" || !inDomain))
      return googleError(
        403,
        'Bad Request. User message: "This shared drive only allows sharing with users in its domain."',
        "teamDriveDomainUsersOnlyRestriction",
      );
    const member = drive.permissions.some((p) => !p.deleted && lower(p.emailAddress) === who);
    if (drive.restrictions?.driveMembersOnly && !member)
      return googleError(
        403,
        'Bad Request. User message: "This shared drive only allows sharing with its members."',
        "teamDriveTeamMembersOnlyRestriction",
      );
    return null;
  }

  function getPermission(fileId: string, permissionId: string, q: URLSearchParams, caller: TCaller) {
    const file = visible(fileId, q, caller);
    if (!isFile(file)) return file;
    const permission = file.permissions.find((p) => p.id === permissionId);
    if (!permission)
      return googleError(404, `Permission not found: ${permissionId}.`, "notFound", "permissionId");
    return permissionBody(q, permission);
  }

  /**
   * A body is a Permission: a name its Discovery schema does not declare fails to parse, before
   * anything is looked up (a declared but read-only one is the method's own refusal).
   */
  function undeclaredField(body: unknown): TFakeResponse | null {
    if (typeof body !== "object" || body === null) return null;
    const name = Object.keys(body).find((k) => !DRIVE_PERMISSION_BODY.properties.includes(k));
    if (name === undefined) return null;
    return googleError(
      400,
      `Invalid JSON payload received. Unknown name "${name}": Cannot find field.`,
      "badRequest",
    );
  }

  function deletePermission(fileId: string, permissionId: string, q: URLSearchParams, caller: TCaller) {
    const found = target(fileId, permissionId, q, caller);
    if ("status" in found) return found;
    if (found.permission.role === "owner")
      return googleError(403, "The owner of a file cannot be removed.", "cannotRemoveOwner");
    if (found.permission.id && found.permission.emailAddress)
      formerIds.set(grantee(found.permission), found.permission.id);
    tenant.unshare(fileId, permissionId);
    return { status: 204 };
  }

  function updatePermission(
    fileId: string,
    permissionId: string,
    q: URLSearchParams,
    body: unknown,
    caller: TCaller,
  ): TFakeResponse {
    const malformed = undeclaredField(body);
    if (malformed) return malformed;
    const found = target(fileId, permissionId, q, caller);
    if ("status" in found) return found;
    const { file, permission } = found;
    const patch = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    const unwritable = Object.keys(patch).filter((k) => !["role", "expirationTime", "kind"].includes(k));
    if (unwritable.length > 0)
      return googleError(
        403,
        "The resource body includes fields which are not directly writable.",
        "fieldNotWritable",
      );
    const role = typeof patch.role === "string" ? patch.role : (permission.role ?? "reader");
    if (typeof patch.expirationTime === "string") {
      const refusedExpiry = refuseExpiry(permission.type ?? "", patch.expirationTime);
      if (refusedExpiry) return refusedExpiry;
    }
    const refused = refuseRole(file, role);
    if (refused) return refused;
    if (role === "owner" && permission.role !== "owner") {
      const refusedTransfer = refuseTransfer(file, caller, q, permission.emailAddress ?? "");
      if (refusedTransfer) return refusedTransfer;
      return permissionBody(q, transfer(file, permission.emailAddress ?? ""));
    }
    if (permission.role === "owner" && role !== "owner")
      return googleError(403, "The owner of a file cannot be removed.", "cannotRemoveOwner");
    const updated: TPermission = {
      ...permission,
      role: role as TPermission["role"],
      ...(typeof patch.expirationTime === "string" ? { expirationTime: patch.expirationTime } : {}),
    };
    if (q.get("removeExpiration") === "true") delete updated.expirationTime;
    tenant.updateFile(fileId, {
      permissions: file.permissions.map((p) => (p.id === permissionId ? updated : p)),
    });
    return permissionBody(q, updated);
  }

  function createPermission(
    fileId: string,
    q: URLSearchParams,
    body: unknown,
    caller: TCaller,
  ): TFakeResponse {
    const malformed = undeclaredField(body);
    if (malformed) return malformed;
    const file = visible(fileId, q, caller);
    if (!isFile(file)) return file;
    if (!SHARERS.has(roleOf(file, caller.subject) ?? "")) return insufficient();
    const given = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    const type = typeof given.type === "string" ? given.type : "";
    const role = typeof given.role === "string" ? given.role : "";
    if (!type)
      return googleError(400, "The permission type field is required.", "required", "permission.type");
    if (!(TYPES as readonly string[]).includes(type))
      return googleError(400, `Invalid permission type: ${type}`, "invalid", "permission.type");
    if (!role)
      return googleError(400, "The permission role field is required.", "required", "permission.role");
    const person = type === "user" || type === "group";
    const email = lower(typeof given.emailAddress === "string" ? given.emailAddress : "");
    const domain = lower(typeof given.domain === "string" ? given.domain : "");
    if (person && !email)
      return googleError(
        400,
        "The permission emailAddress field is required.",
        "required",
        "permission.emailAddress",
      );
    if (type === "domain" && !domain)
      return googleError(400, "The permission domain field is required.", "required", "permission.domain");
    if ((person && domain) || (!person && email))
      return googleError(
        400,
        "The specified domain is invalid or not applicable for the given permission type.",
        "invalid",
        "permission.domain",
      );
    if (!person && q.has("sendNotificationEmail"))
      return googleError(
        400,
        "sendNotificationEmail parameter is only applicable for permissions of type 'user' or 'group'.",
        "badRequest",
        "sendNotificationEmail",
      );
    const expirationTime = typeof given.expirationTime === "string" ? given.expirationTime : undefined;
    if (expirationTime !== undefined) {
      const refusedExpiry = refuseExpiry(type, expirationTime);
      if (refusedExpiry) return refusedExpiry;
    }
    const refused = refuseRole(file, role);
    if (refused) return refused;
    if (role === "owner") {
      if (type !== "user")
        return googleError(400, "The owner role can only be granted to a user.", "invalidSharingRequest");
      const refusedTransfer = refuseTransfer(file, caller, q, email);
      return refusedTransfer ?? permissionBody(q, transfer(file, email));
    }
    const restricted = refuseByDriveRestrictions(file, type, person ? email : domain);
    if (restricted) return restricted;
    const discoverable = given.allowFileDiscovery === true;
    // One permission per grantee: sharing again with the same one changes it in place, same id.
    const existing = file.permissions.find((p) =>
      person
        ? p.type === type && lower(p.emailAddress) === email
        : type === "domain"
          ? p.type === "domain" && lower(p.domain) === domain
          : p.type === "anyone",
    );
    if (existing?.role === "owner")
      return googleError(403, "The owner of a file cannot be removed.", "cannotRemoveOwner");
    const permission: TPermission = {
      // An anyone permission's id follows its discoverability; any other keeps its id.
      id:
        (type === "anyone" ? undefined : existing?.id) ??
        permissionIdFor(type, person ? email : domain, discoverable),
      type: type as TPermission["type"],
      role: role as TPermission["role"],
      ...(person ? { emailAddress: email } : {}),
      ...(type === "domain" ? { domain } : {}),
      ...(!person ? { allowFileDiscovery: discoverable } : {}),
      ...(expirationTime ? { expirationTime } : {}),
    };
    tenant.updateFile(fileId, {
      permissions: existing
        ? file.permissions.map((p) => (p === existing ? permission : p))
        : [...file.permissions, permission],
    });
    return permissionBody(q, permission);
  }

  function getFile(fileId: string, q: URLSearchParams, caller: TCaller): TFakeResponse {
    const file = visible(fileId, q, caller);
    if (!isFile(file)) return file;
    return view.masked(q, FILE, DEFAULT_FILE_FIELDS, fileResource(file, includedLabels(q)));
  }

  return { getPermission, deletePermission, updatePermission, createPermission, getFile };
}
