import { parseRetryAfter } from "@posture/platform";
import { sendWithRetry, type THttpOptions, type TQuery } from "../http/client";
import { apiErrorMessage } from "../http/errors";
import { RETRYABLE_STATUS } from "../http/retry";
import {
  EVERYONE_CLAIM_REASON,
  NEW_LINK_REASON,
  NO_RESTRICT_REASON,
  NO_TRANSFER_REASON,
  reversibilityOf,
} from "../reversibility";
import { SourceAuthError, SourceUnavailableError, type TPermission, type TPermissionRole } from "../types";
import {
  SourceWriteError,
  type TGrantImage,
  type TPermissionImage,
  type TReversibility,
  type TRoleChange,
  type TSourceWriter,
  type TWriteAction,
  type TWriteFile,
  type TWriteGrant,
  type TWriteOutcome,
  ranksAbove,
} from "../write";
import { MICROSOFT_WRITE_ACCESS } from "./access";
import type { TMicrosoftConfig, TMicrosoftEndpoints } from "./adapter";
import type {
  TMsAppRoleAssignment,
  TMsOrganization,
  TMsPermission,
  TMsPermissionGrant,
  TMsUser,
} from "./api-types";
import { microsoftTokenProvider, type TMicrosoftCredentials } from "./auth";
import { mapMsPermission, type TDirectory, userEmail } from "./map";

const SOURCE = "Microsoft 365";

/** The application permission each kind of call needs; a 403 names it. */
const NEEDS = {
  files: "Files.ReadWrite.All",
  users: "User.Read.All",
  consent: "DelegatedPermissionGrant.ReadWrite.All",
  appRead: "Application.Read.All",
  appWrite: "AppRoleAssignment.ReadWrite.All",
} as const;

/** TPermissionRole → Graph's driveItem permission roles (map.ts reads `write` as writer, else reader). */
const GRAPH_ROLES: Partial<Record<TPermissionRole, string[]>> = {
  reader: ["read"],
  writer: ["write"],
  owner: ["owner"],
};

/** A permission as Graph v1.0 returns it, with the fields the writer reads beyond the adapter's. */
type TGraphPermission = TMsPermission & {
  inheritedFrom?: unknown;
  expirationDateTime?: string | null;
  invitation?: { email?: string; signInRequired?: boolean };
};

type TAnswer = { status: number; body: unknown };

type TDelegatedImage = {
  kind: "delegated";
  clientId: string;
  consentType: string;
  principalId: string | null;
  resourceId: string;
  scope: string;
};

type TAppRoleImage = {
  kind: "appRole";
  principalId: string;
  resourceId: string;
  appRoleIds: string[];
};

const APP_ROLE_GRANT = /^approle:([^:]+):([^:]+)$/;
/** map.ts names each grantee of a permission shared with several identities `<id>:<index>`. */
const COMPOUND_ID = /^(.+):(\d+)$/;

const enc = encodeURIComponent;
const errorCode = (body: unknown): string | undefined => {
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === "string" ? code : undefined;
};

function unsupported(message: string): SourceWriteError {
  return new SourceWriteError(400, "unsupported", `${SOURCE}: ${message}`);
}

/**
 * Microsoft 365 writes through Graph v1.0: driveItem permission get / delete / update (roles only)
 * and invite (undo of a delete), oauth2PermissionGrant get / delete / create, and a service
 * principal's app role assignments read / delete / create. Each call is retried by the connectors'
 * HTTP policy (429/5xx with Retry-After); what is left is a SourceWriteError in Graph's words.
 */
