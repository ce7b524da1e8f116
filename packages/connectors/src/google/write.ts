import type { THttpOptions } from "../http/client";
import { reversibilityOf } from "../reversibility";
import { SourceAuthError, type TPermissionRole } from "../types";
import {
  SourceWriteError,
  type TGrantImage,
  type TPermissionImage,
  type TReversibility,
  type TRoleChange,
  type TSourceWriter,
  type TWriteFile,
  type TWriteGrant,
  type TWriteOutcome,
  ranksAbove,
} from "../write";
import { GOOGLE_WRITE_ACCESS, GOOGLE_WRITE_SCOPE } from "./access";
import type { TGoogleConfig, TGoogleEndpoints } from "./adapter";
import { type TGDrivePermission, type TGToken } from "./api-types";
import { GOOGLE_TOKEN_URL, googleTokens, type TGoogleCredentials } from "./auth";
import { mapRole } from "./map";
import { googleWrite, SOURCE, type TNotFound, type TQuery, type TWriteAnswer } from "./write-http";

// Google Workspace writes, each one documented REST call (or a read, then the change):
// Drive v3 permissions.get / delete / update / create and Admin SDK Directory tokens.get / delete.
// My Drive files are changed as their owner (domain-wide delegation, as the adapter reads them);
// shared-drive files as the admin with useDomainAdminAccess, then, when the admin is not a member
// of the drive (Drive grants domain-admin access to the drive itself, not to its files), as the
// organizer the scan read the file through. docs/decisions.md, "Remediation: Google writes".

/** The fields a permission's pre-image keeps: what undo needs to re-create it. */
export const PERMISSION_IMAGE_FIELDS = "id,type,role,emailAddress,domain,allowFileDiscovery,expirationTime";

const FILES = "/drive/v3/files";

/** Who a Drive call acts as, and whether as the domain's administrator. */
type TActor = { subject: string; asAdmin: boolean };

type TGPermissionImage = TGDrivePermission & { allowFileDiscovery?: boolean; expirationTime?: string };

/** Refusals of one actor that another may not get: the file's own role, or admin privileges. */
const NEXT_ACTOR_CODES = new Set(["insufficientFilePermissions", "insufficientAdministratorPrivileges"]);

/**
 * The Directory user a grant belongs to: the immutable user id of the grant's id (`<userId>:<clientId>`,
 * map.ts), so a renamed user's grant is not mistaken for a revoked one; the email otherwise.
 */
function userKeyOf(grant: TWriteGrant): string {
  const suffix = `:${grant.clientId}`;
  return grant.id.endsWith(suffix) && grant.id.length > suffix.length
    ? grant.id.slice(0, -suffix.length)
    : grant.userEmail;
}

/** A change found already made: answered like a 404, `already_gone`, without a call. */
const ALREADY: TNotFound = { notFound: true, location: null, message: "already so" };

const lower = (value: string) => value.trim().toLowerCase();

