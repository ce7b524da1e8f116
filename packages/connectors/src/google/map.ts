import { emailDomain } from "@posture/platform";
import { EPOCH } from "../shared/normalise";
import {
  type TActivityEvent,
  type TAppGrant,
  type TPermission,
  type TPermissionRole,
  type TSharedDrive,
  type TSourceFile,
  type TSourceUser,
} from "../types";
import { type TAgentCatalogEntry } from "../agents/catalog";
import { classifyApp } from "./app-kind";
import {
  type TGActivity,
  type TGActivityParameter,
  type TGDriveFile,
  type TGDrivePermission,
  type TGSharedDrive,
  type TGToken,
  type TGUser,
} from "./api-types";

// Directory reports never-signed-in users with the Unix epoch rather than leaving the field out.
function loginTime(value: string | undefined): string | null {
  if (!value) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) || at <= 0 ? null : new Date(at).toISOString();
}

export function mapUser(user: TGUser): TSourceUser {
  const email = user.primaryEmail ?? "";
  return {
    id: user.id ?? email,
    email,
    name:
      user.name?.fullName ??
      ([user.name?.givenName, user.name?.familyName].filter(Boolean).join(" ") || email),
    isAdmin: user.isAdmin === true,
    mfaEnabled: user.isEnrolledIn2Sv === true,
    suspended: user.suspended === true,
    lastLoginAt: loginTime(user.lastLoginTime),
    createdAt: user.creationTime ?? EPOCH,
  };
}

export function mapRole(role: TGDrivePermission["role"]): TPermissionRole {
  switch (role) {
    case "owner":
      return "owner";
    case "organizer":
    case "fileOrganizer":
      return "organizer";
    case "writer":
      return "writer";
    case "commenter":
      return "commenter";
    default:
      return "reader";
  }
}

export function mapPermission(permission: TGDrivePermission): TPermission | null {
  if (!permission.id || !permission.type || permission.deleted) return null;
  const mapped: TPermission = { id: permission.id, type: permission.type, role: mapRole(permission.role) };
  if (permission.emailAddress) mapped.emailAddress = permission.emailAddress.toLowerCase();
  if (permission.domain) mapped.domain = permission.domain.toLowerCase();
  // Drive shows `domain` and `anyone` permissions as links: searchable (allowFileDiscovery) or
  // link-only, with or without an expiry.
  if (permission.type === "domain" || permission.type === "anyone") {
    const expires = permission.expirationTime ? Date.parse(permission.expirationTime) : Number.NaN;
    mapped.link = {
      expiresAt: Number.isNaN(expires) ? null : new Date(expires).toISOString(),
      discoverable: permission.allowFileDiscovery === true,
    };
  }
  return mapped;
}

/** `label`: the display name of the file's sensitivity label (labels.ts), null when none or not read. */
export function mapFile(
  file: TGDriveFile,
  permissions: TGDrivePermission[],
  label: string | null = null,
): TSourceFile {
  const mapped = permissions.map(mapPermission).filter((p): p is TPermission => p !== null);
  // Files in shared drives have no `owners`; the drive owns them and its organizers speak for it.
  const owner =
    file.owners?.[0]?.emailAddress ??
    mapped.find((p) => p.role === "owner" || p.role === "organizer")?.emailAddress;
  return {
    id: file.id ?? "",
    name: file.name ?? "",
    mimeType: file.mimeType ?? "application/octet-stream",
    ownerEmail: (owner ?? "").toLowerCase(),
    driveId: file.driveId ?? null,
    permissions: mapped,
    modifiedAt: file.modifiedTime ?? EPOCH,
    sizeBytes: Number(file.size ?? 0) || 0,
    label,
  };
}

export function mapSharedDrive(
  drive: TGSharedDrive,
  members: TGDrivePermission[],
  fileCount: number,
): TSharedDrive {
  return {
    id: drive.id ?? "",
    name: drive.name ?? "",
    members: members
      .filter((m) => !m.deleted && (m.emailAddress || m.domain))
      .map((m) => ({ email: (m.emailAddress ?? m.domain ?? "").toLowerCase(), role: mapRole(m.role) })),
    restrictions: {
      domainUsersOnly: drive.restrictions?.domainUsersOnly === true,
      driveMembersOnly: drive.restrictions?.driveMembersOnly === true,
      copyRequiresWriterPermission: drive.restrictions?.copyRequiresWriterPermission === true,
    },
    fileCount,
  };
}

