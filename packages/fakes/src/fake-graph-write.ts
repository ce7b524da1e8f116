import { randomBytes } from "node:crypto";
import {
  type TMsAppRoleAssignment,
  type TMsPermission,
  type TMsPermissionGrant,
} from "@posture/connectors/wire";
import { type TGraphFixture, type TGraphRoute } from "./fake-graph";
import { type TGraphTenant } from "./fake-graph-tenant";
import { type TFakeRequest, type TFakeResponse } from "./fake-server";
import { graphError } from "./graph-errors";

// The Graph v1.0 writes remediation makes (microsoft/write.ts), and the single-object reads it adds,
// served by the Graph fake as strictly as Graph: each changes the fake tenant (so the adapter's next
// read sees it), refuses an unknown item, permission, grant or assignment (404), an app without
// one of the application permissions graph-permissions.json lists for the path (403), and a body
// carrying anything the action does not take (400).

/** Application permissions graph-permissions.json lists for each path (only those that reach all data). */
export const GRAPH_WRITE_ROUTE_PERMISSIONS = {
  "GET /users/{id}": ["User.Read.All", "User.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"],
  "GET /users/{id}/drive": ["Files.Read.All", "Files.ReadWrite.All", "Sites.Read.All", "Sites.ReadWrite.All"],
  "GET /drives/{id}/items/{id}/permissions/{id}": [
    "Files.Read.All",
    "Files.ReadWrite.All",
    "Sites.Read.All",
    "Sites.ReadWrite.All",
  ],
  "DELETE /drives/{id}/items/{id}/permissions/{id}": ["Files.ReadWrite.All", "Sites.ReadWrite.All"],
  "PATCH /drives/{id}/items/{id}/permissions/{id}": ["Files.ReadWrite.All", "Sites.ReadWrite.All"],
  "POST /drives/{id}/items/{id}/invite": ["Files.ReadWrite.All", "Sites.ReadWrite.All"],
  "GET /oauth2PermissionGrants/{id}": [
    "DelegatedPermissionGrant.ReadWrite.All",
    "Directory.Read.All",
    "Directory.ReadWrite.All",
  ],
  "DELETE /oauth2PermissionGrants/{id}": [
    "DelegatedPermissionGrant.ReadWrite.All",
    "Directory.ReadWrite.All",
  ],
  "POST /oauth2PermissionGrants": ["DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"],
  "GET /servicePrincipals/{id}/appRoleAssignments": [
    "Application.Read.All",
    "Application.ReadWrite.All",
    "Directory.Read.All",
    "Directory.ReadWrite.All",
  ],
  "DELETE /servicePrincipals/{id}/appRoleAssignedTo/{id}": [
    "AppRoleAssignment.ReadWrite.All",
    "Application.ReadWrite.All",
  ],
  // graph-permissions.json also lists Application.Read.All and Directory.Read.All here, which the
  // reference grants only together with AppRoleAssignment.ReadWrite.All: left out.
  "POST /servicePrincipals/{id}/appRoleAssignedTo": [
    "AppRoleAssignment.ReadWrite.All",
    "Application.ReadWrite.All",
  ],
} as const satisfies Record<string, readonly string[]>;

/** Parameters of driveItem: invite (graph-v1.0-Prod.csdl). */
const INVITE_PARAMETERS = [
  "requireSignIn",
  "roles",
  "sendInvitation",
  "message",
  "recipients",
  "retainInheritedPermissions",
  "expirationDateTime",
  "password",
];
const GRANT_PROPERTIES = ["clientId", "consentType", "principalId", "resourceId", "scope"];
const ASSIGNMENT_PROPERTIES = ["principalId", "resourceId", "appRoleId"];
const DRIVE_ROLES = ["read", "write"];

/** SharePoint's refusal of a drive write to an app without write access. */
const driveDenied = () =>
  graphError(
    403,
    "accessDenied",
    "Access denied. You do not have permission to perform this action or access this resource.",
  );
const itemNotFound = () => graphError(404, "itemNotFound", "The resource could not be found.");
const invalidRequest = (message: string) => graphError(400, "invalidRequest", message);
const directoryNotFound = (id: string) =>
  graphError(
    404,
    "Request_ResourceNotFound",
    `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`,
  );