export function createGoogleWorkspaceWriter(opts: {
  credentials: TGoogleCredentials;
  config?: TGoogleConfig;
  endpoints?: TGoogleEndpoints;
  http?: THttpOptions;
}): TSourceWriter {
  const endpoints = opts.endpoints ?? {};
  const tokens = googleTokens(opts.credentials, {
    tokenUrl: endpoints.tokenUrl ?? GOOGLE_TOKEN_URL,
    http: opts.http,
  });
  const adminSubject = tokens.adminSubject ?? "";
  const driveBase = endpoints.driveBaseUrl ?? "https://www.googleapis.com";
  const adminBase = endpoints.adminBaseUrl ?? "https://admin.googleapis.com";

  const drive = <T>(
    actor: TActor,
    method: "GET" | "POST" | "PATCH" | "DELETE",
    path: string,
    query: TQuery,
    body?: unknown,
  ) =>
    googleWrite<T>(
      {
        baseUrl: driveBase,
        tokens: tokens.as(actor.subject, [GOOGLE_WRITE_SCOPE.drive]),
        scope: GOOGLE_WRITE_SCOPE.drive,
        subject: actor.subject,
      },
      method,
      path,
      { supportsAllDrives: true, useDomainAdminAccess: actor.asAdmin || undefined, ...query },
      body,
      opts.http,
    );

  const directory = <T>(method: "GET" | "DELETE", grant: TWriteGrant) =>
    googleWrite<T>(
      {
        baseUrl: adminBase,
        tokens: tokens.as(adminSubject, [GOOGLE_WRITE_SCOPE.tokens]),
        scope: GOOGLE_WRITE_SCOPE.tokens,
        subject: adminSubject,
      },
      method,
      `/admin/directory/v1/users/${encodeURIComponent(userKeyOf(grant))}/tokens/${encodeURIComponent(grant.clientId)}`,
      {},
      undefined,
      opts.http,
    );

  /**
   * Whom to act as for a file, in order. A bare access token acts as its own user whatever the
   * subject; with delegation, My Drive files as their owner, shared-drive files as the admin, then
   * as the organizer the scan recorded as the file's owner.
   */
  function actorsFor(file: TWriteFile): TActor[] {
    if (!file.driveId) return [{ subject: file.ownerEmail || adminSubject, asAdmin: false }];
    const actors: TActor[] = [{ subject: adminSubject, asAdmin: true }];
    if (tokens.delegated && file.ownerEmail && lower(file.ownerEmail) !== lower(adminSubject))
      actors.push({ subject: file.ownerEmail, asAdmin: false });
    return actors;
  }

  const fileMissing = (answer: TWriteAnswer<unknown>): answer is TNotFound =>
    "notFound" in answer && (answer.location === "fileId" || /^File not found/i.test(answer.message));

  /**
   * Runs `call` as each actor of the file until one can see it (a shared drive's admin who is not
   * a member gets 404 on the file, or 403 insufficientFilePermissions as a mere reader of it). A
   * file someone saw is never reported gone because the next actor cannot see it.
   */
  async function asFileActor<T>(
    file: TWriteFile,
    call: (actor: TActor) => Promise<TWriteAnswer<T>>,
  ): Promise<TWriteAnswer<T>> {
    const actors = actorsFor(file);
    let refusal: SourceWriteError | null = null;
    let missing: TNotFound | null = null;
    for (const [index, actor] of actors.entries()) {
      const isLast = index === actors.length - 1;
      let answer: TWriteAnswer<T>;
      try {
        answer = await call(actor);
      } catch (error) {
        const fileRefused =
          error instanceof SourceWriteError && error.status === 403 && NEXT_ACTOR_CODES.has(error.code);
        if (fileRefused && !isLast) {
          refusal = error;
          continue;
        }
        if (index > 0 && error instanceof SourceAuthError) {
          if (refusal) throw refusal;
          // The organizer could not be impersonated: the file may well still be shared.
          if (missing)
            throw new SourceWriteError(
              404,
              "notFound",
              `${SOURCE}: file ${file.id} is not visible to ${adminSubject} (not a member of its ` +
                `shared drive) and ${actor.subject} could not be impersonated: ${error.message}`,
            );
        }
        throw error;
      }
      if (!fileMissing(answer)) return answer;
      if (refusal) throw refusal;
      if (isLast) return answer;
      missing = answer;
    }
    return missing ?? { notFound: true, location: "fileId", message: `File not found: ${file.id}.` };
  }

  const permissionPath = (file: TWriteFile, permissionId: string) =>
    `${FILES}/${encodeURIComponent(file.id)}/permissions/${encodeURIComponent(permissionId)}`;

  const readAs = (actor: TActor, file: TWriteFile, permissionId: string) =>
    drive<TGPermissionImage>(actor, "GET", permissionPath(file, permissionId), {
      fields: PERMISSION_IMAGE_FIELDS,
    });

  function toImage(permission: TGPermissionImage): TPermissionImage | null {
    if (!permission.id || !permission.type) return null;
    const extra: Record<string, unknown> = {};
    if (permission.role) extra.role = permission.role;
    if (typeof permission.allowFileDiscovery === "boolean")
      extra.allowFileDiscovery = permission.allowFileDiscovery;
    if (permission.expirationTime) extra.expirationTime = permission.expirationTime;
    const isLink = permission.type === "anyone" || permission.type === "domain";
    return {
      id: permission.id,
      type: permission.type,
      role: mapRole(permission.role),
      ...(permission.emailAddress ? { emailAddress: permission.emailAddress.toLowerCase() } : {}),
      ...(permission.domain ? { domain: permission.domain.toLowerCase() } : {}),
      ...(isLink
        ? {
            link: {
              expiresAt: permission.expirationTime ?? null,
              discoverable: permission.allowFileDiscovery === true,
            },
          }
        : {}),
      extra,
    };
  }

  const outcome = (answer: TWriteAnswer<unknown>): TWriteOutcome =>
    "notFound" in answer ? "already_gone" : "applied";

  async function readPermission(file: TWriteFile, permissionId: string): Promise<TPermissionImage | null> {
    const answer = await asFileActor(file, (actor) => readAs(actor, file, permissionId));
    return "notFound" in answer ? null : toImage(answer.body);
  }

  async function deletePermission(file: TWriteFile, permissionId: string): Promise<TWriteOutcome> {
    return outcome(
      await asFileActor(file, (actor) => drive(actor, "DELETE", permissionPath(file, permissionId), {})),
    );
  }

  async function updatePermissionRole(
    file: TWriteFile,
    permissionId: string,
    role: TPermissionRole,
    how: TRoleChange = "lower",
  ): Promise<TWriteOutcome> {
    if (role === "owner")
      throw new SourceWriteError(
        400,
        "unsupported",
        `${SOURCE}: ownership changes only through transferOwnership`,
      );
    const answer = await asFileActor(file, async (actor) => {
      const current = await readAs(actor, file, permissionId);
      if ("notFound" in current) return current;
      // Already so: no second change (a fileOrganizer counts as organizer, never raised to it).
      // A downgrade compares by rank: a permission already below the role is never raised to it.
      const now = mapRole(current.body.role);
      if (how === "lower" ? !ranksAbove(now, role) : now === role) return ALREADY;
      return drive(actor, "PATCH", permissionPath(file, permissionId), { fields: "id,role" }, { role: role });
    });
    return outcome(answer);
  }

  /**
   * A searchable link made link-only. permissions.update writes `role` and `expirationTime` only,
   * so the link is shared again with `allowFileDiscovery: false` (permissions.create: Drive keeps
   * one permission per domain, the same one changed). Should Drive answer with another id, the
   * searchable one left behind is deleted: the file ends with exactly one, link-only.
   */
  async function restrictLink(file: TWriteFile, permissionId: string): Promise<TWriteOutcome> {
    const answer = await asFileActor(file, async (actor) => {
      const current = await readAs(actor, file, permissionId);
      if ("notFound" in current) return current;
      const link = current.body;
      if (link.type !== "domain" && link.type !== "anyone")
        throw new SourceWriteError(
          400,
          "unsupported",
          `${SOURCE}: permission ${permissionId} is a ${link.type ?? "?"} grant, not a link`,
        );
      if (link.allowFileDiscovery !== true) return ALREADY;
      const body: Record<string, unknown> = { type: link.type, role: link.role, allowFileDiscovery: false };
      if (link.type === "domain") body.domain = link.domain;
      const created = await drive<{ id?: string }>(
        actor,
        "POST",
        `${FILES}/${encodeURIComponent(file.id)}/permissions`,
        { fields: "id" },
        body,
      );
      if (!("notFound" in created) && created.body.id && created.body.id !== permissionId)
        await drive(actor, "DELETE", permissionPath(file, permissionId), {});
      return created;
    });
    return outcome(answer);
  }

  async function restorePermission(file: TWriteFile, image: TPermissionImage): Promise<{ id: string }> {
    const extra = image.extra ?? {};
    const role = typeof extra.role === "string" ? extra.role : image.role;
    if (role === "owner")
      throw new SourceWriteError(
        400,
        "unsupported",
        `${SOURCE}: an owner is put back by transferring ownership, not by re-creating a permission`,
      );
    const person = image.type === "user" || image.type === "group";
    const body: Record<string, unknown> = { type: image.type, role };
    if (person) body.emailAddress = image.emailAddress;
    if (image.type === "domain") body.domain = image.domain;
    if (!person && typeof extra.allowFileDiscovery === "boolean")
      body.allowFileDiscovery = extra.allowFileDiscovery;
    // Drive refuses a past expiry (expirationDatesMustBeInTheFuture): access that lapsed stays lapsed.
    if (person && typeof extra.expirationTime === "string") body.expirationTime = extra.expirationTime;
    const answer = await asFileActor(file, (actor) =>
      drive<{ id?: string }>(
        actor,
        "POST",
        `${FILES}/${encodeURIComponent(file.id)}/permissions`,
        // Putting access back is silent; Drive allows the flag only for users and groups.
        { fields: "id", sendNotificationEmail: person ? false : undefined },
        body,
      ),
    );
    if ("notFound" in answer || !answer.body.id)
      throw new SourceWriteError(
        404,
        "notFound",
        `${SOURCE}: file ${file.id} is gone, so its permission cannot be put back`,
      );
    return { id: answer.body.id };
  }

  async function transferOwnership(file: TWriteFile, toEmail: string): Promise<TWriteOutcome> {
    if (file.driveId)
      throw new SourceWriteError(
        400,
        "unsupported",
        `${SOURCE}: files in a shared drive belong to the drive and have no owner to transfer`,
      );
    const [actor] = actorsFor(file);
    if (!actor) throw new SourceWriteError(400, "unsupported", `${SOURCE}: no one to act as for ${file.id}`);
    const path = `${FILES}/${encodeURIComponent(file.id)}`;
    const read = await drive<{ owners?: Array<{ emailAddress?: string }> }>(actor, "GET", path, {
      fields: "owners(emailAddress)",
    });
    if ("notFound" in read) return "already_gone";
    const owners = (read.body.owners ?? []).map((o) => lower(o.emailAddress ?? ""));
    if (owners.includes(lower(toEmail))) return "already_gone";
    // The owner may have changed since the scan (an undo names the original one): act as today's.
    const owner = owners[0];
    const as = tokens.delegated && owner ? { subject: owner, asAdmin: false } : actor;
    const answer = await drive(
      as,
      "POST",
      `${path}/permissions`,
      // sendNotificationEmail must not be disabled for ownership transfers (Drive's own rule).
      { fields: "id", transferOwnership: true },
      { type: "user", role: "owner", emailAddress: toEmail },
    );
    return outcome(answer);
  }

  async function readGrant(grant: TWriteGrant): Promise<TGrantImage | null> {
    const answer = await directory<TGToken>("GET", grant);
    if ("notFound" in answer) return null;
    const token = answer.body;
    return {
      id: grant.id,
      extra: {
        userKey: token.userKey ?? grant.userEmail,
        clientId: token.clientId ?? grant.clientId,
        displayText: token.displayText ?? null,
        scopes: token.scopes ?? [],
        anonymous: token.anonymous === true,
        nativeApp: token.nativeApp === true,
      },
    };
  }

  return {
    requirements: () => GOOGLE_WRITE_ACCESS.map((r) => ({ ...r })),
    reversibility: (action): TReversibility => reversibilityOf("google_workspace", action),
    readPermission,
    deletePermission,
    updatePermissionRole,
    restorePermission,
    restrictLink,
    transferOwnership,
    readGrant,
    revokeGrant: async (grant) => outcome(await directory("DELETE", grant)),
  };
}