export function mapToken(
  token: TGToken,
  user: TSourceUser,
  grantedAt: string,
  catalog?: readonly TAgentCatalogEntry[],
): TAppGrant {
  const clientId = token.clientId ?? "";
  const label = token.displayText || clientId;
  const anonymous = token.anonymous === true;
  return {
    id: `${user.id}:${clientId}`,
    clientId,
    label,
    // Directory tokens name no publisher: the catalog matches the client id; the name never counts.
    ...classifyApp({ platform: "google_workspace", clientId, label }, catalog),
    // A user's token acts as the user: what they can open (domain-wide delegation is read apart).
    access: "delegated",
    // Directory tokens carry no publisher; an anonymous client ID is one Google never registered.
    publisher: anonymous ? "Unverified developer" : label,
    isKnownPublisher: !anonymous,
    scopes: token.scopes ?? [],
    userEmail: user.email,
    grantedAt,
  };
}

/** A client the admin delegated domain-wide authority to, as the admin audit log last recorded it. */
export type TDelegatedClient = {
  clientId: string;
  scopes: string[];
  authorizedAt: string;
  actorEmail: string;
};

/**
 * Domain-wide delegation: the client acts as any user it names, without their consent, so it
 * reads everything its scopes cover (`access: "application"`). The audit event names the client
 * by id only; the catalog may know it, otherwise it is a service account.
 */
export function mapDelegatedClient(
  client: TDelegatedClient,
  catalog?: readonly TAgentCatalogEntry[],
): TAppGrant {
  const kind = classifyApp(
    {
      platform: "google_workspace",
      clientId: client.clientId,
      label: client.clientId,
      isServiceAccount: true,
    },
    catalog,
  );
  return {
    id: `dwd:${client.clientId}`,
    clientId: client.clientId,
    label: client.clientId,
    ...kind,
    access: "application",
    // Authorized by a super administrator of the tenant; the client's owner is not recorded.
    publisher: "Domain-wide delegation",
    isKnownPublisher: false,
    scopes: [...client.scopes].sort(),
    userEmail: "",
    grantedAt: client.authorizedAt,
  };
}

function param(parameters: TGActivityParameter[] | undefined, name: string): string | undefined {
  const found = parameters?.find((p) => p.name === name);
  return found?.value ?? found?.multiValue?.join(" ");
}

// Visibility values that open a file beyond the domain (domain-wide links stay internal).
const PUBLIC_VISIBILITY = new Set(["people_with_link", "public_on_the_web"]);

/** One Reports activity can hold several events; each becomes at most one normalised event. */
export function mapActivity(activity: TGActivity, internalDomains: string[]): TActivityEvent[] {
  const at = activity.id?.time;
  const actorEmail = activity.actor?.email?.toLowerCase();
  if (!at || !actorEmail) return [];
  const baseId = `${activity.id?.applicationName ?? "app"}:${activity.id?.uniqueQualifier ?? at}`;
  const internal = new Set(internalDomains.map((d) => d.toLowerCase()));
  const events: TActivityEvent[] = [];
  (activity.events ?? []).forEach((event, index) => {
    const id = `${baseId}:${index}`;
    const docId = param(event.parameters, "doc_id");
    const withDoc = docId ? { resourceId: docId } : {};
    switch (event.name) {
      case "change_user_access": {
        const target = param(event.parameters, "target_user")?.toLowerCase();
        if (target && !internal.has(emailDomain(target) ?? target)) {
          events.push({ id, at, actorEmail, type: "share_external", ...withDoc, target });
        }
        break;
      }
      case "change_document_visibility": {
        const visibility = param(event.parameters, "visibility");
        if (visibility && PUBLIC_VISIBILITY.has(visibility)) {
          events.push({ id, at, actorEmail, type: "share_external", ...withDoc, target: "anyone" });
        }
        break;
      }
      case "download":
        events.push({ id, at, actorEmail, type: "download", ...withDoc });
        break;
      case "view":
        events.push({ id, at, actorEmail, type: "file_access", ...withDoc });
        break;
      // Drive audit events: `trash` moves an item to the bin, `delete` removes it for good.
      case "trash":
      case "delete":
        events.push({ id, at, actorEmail, type: "file_delete", ...withDoc });
        break;
      case "authorize": {
        const clientId = param(event.parameters, "client_id");
        const target = param(event.parameters, "app_name") ?? clientId;
        events.push({
          id,
          at,
          actorEmail,
          type: "oauth_grant",
          ...(clientId ? { resourceId: clientId } : {}),
          ...(target ? { target } : {}),
        });
        break;
      }
      case "login_success":
        events.push({ id, at, actorEmail, type: "login" });
        break;
    }
  });
  return events;
}