const directoryBadRequest = (message: string) => graphError(400, "Request_BadRequest", message);

/** "Only sharing permissions that aren't inherited can be deleted. The inheritedFrom property must be null." */
const inherited = (permission: TMsPermission) =>
  Boolean((permission as TMsPermission & { inheritedFrom?: unknown }).inheritedFrom);
const inheritedRefusal = () =>
  invalidRequest("The permission is inherited from a parent folder: change it where it is granted.");

const newId = () => randomBytes(24).toString("base64url");
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export type TGraphWriteContext = {
  fixture: TGraphFixture;
  tenant: TGraphTenant;
  select: <T extends object>(item: T, q: URLSearchParams, defaults?: string[]) => Partial<T>;
  userDefaults: string[];
  now: () => number;
};

/** The write routes (and the single-object reads the writer adds), in fake-graph.ts's route shape. */
export function graphWriteRoutes(ctx: TGraphWriteContext): Array<[string, RegExp, TGraphRoute]> {
  const { fixture, tenant, select } = ctx;
  const param = (m: RegExpExecArray, i: number) => decodeURIComponent(m[i] ?? "");
  const userOf = (key: string) => {
    const k = key.toLowerCase();
    return fixture.users.find((u) => u.id === key || (u.userPrincipalName ?? "").toLowerCase() === k);
  };
  const itemOf = (m: RegExpExecArray) =>
    fixture.drives.find((d) => d.id === param(m, 1))?.items.find((i) => i.id === param(m, 2) && !i.deleted);
  const spOf = (id: string) => fixture.servicePrincipals.find((s) => s.id === id);

  function invite(req: TFakeRequest, m: RegExpExecArray): TFakeResponse {
    const item = itemOf(m);
    if (!item) return itemNotFound();
    const body = req.json;
    if (!isObject(body)) return invalidRequest("The request body is not a valid invite request.");
    const unknown = Object.keys(body).find((k) => !INVITE_PARAMETERS.includes(k));
    if (unknown) return invalidRequest(`The parameter '${unknown}' is not valid for the action 'invite'.`);
    const recipients = body.recipients;
    if (!Array.isArray(recipients) || recipients.length === 0)
      return invalidRequest("At least one recipient is required.");
    const roles = body.roles;
    if (!Array.isArray(roles) || roles.length === 0 || roles.some((r) => !DRIVE_ROLES.includes(String(r))))
      return invalidRequest("Invalid roles: an invitation grants 'read' or 'write'.");
    if (body.requireSignIn !== true && body.sendInvitation !== true)
      return invalidRequest("Either requireSignIn or sendInvitation must be true.");
    const permissions = [...(item.permissions ?? [])];
    const created: TMsPermission[] = [];
    for (const recipient of recipients as unknown[]) {
      if (!isObject(recipient)) return invalidRequest("A recipient must be an object.");
      const email = typeof recipient.email === "string" ? recipient.email.toLowerCase() : undefined;
      const objectId = typeof recipient.objectId === "string" ? recipient.objectId : undefined;
      if (!email && !objectId) return invalidRequest("A recipient needs an email or an objectId.");
      const member = email
        ? fixture.users.find((u) =>
            [u.mail, u.userPrincipalName].some((x) => (x ?? "").toLowerCase() === email),
          )
        : fixture.users.find((u) => u.id === objectId);
      // A group is named by its object id or its mail, and Graph answers with the group it resolved.
      const group = (fixture.groups ?? []).find(
        (g) =>
          (objectId !== undefined && g.id === objectId) || (email && (g.mail ?? "").toLowerCase() === email),
      );
      if (!email && !group && !member) return invalidRequest("One or more users could not be resolved.");
      const grantedToV2: TMsPermission["grantedToV2"] = group
        ? { group: { id: group.id, ...(group.displayName ? { displayName: group.displayName } : {}) } }
        : member
          ? {
              user: { id: member.id, displayName: member.displayName ?? undefined },
              siteUser: {
                displayName: member.displayName ?? undefined,
                loginName: `i:0#.f|membership|${(member.userPrincipalName ?? "").toLowerCase()}`,
              },
            }
          : email
            ? {
                siteUser: {
                  displayName: email,
                  loginName: `i:0#.f|membership|urn%3aspo%3aguest#${email}`,
                },
              }
            : {};
      // A direct grant the recipient already holds is updated, not duplicated.
      const same = (p: TMsPermission) =>
        !p.link &&
        ((member && p.grantedToV2?.user?.id === member.id) ||
          (!member && !group && email && p.invitation?.email?.toLowerCase() === email) ||
          (group && p.grantedToV2?.group?.id === group.id));
      const existing = permissions.find(same);
      const permission: TMsPermission = existing
        ? { ...existing, roles: roles.map(String) }
        : {
            id: newId(),
            roles: roles.map(String),
            grantedToV2,
            // Graph's sharingInvitation also says whether the recipient must sign in.
            ...(email && !group
              ? { invitation: { email, signInRequired: true } as TMsPermission["invitation"] }
              : {}),
          };
      if (existing) permissions[permissions.indexOf(existing)] = permission;
      else permissions.push(permission);
      created.push(permission);
    }
    tenant.setPermissions(param(m, 1), param(m, 2), permissions);
    return { status: 200, body: { "@odata.context": "$metadata#Collection(permission)", value: created } };
  }

  function patchPermission(req: TFakeRequest, m: RegExpExecArray): TFakeResponse {
    const item = itemOf(m);
    const permission = item?.permissions?.find((p) => p.id === param(m, 3));
    if (!item || !permission) return itemNotFound();
    if (inherited(permission)) return inheritedRefusal();
    const body = req.json;
    // "Only the roles property can be modified this way."
    if (!isObject(body) || Object.keys(body).some((k) => k !== "roles") || !Array.isArray(body.roles))
      return invalidRequest("Only the roles property of a permission can be updated.");
    const roles = body.roles as unknown[];
    if (roles.length === 0 || roles.some((r) => !DRIVE_ROLES.includes(String(r))))
      return invalidRequest("Invalid roles: a permission's role is 'read' or 'write'.");
    const updated = { ...permission, roles: roles.map(String) };
    tenant.setPermissions(
      param(m, 1),
      param(m, 2),
      (item.permissions ?? []).map((p) => (p === permission ? updated : p)),
    );
    return { status: 200, body: updated };
  }

  function createGrant(req: TFakeRequest): TFakeResponse {
    const body = req.json;
    if (!isObject(body)) return directoryBadRequest("The request body is not an oAuth2PermissionGrant.");
    const unknown = Object.keys(body).find((k) => !GRANT_PROPERTIES.includes(k));
    if (unknown)
      return directoryBadRequest(
        `Property '${unknown}' does not exist on type 'microsoft.graph.oAuth2PermissionGrant'.`,
      );
    const { clientId, consentType, principalId, resourceId, scope } = body;
    if (typeof clientId !== "string" || !spOf(clientId))
      return directoryBadRequest(
        "Invalid value specified for property 'clientId' of resource 'OAuth2PermissionGrant'.",
      );
    if (typeof resourceId !== "string" || !spOf(resourceId))
      return directoryBadRequest(
        "Invalid value specified for property 'resourceId' of resource 'OAuth2PermissionGrant'.",
      );
    if (consentType !== "Principal" && consentType !== "AllPrincipals")
      return directoryBadRequest(
        "Invalid value specified for property 'consentType' of resource 'OAuth2PermissionGrant'.",
      );
    if (consentType === "Principal" && (typeof principalId !== "string" || !userOf(principalId)))
      return directoryBadRequest(
        "Invalid value specified for property 'principalId' of resource 'OAuth2PermissionGrant'.",
      );
    if (consentType === "AllPrincipals" && principalId !== undefined && principalId !== null)
      return directoryBadRequest("principalId must be null when consentType is AllPrincipals.");
    if (scope !== undefined && typeof scope !== "string")
      return directoryBadRequest(
        "Invalid value specified for property 'scope' of resource 'OAuth2PermissionGrant'.",
      );
    const principal = consentType === "Principal" ? (principalId as string) : null;
    if (
      fixture.permissionGrants.some(
        (g) =>
          g.clientId === clientId &&
          g.resourceId === resourceId &&
          g.consentType === consentType &&
          (g.principalId ?? null) === principal,
      )
    ) {
      return graphError(409, "Request_MultipleObjectsWithSameKeyValue", "Permission entry already exists.");
    }
    const grant: TMsPermissionGrant = {
      id: newId(),
      clientId,
      consentType,
      principalId: principal,
      resourceId,
      scope: scope ?? "",
    };
    fixture.permissionGrants.push(grant);
    return {
      status: 201,
      body: { "@odata.context": "$metadata#oauth2PermissionGrants/$entity", ...grant },
    };
  }

  function createAssignment(req: TFakeRequest, m: RegExpExecArray): TFakeResponse {
    const resource = spOf(param(m, 1));
    if (!resource) return directoryNotFound(param(m, 1));
    const body = req.json;
    if (!isObject(body)) return directoryBadRequest("The request body is not an appRoleAssignment.");
    const unknown = Object.keys(body).find((k) => !ASSIGNMENT_PROPERTIES.includes(k));
    if (unknown)
      return directoryBadRequest(
        `Property '${unknown}' does not exist on type 'microsoft.graph.appRoleAssignment'.`,
      );
    const { principalId, resourceId, appRoleId } = body;
    if (resourceId !== resource.id)
      return directoryBadRequest(
        "Invalid value specified for property 'resourceId' of resource 'AppRoleAssignment'.",
      );
    if (typeof appRoleId !== "string" || !(resource.appRoles ?? []).some((r) => r.id === appRoleId))
      return directoryBadRequest(
        `Permission being assigned was not found on application '${resource.appId ?? resource.id}'.`,
      );
    const principal = typeof principalId === "string" ? spOf(principalId) : undefined;
    if (!principal)
      return directoryBadRequest(
        "Invalid value specified for property 'principalId' of resource 'AppRoleAssignment'.",
      );
    if (
      fixture.appRoleAssignments.some(
        (a) => a.principalId === principalId && a.resourceId === resourceId && a.appRoleId === appRoleId,
      )
    ) {
      return directoryBadRequest("Permission being assigned already exists on the object");
    }
    const assignment: TMsAppRoleAssignment & { resourceDisplayName?: string | null } = {
      id: newId(),
      appRoleId,
      createdDateTime: new Date(ctx.now()).toISOString(),
      principalId: principal.id,
      principalType: "ServicePrincipal",
      principalDisplayName: principal.displayName ?? null,
      resourceId: resource.id,
      resourceDisplayName: resource.displayName ?? null,
    };
    fixture.appRoleAssignments.push(assignment);
    return {
      status: 201,
      body: { "@odata.context": "$metadata#appRoleAssignments/$entity", ...assignment },
    };
  }

  const remove = <T>(list: T[], which: T) => list.splice(list.indexOf(which), 1);

  return [
    [
      "GET",
      /^\/v1\.0\/users\/([^/]+)$/,
      {
        key: "GET /users/{id}",
        entity: "user",
        options: ["$select"],
        serve: (req, _b, m) => {
          const user = userOf(param(m, 1));
          return user
            ? { status: 200, body: select(user, req.query, ctx.userDefaults) }
            : directoryNotFound(param(m, 1));
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/users\/([^/]+)\/drive$/,
      {
        key: "GET /users/{id}/drive",
        entity: "drive",
        options: ["$select"],
        serve: (req, _b, m) => {
          const user = userOf(param(m, 1));
          if (!user) return directoryNotFound(param(m, 1));
          const drive = fixture.drives.find(
            (d) => d.driveType !== "documentLibrary" && d.owner?.user?.id === user.id,
          );
          if (!drive) return graphError(404, "itemNotFound", "User's mysite not found.");
          const { items: _i, siteId: _s, ...rest } = drive;
          return { status: 200, body: select(rest, req.query) };
        },
      },
    ],
    [
      "GET",
      /^\/v1\.0\/drives\/([^/]+)\/items\/([^/]+)\/permissions\/([^/]+)$/,
      {
        key: "GET /drives/{id}/items/{id}/permissions/{id}",
        entity: "permission",
        options: ["$select"],
        serve: (req, _b, m) => {
          const permission = itemOf(m)?.permissions?.find((p) => p.id === param(m, 3));
          return permission ? { status: 200, body: select(permission, req.query) } : itemNotFound();
        },
      },
    ],
    [
      "DELETE",
      /^\/v1\.0\/drives\/([^/]+)\/items\/([^/]+)\/permissions\/([^/]+)$/,
      {
        key: "DELETE /drives/{id}/items/{id}/permissions/{id}",
        options: [],
        denied: driveDenied,
        serve: (_req, _b, m) => {
          const item = itemOf(m);
          const permission = item?.permissions?.find((p) => p.id === param(m, 3));
          if (!item || !permission) return itemNotFound();
          if (inherited(permission)) return inheritedRefusal();
          tenant.setPermissions(
            param(m, 1),
            param(m, 2),
            (item.permissions ?? []).filter((p) => p !== permission),
          );
          return { status: 204 };
        },
      },
    ],
    [
      "PATCH",
      /^\/v1\.0\/drives\/([^/]+)\/items\/([^/]+)\/permissions\/([^/]+)$/,
      {
        key: "PATCH /drives/{id}/items/{id}/permissions/{id}",
        options: [],
        denied: driveDenied,
        serve: (req, _b, m) => patchPermission(req, m),
      },
    ],
    [
      "POST",
      /^\/v1\.0\/drives\/([^/]+)\/items\/([^/]+)\/invite$/,
      {
        key: "POST /drives/{id}/items/{id}/invite",
        options: [],
        denied: driveDenied,
        serve: (req, _b, m) => invite(req, m),
      },
    ],
    [
      "GET",
      /^\/v1\.0\/oauth2PermissionGrants\/([^/]+)$/,
      {
        key: "GET /oauth2PermissionGrants/{id}",
        entity: "oAuth2PermissionGrant",
        options: ["$select"],
        serve: (req, _b, m) => {
          const grant = fixture.permissionGrants.find((g) => g.id === param(m, 1));
          return grant ? { status: 200, body: select(grant, req.query) } : directoryNotFound(param(m, 1));
        },
      },
    ],
    [
      "DELETE",
      /^\/v1\.0\/oauth2PermissionGrants\/([^/]+)$/,
      {
        key: "DELETE /oauth2PermissionGrants/{id}",
        options: [],
        serve: (_req, _b, m) => {
          const grant = fixture.permissionGrants.find((g) => g.id === param(m, 1));
          if (!grant) return directoryNotFound(param(m, 1));
          remove(fixture.permissionGrants, grant);
          return { status: 204 };
        },
      },
    ],
    [
      "POST",
      /^\/v1\.0\/oauth2PermissionGrants$/,
      { key: "POST /oauth2PermissionGrants", options: [], serve: (req) => createGrant(req) },
    ],
    [
      "GET",
      /^\/v1\.0\/servicePrincipals\/([^/]+)\/appRoleAssignments$/,
      {
        key: "GET /servicePrincipals/{id}/appRoleAssignments",
        entity: "appRoleAssignment",
        options: ["$select", "$top", "$skiptoken"],
        serve: (req, baseUrl, m, _roles, collection) => {
          const id = param(m, 1);
          if (!spOf(id)) return directoryNotFound(id);
          return collection(
            req,
            baseUrl,
            fixture.appRoleAssignments.filter((a) => a.principalId === id),
            { maxTop: 999 },
          );
        },
      },
    ],
    [
      "DELETE",
      /^\/v1\.0\/servicePrincipals\/([^/]+)\/appRoleAssignedTo\/([^/]+)$/,
      {
        key: "DELETE /servicePrincipals/{id}/appRoleAssignedTo/{id}",
        options: [],
        serve: (_req, _b, m) => {
          const assignment = fixture.appRoleAssignments.find(
            (a) => a.id === param(m, 2) && a.resourceId === param(m, 1),
          );
          if (!spOf(param(m, 1)) || !assignment) return directoryNotFound(param(m, 2));
          remove(fixture.appRoleAssignments, assignment);
          return { status: 204 };
        },
      },
    ],
    [
      "POST",
      /^\/v1\.0\/servicePrincipals\/([^/]+)\/appRoleAssignedTo$/,
      {
        key: "POST /servicePrincipals/{id}/appRoleAssignedTo",
        options: [],
        serve: (req, _b, m) => createAssignment(req, m),
      },
    ],
  ];
}