export function createMicrosoft365Writer(opts: {
  credentials: TMicrosoftCredentials;
  config?: TMicrosoftConfig;
  endpoints?: TMicrosoftEndpoints;
  http?: THttpOptions;
}): TSourceWriter {
  const config = opts.config ?? {};
  const http = opts.http ?? {};
  const tokens = microsoftTokenProvider(opts.credentials, {
    loginBaseUrl: opts.endpoints?.loginBaseUrl,
    http: opts.http,
  });
  const base = new URL(opts.endpoints?.graphBaseUrl ?? "https://graph.microsoft.com");

  function urlOf(pathOrUrl: string, query?: TQuery): string {
    const url = /^https?:\/\//.test(pathOrUrl)
      ? new URL(pathOrUrl)
      : new URL(base.pathname.replace(/\/$/, "") + pathOrUrl, base);
    // Next links come from Graph's answers; a link to another host would be handed our token.
    if (url.origin !== base.origin)
      throw new SourceUnavailableError(`Refusing to follow a link off ${base.origin}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  /**
   * One Graph call through the shared retry policy; its final answer, read. A 429 (or a 503 that
   * named a Retry-After) still answered after every attempt is a SourceWriteError carrying the
   * wait; other exhausted retries stay SourceUnavailableError.
   */
  async function call(
    method: "GET" | "POST" | "PATCH" | "DELETE",
    pathOrUrl: string,
    options: { query?: TQuery; body?: unknown } = {},
  ): Promise<TAnswer> {
    const url = urlOf(pathOrUrl, options.query);
    const doFetch = http.fetch ?? fetch;
    const seen: { last?: { status: number; retryAfter: string | null; body: unknown } } = {};
    const recording: typeof fetch = async (input, init) => {
      const response = await doFetch(input, init);
      seen.last = RETRYABLE_STATUS.has(response.status)
        ? {
            status: response.status,
            retryAfter: response.headers.get("retry-after"),
            body: await response
              .clone()
              .json()
              .catch(() => null),
          }
        : undefined;
      return response;
    };
    const build = async () => ({
      url,
      init: {
        method,
        headers: {
          authorization: `Bearer ${await tokens.getToken()}`,
          accept: "application/json",
          ...(options.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      },
    });
    const send = () => sendWithRetry(SOURCE, build, { ...http, fetch: recording });
    let response: Response;
    try {
      response = await send();
      if (response.status === 401) {
        // A cached token can be revoked or expire early; one fresh token decides.
        await response.body?.cancel();
        tokens.invalidate();
        response = await send();
      }
    } catch (error) {
      const last = seen.last;
      if (
        error instanceof SourceUnavailableError &&
        last &&
        (last.status === 429 || (last.status === 503 && last.retryAfter !== null))
      ) {
        throw new SourceWriteError(
          last.status,
          errorCode(last.body) ?? (last.status === 429 ? "TooManyRequests" : "serviceNotAvailable"),
          `${SOURCE}: still throttled after every retry (${apiErrorMessage(last.body, `HTTP ${last.status}`)})`,
          parseRetryAfter(last.retryAfter) ?? undefined,
        );
      }
      throw error;
    }
    const text = await response.text();
    let body: unknown = null;
    try {
      body = text === "" ? null : (JSON.parse(text) as unknown);
    } catch {
      body = null;
    }
    return { status: response.status, body };
  }

  /** A 2xx answer's body; anything else as the error the contract names (404s are the callers'). */
  function ok<T>(answer: TAnswer, needs: string): T {
    const { status, body } = answer;
    if (status >= 200 && status < 300) return body as T;
    const message = `${SOURCE}: ${apiErrorMessage(body, `HTTP ${status}`)} (HTTP ${status})`;
    if (status === 401) throw new SourceAuthError(message);
    const code = errorCode(body) ?? (status === 404 ? "itemNotFound" : "error");
    if (status === 403) {
      const feature = MICROSOFT_WRITE_ACCESS.find((r) => r.permission === needs)?.feature;
      throw new SourceWriteError(
        403,
        code,
        `${message}. The app needs the Microsoft Graph application permission ${needs}${feature ? ` (${feature})` : ""}, admin-consented.`,
      );
    }
    throw new SourceWriteError(status, code, message);
  }

  /** Every item of a Graph collection, following @odata.nextLink; null when the parent is gone (404). */
  async function listAll<T>(path: string, needs: string, query?: TQuery): Promise<T[] | null> {
    const items: T[] = [];
    let next: string | undefined = path;
    let first = true;
    while (next) {
      const answer = await call("GET", next, first ? { query } : {});
      if (answer.status === 404) return null;
      const page = ok<{ value?: T[]; "@odata.nextLink"?: string }>(answer, needs);
      items.push(...(page.value ?? []));
      next = page["@odata.nextLink"];
      first = false;
    }
    return items;
  }

  // ---- files ----

  // A OneDrive file's store row has no drive id (map.ts: null for a personal drive): its owner's
  // default drive is looked up, by UPN first, then by mail (which may differ), once per owner.
  const ownerDrives = new Map<string, string | null>();
  async function driveOf(file: TWriteFile): Promise<string | null> {
    if (file.driveId) return file.driveId;
    const email = file.ownerEmail.toLowerCase();
    if (!email) return null;
    const known = ownerDrives.get(email);
    if (known !== undefined) return known;
    const driveOfUser = async (user: string) => {
      const answer = await call("GET", `/v1.0/users/${enc(user)}/drive`, { query: { $select: "id" } });
      if (answer.status === 404) return null;
      return ok<{ id?: string }>(answer, NEEDS.files).id ?? null;
    };
    let driveId = await driveOfUser(email);
    if (!driveId) {
      const users = await listAll<TMsUser>("/v1.0/users", NEEDS.users, {
        $filter: `mail eq '${email.replace(/'/g, "''")}'`,
        $select: "id,mail",
      });
      const user = (users ?? []).find((u) => (u.mail ?? "").toLowerCase() === email);
      driveId = user?.id ? await driveOfUser(user.id) : null;
    }
    ownerDrives.set(email, driveId);
    return driveId;
  }

  const permissionPath = (driveId: string, itemId: string, permissionId: string) =>
    `/v1.0/drives/${enc(driveId)}/items/${enc(itemId)}/permissions/${enc(permissionId)}`;

  async function getPermission(
    driveId: string,
    itemId: string,
    id: string,
  ): Promise<TGraphPermission | null> {
    const answer = await call("GET", permissionPath(driveId, itemId, id));
    if (answer.status === 404) return null;
    return ok<TGraphPermission>(answer, NEEDS.files);
  }

  type TLocated = { driveId: string; graphId: string; index: number | null; permission: TGraphPermission };

  /** The Graph permission behind a TPermission id (a grantee of a shared link: `<id>:<index>`). */
  async function locate(file: TWriteFile, permissionId: string): Promise<TLocated | null> {
    const driveId = await driveOf(file);
    if (!driveId) return null;
    const whole = await getPermission(driveId, file.id, permissionId);
    if (whole) return { driveId, graphId: permissionId, index: null, permission: whole };
    const compound = COMPOUND_ID.exec(permissionId);
    if (!compound?.[1]) return null;
    const permission = await getPermission(driveId, file.id, compound[1]);
    const index = Number(compound[2]);
    if (!permission || (permission.grantedToIdentitiesV2?.length ?? 0) <= index) return null;
    return { driveId, graphId: compound[1], index, permission };
  }

  let domainOnce: Promise<string> | undefined;
  const tenantDomain = () => {
    domainOnce ??= (async () => {
      if (config.domain) return config.domain.toLowerCase();
      const org = ok<{ value?: TMsOrganization[] }>(
        await call("GET", "/v1.0/organization", { query: { $select: "id,verifiedDomains" } }),
        NEEDS.users,
      ).value?.[0];
      const domains = org?.verifiedDomains ?? [];
      return ((domains.find((d) => d.isDefault) ?? domains[0])?.name ?? "").toLowerCase();
    })().catch((error: unknown) => {
      domainOnce = undefined;
      throw error;
    });
    return domainOnce;
  };

  /** The users a permission names (by object id or login name), looked up one by one. */
  async function directoryFor(permission: TGraphPermission, domain: string): Promise<TDirectory> {
    const ids = new Set<string>();
    const logins = new Set<string>();
    mapMsPermission(permission, domain, {
      byId: (id) => void (id && ids.add(id)),
      byLogin: (upn) => void logins.add(upn),
    });
    const emails = new Map<string, string>();
    for (const key of [...ids, ...logins]) {
      const answer = await call("GET", `/v1.0/users/${enc(key)}`, {
        query: { $select: "id,mail,userPrincipalName" },
      });
      if (answer.status === 404) continue;
      emails.set(key.toLowerCase(), userEmail(ok<TMsUser>(answer, NEEDS.users)));
    }
    return {
      byId: (id) => (id ? emails.get(id.toLowerCase()) : undefined),
      byLogin: (upn) => emails.get(upn.toLowerCase()),
    };
  }

  function graphRoles(role: TPermissionRole): string[] {
    const roles = GRAPH_ROLES[role];
    if (!roles) throw unsupported(`a driveItem permission has no "${role}" role in Graph v1.0.`);
    return roles;
  }

  const sameRoles = (a: string[] | undefined, b: string[]) =>
    (a ?? []).length === b.length && b.every((r) => (a ?? []).includes(r));
  /** The highest role a driveItem permission's Graph roles give. */
  const topRole = (roles: string[] | undefined): TPermissionRole =>
    (roles ?? []).includes("owner") ? "owner" : (roles ?? []).includes("write") ? "writer" : "reader";

  async function readPermission(file: TWriteFile, permissionId: string): Promise<TPermissionImage | null> {
    const located = await locate(file, permissionId);
    if (!located) return null;
    const { permission } = located;
    const domain = await tenantDomain();
    const mapped = mapMsPermission(permission, domain, await directoryFor(permission, domain));
    const fallback: TPermission = {
      id: permissionId,
      type: "group",
      role: (permission.roles ?? []).includes("write") ? "writer" : "reader",
    };
    const image = mapped.find((p) => p.id === permissionId) ?? fallback;
    const extra: Record<string, unknown> = {
      driveId: located.driveId,
      graphId: located.graphId,
      roles: permission.roles ?? [],
    };
    for (const key of [
      "link",
      "grantedToV2",
      "grantedToIdentitiesV2",
      "invitation",
      "inheritedFrom",
    ] as const) {
      if (permission[key] !== undefined && permission[key] !== null) extra[key] = permission[key];
    }
    if (permission.expirationDateTime) extra.expirationDateTime = permission.expirationDateTime;
    return { ...image, extra };
  }

  async function deletePermission(file: TWriteFile, permissionId: string): Promise<TWriteOutcome> {
    const driveId = await driveOf(file);
    if (!driveId) return "already_gone";
    const answer = await call("DELETE", permissionPath(driveId, file.id, permissionId));
    if (answer.status === 404) {
      // One grantee of a link shared with several people: v1.0 can only delete the whole link
      // (revokeGrants is beta), which would cut off the others too.
      const located = COMPOUND_ID.test(permissionId) ? await locate(file, permissionId) : null;
      if (located) {
        throw unsupported(
          `permission ${located.graphId} is shared with ${located.permission.grantedToIdentitiesV2?.length ?? 0} people; Graph v1.0 cannot remove one of them without deleting it for all.`,
        );
      }
      return "already_gone";
    }
    ok(answer, NEEDS.files);
    return "applied";
  }

  async function updatePermissionRole(
    file: TWriteFile,
    permissionId: string,
    role: TPermissionRole,
    how: TRoleChange = "lower",
  ): Promise<TWriteOutcome> {
    const roles = graphRoles(role);
    const located = await locate(file, permissionId);
    if (!located) return "already_gone";
    const { permission } = located;
    if (located.index !== null || permission.link) {
      throw unsupported(
        "a sharing link's access is its type, fixed when the link was made: Graph cannot change it (remove the link instead).",
      );
    }
    // A downgrade compares by rank: a permission already below the role is never raised to it.
    const already =
      how === "lower" ? !ranksAbove(topRole(permission.roles), role) : sameRoles(permission.roles, roles);
    if (already) return "already_gone";
    const answer = await call("PATCH", permissionPath(located.driveId, file.id, located.graphId), {
      body: { roles },
    });
    if (answer.status === 404) return "already_gone";
    ok(answer, NEEDS.files);
    return "applied";
  }

  async function restorePermission(file: TWriteFile, image: TPermissionImage): Promise<{ id: string }> {
    const extra = image.extra ?? {};
    // A sharing link comes back only as a new link (a new URL); an Everyone claim's grant (a
    // `domain` permission that is no link) cannot be named in an invitation at all.
    if (image.type === "anyone" || (image.type === "domain" && extra.link !== undefined))
      throw unsupported(NEW_LINK_REASON);
    if (image.type === "domain" || image.everyone !== undefined) throw unsupported(EVERYONE_CLAIM_REASON);
    const identity = (extra.grantedToV2 ?? {}) as TMsPermission["grantedToV2"];
    const groupId = identity?.group?.id;
    const recipient = image.emailAddress
      ? { email: image.emailAddress }
      : groupId
        ? { objectId: groupId }
        : null;
    if (!recipient) throw unsupported(`permission ${image.id} names no user or group Graph can invite.`);
    const roles = graphRoles(image.role);
    if (roles.includes("owner")) throw unsupported("an owner permission cannot be granted by invitation.");
    const driveId = (await driveOf(file)) ?? (typeof extra.driveId === "string" ? extra.driveId : null);
    if (!driveId) throw new SourceWriteError(404, "itemNotFound", `${SOURCE}: the file's drive is gone.`);
    const answer = await call("POST", `/v1.0/drives/${enc(driveId)}/items/${enc(file.id)}/invite`, {
      body: { recipients: [recipient], roles, requireSignIn: true, sendInvitation: false },
    });
    const created = ok<{ value?: TGraphPermission[] }>(answer, NEEDS.files).value?.[0];
    if (!created?.id) throw new SourceUnavailableError(`${SOURCE}: invite returned no permission`);
    return { id: created.id };
  }

  // ---- app grants ----

  async function appRoleAssignments(
    principalId: string,
    resourceId: string,
  ): Promise<TMsAppRoleAssignment[]> {
    const all = await listAll<TMsAppRoleAssignment>(
      `/v1.0/servicePrincipals/${enc(principalId)}/appRoleAssignments`,
      NEEDS.appRead,
    );
    return (all ?? []).filter((a) => a.resourceId === resourceId && a.id && a.appRoleId);
  }

  async function readGrant(grant: TWriteGrant): Promise<TGrantImage | null> {
    const appRole = APP_ROLE_GRANT.exec(grant.id);
    if (appRole?.[1] && appRole[2]) {
      const assignments = await appRoleAssignments(appRole[1], appRole[2]);
      if (assignments.length === 0) return null;
      const extra: TAppRoleImage = {
        kind: "appRole",
        principalId: appRole[1],
        resourceId: appRole[2],
        appRoleIds: [...new Set(assignments.map((a) => a.appRoleId ?? ""))].sort(),
      };
      return { id: grant.id, extra };
    }
    const answer = await call("GET", `/v1.0/oauth2PermissionGrants/${enc(grant.id)}`);
    if (answer.status === 404) return null;
    const found = ok<TMsPermissionGrant>(answer, NEEDS.consent);
    const extra: TDelegatedImage = {
      kind: "delegated",
      clientId: found.clientId ?? "",
      consentType: found.consentType ?? "Principal",
      principalId: found.principalId ?? null,
      resourceId: found.resourceId ?? "",
      scope: found.scope ?? "",
    };
    return { id: found.id ?? grant.id, extra };
  }

  async function revokeGrant(grant: TWriteGrant): Promise<TWriteOutcome> {
    const appRole = APP_ROLE_GRANT.exec(grant.id);
    if (appRole?.[1] && appRole[2]) {
      const resourceId = appRole[2];
      let deleted = 0;
      for (const assignment of await appRoleAssignments(appRole[1], resourceId)) {
        const path = `/v1.0/servicePrincipals/${enc(resourceId)}/appRoleAssignedTo/${enc(assignment.id ?? "")}`;
        const answer = await call("DELETE", path);
        if (answer.status === 404) continue;
        ok(answer, NEEDS.appWrite);
        deleted++;
      }
      return deleted > 0 ? "applied" : "already_gone";
    }
    const answer = await call("DELETE", `/v1.0/oauth2PermissionGrants/${enc(grant.id)}`);
    if (answer.status === 404) return "already_gone";
    ok(answer, NEEDS.consent);
    return "applied";
  }

  async function restoreGrant(image: TGrantImage): Promise<{ id: string }> {
    const extra = image.extra as Partial<TDelegatedImage> | Partial<TAppRoleImage>;
    if (extra.kind === "appRole") {
      const { principalId = "", resourceId = "", appRoleIds = [] } = extra;
      const present = new Set((await appRoleAssignments(principalId, resourceId)).map((a) => a.appRoleId));
      for (const appRoleId of appRoleIds.filter((id) => !present.has(id))) {
        const answer = await call("POST", `/v1.0/servicePrincipals/${enc(resourceId)}/appRoleAssignedTo`, {
          body: { principalId, resourceId, appRoleId },
        });
        ok(answer, NEEDS.appWrite);
      }
      return { id: `approle:${principalId}:${resourceId}` };
    }
    if (extra.kind !== "delegated") throw unsupported(`grant image ${image.id} is not one this writer read.`);
    const body = {
      clientId: extra.clientId,
      consentType: extra.consentType,
      ...(extra.consentType === "Principal" ? { principalId: extra.principalId } : {}),
      resourceId: extra.resourceId,
      scope: extra.scope,
    };
    const answer = await call("POST", "/v1.0/oauth2PermissionGrants", { body });
    if (answer.status === 409) {
      // Granted back already (one grant per client, resource and principal): that grant is the undo.
      const grants = await listAll<TMsPermissionGrant>("/v1.0/oauth2PermissionGrants", NEEDS.consent, {
        $filter: `clientId eq '${(extra.clientId ?? "").replace(/'/g, "''")}'`,
      });
      const existing = (grants ?? []).find(
        (g) =>
          g.resourceId === extra.resourceId &&
          g.consentType === extra.consentType &&
          (extra.consentType !== "Principal" || g.principalId === extra.principalId),
      );
      if (existing?.id) return { id: existing.id };
    }
    const created = ok<TMsPermissionGrant>(answer, NEEDS.consent);
    if (!created.id) throw new SourceUnavailableError(`${SOURCE}: the new grant came back without an id`);
    return { id: created.id };
  }

  return {
    requirements: () => MICROSOFT_WRITE_ACCESS.map((r) => ({ ...r })),
    reversibility: (action: TWriteAction, permission?: TPermission): TReversibility =>
      reversibilityOf("microsoft_365", action, permission),
    readPermission,
    deletePermission,
    updatePermissionRole,
    restorePermission,
    transferOwnership: () => Promise.reject(unsupported(NO_TRANSFER_REASON)),
    // PATCH takes `roles` only ("Only the roles property can be modified this way").
    restrictLink: () => Promise.reject(unsupported(NO_RESTRICT_REASON)),
    readGrant,
    revokeGrant,
    restoreGrant,
  };
}
