import type { TGUser } from "@posture/connectors/wire";
import {
  DIRECTORY_USERS_SCOPE,
  ORG_UNITS_SCOPE,
  POLICIES_SCOPE,
  ROLES_SCOPE,
  type TGAdminUser,
  type TGRole,
  type TGRoleAssignment,
  type TGOrgUnit,
  type TGPolicy,
} from "@posture/connectors/wire";
import type { TGoogleFixture } from "./fake-google";
import type { TFakeRequest, TFakeResponse } from "./fake-server";

// The Cloud Identity Policy API (`policies.list`, `policies.get`) and the Directory's org units,
// written from their references: CEL filter on `setting.type` / `customer`, pageSize 50 by default
// and 100 at most, a page token bound to its filter, and Google's error bodies.

/** The fake tenant's settings as the Cloud Identity Policy API and the Directory would hold them. */
export type TGoogleSettingsFixture = {
  /** The Admin SDK customer id (starts with "C"). */
  customerId: string;
  orgUnits: TGOrgUnit[];
  policies: TGPolicy[];
  /** Admin roles and their assignments (Directory role management). */
  roles?: TGRole[];
  roleAssignments?: TGRoleAssignment[];
  /** Scopes the domain-wide delegation lacks: reads needing them answer 403 PERMISSION_DENIED. */
  withheldScopes?: string[];
  /** Upper bound on policies per page, below the API's own, to force paging. */
  pageSize?: number;
};

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
};

/** Cloud Identity answers in the google.rpc.Status shape. */
function rpcError(code: number, message: string, details?: unknown[]): TFakeResponse {
  return {
    status: code,
    body: { error: { code, message, status: STATUS[code] ?? "UNKNOWN", ...(details ? { details } : {}) } },
  };
}

/** The Admin SDK answers in the older shape, with an `errors` list. */
function directoryError(code: number, message: string, reason: string): TFakeResponse {
  return {
    status: code,
    body: {
      error: {
        code,
        message,
        errors: [{ message, domain: "global", reason }],
        status: STATUS[code] ?? "UNKNOWN",
      },
    },
  };
}

const scopeInsufficient = (service: string, method: string) =>
  rpcError(403, "Request had insufficient authentication scopes.", [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
      domain: "googleapis.com",
      metadata: { service, method },
    },
  ]);

// Parameters every Google API accepts; anything else on these methods is refused, as Google does.
const SYSTEM_PARAMS = ["fields", "key", "alt", "prettyPrint", "quotaUser", "$.xgafv", "callback"];

function unknownParam(q: URLSearchParams, allowed: readonly string[]): string | undefined {
  return [...q.keys()].find((k) => !allowed.includes(k) && !SYSTEM_PARAMS.includes(k));
}

/** A CEL string literal: single or double quotes, with CEL's escapes; undefined when malformed. */
function celString(text: string): { value: string; rest: string } | undefined {
  const quote = text[0];
  if (quote !== "'" && quote !== '"') return undefined;
  let value = "";
  for (let i = 1; i < text.length; i++) {
    const ch = text[i];
    if (ch === quote) return { value, rest: text.slice(i + 1) };
    if (ch !== "\\") {
      value += ch;
      continue;
    }
    const next = text[++i];
    const escapes: Record<string, string> = {
      "\\": "\\",
      "'": "'",
      '"': '"',
      "`": "`",
      "?": "?",
      n: "\n",
      t: "\t",
      r: "\r",
    };
    if (next === undefined) return undefined;
    // The reference prints `'^settings/gmail\..*$'`: an escape CEL does not define keeps its backslash.
    value += escapes[next] ?? `\\${next}`;
  }
  return undefined;
}

type TFilter = { typePattern?: RegExp; customer?: string };

/**
 * The `filter` of policies.list: clauses `setting.type.matches(<regex>)` and
 * `customer == <name>`, at most one of each, joined by `&&`.
 */
function parseFilter(filter: string): TFilter | string {
  const parsed: TFilter = {};
  let rest = filter.trim();
  if (rest === "") return parsed;
  for (;;) {
    let match: RegExpExecArray | null;
    if ((match = /^setting\.type\.matches\(\s*/.exec(rest))) {
      if (parsed.typePattern) return "A maximum of one setting.type clause can be used.";
      const literal = celString(rest.slice(match[0].length));
      if (!literal) return "Invalid CEL string literal in setting.type.matches().";
      const close = /^\s*\)/.exec(literal.rest);
      if (!close) return "Expected ')' after the setting.type.matches() argument.";
      try {
        parsed.typePattern = new RegExp(literal.value);
      } catch {
        return `Invalid regular expression: ${literal.value}`;
      }
      rest = literal.rest.slice(close[0].length);
    } else if ((match = /^customer\s*==\s*/.exec(rest))) {
      if (parsed.customer !== undefined) return "A maximum of one customer clause can be used.";
      const literal = celString(rest.slice(match[0].length));
      if (!literal) return "Invalid CEL string literal in the customer clause.";
      parsed.customer = literal.value;
      rest = literal.rest;
    } else {
      return `Unsupported filter expression: ${rest}`;
    }
    rest = rest.trim();
    if (rest === "") return parsed;
    if (!rest.startsWith("&&")) return `Unsupported filter expression: ${rest}`;
    rest = rest.slice(2).trim();
  }
}

type TCursor = { offset: number; filter: string };
const encodeCursor = (c: TCursor) => Buffer.from(JSON.stringify(c)).toString("base64url");
function decodeCursor(token: string): TCursor | undefined {
  try {
    const c = JSON.parse(Buffer.from(token, "base64url").toString()) as Partial<TCursor>;
    return typeof c.offset === "number" && typeof c.filter === "string" ? (c as TCursor) : undefined;
  } catch {
    return undefined;
  }
}

const withheld = (fixture: TGoogleSettingsFixture, scope: string) =>
  (fixture.withheldScopes ?? []).includes(scope);

function listPolicies(fixture: TGoogleSettingsFixture, q: URLSearchParams): TFakeResponse {
  const unknown = unknownParam(q, ["filter", "pageSize", "pageToken"]);
  if (unknown)
    return rpcError(
      400,
      `Invalid JSON payload received. Unknown name "${unknown}": Cannot bind query parameter.`,
    );
  if (withheld(fixture, POLICIES_SCOPE))
    return scopeInsufficient(
      "cloudidentity.googleapis.com",
      "google.apps.cloudidentity.policies.v1.PoliciesService.ListPolicies",
    );
  const filterText = q.get("filter") ?? "";
  const filter = parseFilter(filterText);
  if (typeof filter === "string") return rpcError(400, `Invalid filter: ${filter}`);
  if (
    filter.customer !== undefined &&
    filter.customer !== "customers/my_customer" &&
    filter.customer !== `customers/${fixture.customerId}`
  )
    return rpcError(403, "The caller does not have permission");

  const rawSize = q.get("pageSize");
  const asked = rawSize === null ? 0 : Number(rawSize);
  if (!Number.isInteger(asked) || asked < 0)
    return rpcError(400, "Invalid value at 'page_size' (TYPE_INT32)");
  const size = Math.min(asked === 0 ? 50 : Math.min(asked, 100), fixture.pageSize ?? 100);

  let offset = 0;
  const token = q.get("pageToken");
  if (token) {
    const cursor = decodeCursor(token);
    if (!cursor) return rpcError(400, "Invalid page token.");
    // "When paginating, all other parameters provided to ListPolicies must match the call that provided the page token."
    if (cursor.filter !== filterText)
      return rpcError(400, "The page token does not match the request's filter.");
    offset = cursor.offset;
  }
  const matching = fixture.policies
    .map((p, i) => ({ ...p, name: p.name ?? `policies/fake${String(i).padStart(4, "0")}` }))
    .map((p) => ({
      ...p,
      customer: p.customer ?? `customers/${fixture.customerId}`,
      type: p.type ?? "ADMIN",
    }))
    .filter((p) => !filter.typePattern || filter.typePattern.test(p.setting?.type ?? ""));
  const page = matching.slice(offset, offset + size);
  const next =
    offset + size < matching.length ? encodeCursor({ offset: offset + size, filter: filterText }) : undefined;
  return { status: 200, body: { policies: page, ...(next ? { nextPageToken: next } : {}) } };
}

function getPolicy(fixture: TGoogleSettingsFixture, id: string): TFakeResponse {
  if (withheld(fixture, POLICIES_SCOPE))
    return scopeInsufficient(
      "cloudidentity.googleapis.com",
      "google.apps.cloudidentity.policies.v1.PoliciesService.GetPolicy",
    );
  const found = fixture.policies.find(
    (p, i) => (p.name ?? `policies/fake${String(i).padStart(4, "0")}`) === `policies/${id}`,
  );
  if (!found) return rpcError(404, `Policy policies/${id} not found.`);
  return { status: 200, body: { customer: `customers/${fixture.customerId}`, type: "ADMIN", ...found } };
}

function listOrgUnits(
  fixture: TGoogleSettingsFixture,
  customerId: string,
  q: URLSearchParams,
): TFakeResponse {
  const unknown = unknownParam(q, ["orgUnitPath", "type"]);
  if (unknown) return directoryError(400, `Invalid parameter: ${unknown}`, "invalidParameter");
  if (withheld(fixture, ORG_UNITS_SCOPE))
    return directoryError(403, "Request had insufficient authentication scopes.", "insufficientPermissions");
  if (customerId !== "my_customer" && customerId !== fixture.customerId)
    return directoryError(403, "Not Authorized to access this resource/api", "forbidden");
  const type = q.get("type") ?? "children";
  if (!["all", "children", "allIncludingParent"].includes(type))
    return directoryError(
      400,
      `Invalid value '${type}'. Values must match the following regular expression: 'all|allIncludingParent|children'`,
      "invalidParameter",
    );
  const asked = q.get("orgUnitPath") ?? "/";
  const parent = fixture.orgUnits.find(
    (o) =>
      o.orgUnitPath === asked || o.orgUnitId === asked || o.orgUnitId === `id:${asked.replace(/^id:/, "")}`,
  );
  if (!parent) return directoryError(404, "Org unit not found", "notFound");
  const base = parent.orgUnitPath === "/" ? "/" : `${parent.orgUnitPath}/`;
  const below = fixture.orgUnits.filter((o) => o !== parent && (o.orgUnitPath ?? "").startsWith(base));
  const units =
    type === "children"
      ? below.filter((o) => o.parentOrgUnitId === parent.orgUnitId)
      : type === "all"
        ? below
        : [parent, ...below];
  return {
    status: 200,
    body: {
      kind: "admin#directory#orgUnits",
      organizationUnits: units.map((o) => ({ kind: "admin#directory#orgUnit", ...o })),
    },
  };
}

/** Directory role management lists: `maxResults` within the method's bounds, offset page tokens. */
function listDirectoryItems<T>(
  fixture: TGoogleSettingsFixture,
  customerId: string,
  q: URLSearchParams,
  items: readonly T[],
  opts: { kind: string; max: number; allowed: readonly string[] },
): TFakeResponse {
  const unknown = unknownParam(q, ["maxResults", "pageToken", ...opts.allowed]);
  if (unknown) return directoryError(400, `Invalid parameter: ${unknown}`, "invalidParameter");
  if (withheld(fixture, ROLES_SCOPE))
    return directoryError(403, "Request had insufficient authentication scopes.", "insufficientPermissions");
  if (customerId !== "my_customer" && customerId !== fixture.customerId)
    return directoryError(403, "Not Authorized to access this resource/api", "forbidden");
  const raw = q.get("maxResults");
  const size = raw === null ? opts.max : Number(raw);
  if (!Number.isInteger(size) || size < 1 || size > opts.max)
    return directoryError(400, "Invalid Input: maxResults", "invalid");
  const token = q.get("pageToken");
  const offset = token
    ? Number(
        Buffer.from(token, "base64url")
          .toString()
          .replace(/^offset:/, ""),
      )
    : 0;
  if (!Number.isInteger(offset) || offset < 0)
    return directoryError(400, "Invalid Input: pageToken", "invalid");
  const next =
    offset + size < items.length ? Buffer.from(`offset:${offset + size}`).toString("base64url") : undefined;
  return {
    status: 200,
    body: {
      kind: opts.kind,
      items: items.slice(offset, offset + size),
      ...(next ? { nextPageToken: next } : {}),
    },
  };
}

/** The fake Google's routes for tenant settings; undefined for a path that is not one of them. */
export function googleSettingsRoute(
  fixture: TGoogleSettingsFixture | undefined,
  req: TFakeRequest,
): TFakeResponse | undefined {
  if (!fixture || req.method !== "GET") return undefined;
  if (req.path === "/v1/policies") return listPolicies(fixture, req.query);
  let match: RegExpExecArray | null;
  if ((match = /^\/v1\/policies\/([^/]+)$/.exec(req.path)))
    return getPolicy(fixture, decodeURIComponent(match[1] ?? ""));
  if ((match = /^\/admin\/directory\/v1\/customer\/([^/]+)\/roles$/.exec(req.path)))
    return listDirectoryItems(fixture, decodeURIComponent(match[1] ?? ""), req.query, fixture.roles ?? [], {
      kind: "admin#directory#roles",
      max: 100,
      allowed: [],
    });
  if ((match = /^\/admin\/directory\/v1\/customer\/([^/]+)\/roleassignments$/.exec(req.path))) {
    const q = req.query;
    const assignments = (fixture.roleAssignments ?? []).filter(
      (a) =>
        (!q.get("roleId") || a.roleId === q.get("roleId")) &&
        (!q.get("userKey") || a.assignedTo === q.get("userKey")),
    );
    return listDirectoryItems(fixture, decodeURIComponent(match[1] ?? ""), q, assignments, {
      kind: "admin#directory#roleAssignments",
      max: 200,
      allowed: ["roleId", "userKey", "includeIndirectRoleAssignments"],
    });
  }
  if ((match = /^\/admin\/directory\/v1\/customer\/([^/]+)\/orgunits$/.exec(req.path)))
    return listOrgUnits(fixture, decodeURIComponent(match[1] ?? ""), req.query);
  return undefined;
}

// --- Fixtures: a tenant where every CIS check passes, and one where every check fails ---

const ROOT = { orgUnitId: "id:03ph8a2z0root", orgUnitPath: "/", name: "Acme" };
const ORG_UNITS: TGOrgUnit[] = [
  ROOT,
  { orgUnitId: "id:03ph8a2z1adm", orgUnitPath: "/Admins", name: "Admins", parentOrgUnitId: ROOT.orgUnitId },
  { orgUnitId: "id:03ph8a2z2sal", orgUnitPath: "/Sales", name: "Sales", parentOrgUnitId: ROOT.orgUnitId },
  {
    orgUnitId: "id:03ph8a2z3emea",
    orgUnitPath: "/Sales/EMEA",
    name: "EMEA",
    parentOrgUnitId: "id:03ph8a2z2sal",
  },
];
const ou = (path: string) =>
  `orgUnits/${(ORG_UNITS.find((o) => o.orgUnitPath === path)?.orgUnitId ?? "").replace(/^id:/, "")}`;

type TPolicyRow = [setting: string, value: Record<string, unknown>, orgUnitPath?: string, group?: string];

const toPolicies = (rows: readonly TPolicyRow[]): TGPolicy[] =>
  rows.map(([setting, value, path = "/", group], i) => ({
    name: `policies/p${String(i).padStart(3, "0")}`,
    customer: "customers/C03az79cb",
    policyQuery: {
      query: `entity.org_units.exists(org_unit, org_unit.org_unit_id == orgUnitId('${ou(path).slice(9)}'))`,
      orgUnit: ou(path),
      ...(group ? { group } : {}),
      sortOrder: i + 1,
    },
    setting: { type: `settings/${setting}`, value },
    type: "ADMIN",
  }));

const RULES = [
  "User's password changed",
  "Government-backed attacks",
  "User suspended due to suspicious activity",
  "User granted Admin privilege",
  "Suspicious programmatic login",
  "Suspicious login",
  "Leaked password",
  "Gmail potential employee spoofing",
];

/** A system-defined alert rule's policy value, as Admin console > Rules keeps it. */
const alertRule = (
  displayName: string,
  state: "ACTIVE" | "INACTIVE",
  recipients: Array<Record<string, unknown>>,
): TPolicyRow => [
  "rule.system_defined_alerts",
  {
    displayName,
    state,
    action: { alertCenterAction: { alertCenterConfig: { severity: "MEDIUM" }, recipients } },
  },
];

// Weak: off, on without email, or emailing one address instead of all super admins.
const weakRule = (displayName: string, i: number): TPolicyRow =>
  i % 3 === 0
    ? alertRule(displayName, "INACTIVE", [{ allSuperAdmins: true }])
    : i % 3 === 1
      ? alertRule(displayName, "ACTIVE", [])
      : alertRule(displayName, "ACTIVE", [{ email: "secops@acme.test" }]);

const SECURE_ROWS: readonly TPolicyRow[] = [
  ["security.two_step_verification_enrollment", { allowEnrollment: true }],
  ["security.two_step_verification_enforcement", { enforcedFrom: "2024-01-15T00:00:00Z" }],
  ["security.two_step_verification_enforcement_factor", { allowedSignInFactorSet: "NO_TELEPHONY" }],
  // Admins live in /Admins, which allows security keys only: the admins' check passes.
  [
    "security.two_step_verification_enforcement_factor",
    { allowedSignInFactorSet: "PASSKEY_ONLY" },
    "/Admins",
  ],
  ["security.super_admin_account_recovery", { enableAccountRecovery: false }],
  ["security.user_account_recovery", { enableAccountRecovery: true }],
  [
    "security.advanced_protection_program",
    { enableAdvancedProtectionSelfEnrollment: true, securityCodeOption: "CODES_NOT_ALLOWED" },
  ],
  [
    "security.password",
    {
      minimumLength: 14,
      maximumLength: 100,
      allowedStrength: "STRONG",
      allowReuse: false,
      enforceRequirementsAtLogin: true,
      expirationDuration: "0s",
    },
  ],
  ["security.session_controls", { webSessionDuration: "43200s" }],
  // A stricter override is never the tenant's weakest value.
  ["security.session_controls", { webSessionDuration: "28800s" }, "/Sales"],
  ["security.less_secure_apps", { allowLessSecureApps: false }],
  ["api_controls.unconfigured_third_party_apps", { accessLevel: "BLOCK_ALL" }],
  ["api_controls.internal_apps", { trustInternalApps: true }],
  [
    "drive_and_docs.external_sharing",
    {
      externalSharingMode: "ALLOWLISTED_DOMAINS",
      warnForExternalSharing: true,
      warnForSharingOutsideAllowlistedDomains: true,
      allowPublishingFiles: false,
      accessCheckerSuggestions: "RECIPIENTS_ONLY",
      allowedPartiesForDistributingContent: "ELIGIBLE_INTERNAL_USERS",
      allowNonGoogleInvites: false,
      allowReceivingExternalFiles: true,
    },
  ],
  [
    "drive_and_docs.shared_drive_creation",
    {
      allowSharedDriveCreation: true,
      allowManagersToOverrideSettings: false,
      allowExternalUserAccess: false,
      allowNonMemberAccess: false,
      allowedPartiesForDownloadPrintCopy: "EDITORS_ONLY",
    },
  ],
  ["drive_and_docs.drive_for_desktop", { allowDriveForDesktop: false }],
  ["gmail.mail_delegation", { enableMailDelegation: false }],
  ["gmail.pop_access", { enablePopAccess: false }],
  ["gmail.imap_access", { enableImapAccess: false }],
  ["gmail.auto_forwarding", { enableAutoForwarding: false }],
  ["gmail.per_user_outbound_gateway", { allowUsersToUseExternalSmtpServers: false }],
  ["gmail.enhanced_pre_delivery_message_scanning", { enableImprovedSuspiciousContentDetection: true }],
  [
    "calendar.primary_calendar_max_allowed_external_sharing",
    { maxAllowedExternalSharing: "EXTERNAL_FREE_BUSY_ONLY" },
  ],
  [
    "gmail.email_attachment_safety",
    {
      enableEncryptedAttachmentProtection: true,
      encryptedAttachmentProtectionConsequence: "WARNING",
      enableAttachmentWithScriptsProtection: true,
      scriptAttachmentProtectionConsequence: "SPAM_FOLDER",
      enableAnomalousAttachmentProtection: true,
      anomalousAttachmentProtectionConsequence: "WARNING",
    },
  ],
  [
    "gmail.links_and_external_images",
    {
      enableShortenerScanning: true,
      enableExternalImageScanning: true,
      enableAggressiveWarningsOnUntrustedLinks: true,
    },
  ],
  [
    "gmail.spoofing_and_authentication",
    {
      detectDomainNameSpoofing: true,
      domainSpoofingConsequence: "WARNING",
      detectEmployeeNameSpoofing: true,
      employeeNameSpoofingConsequence: "WARNING",
      detectDomainSpoofingFromUnauthenticatedSenders: true,
      inboundDomainSpoofingConsequence: "SPAM_FOLDER",
      detectUnauthenticatedEmails: true,
      unauthenticatedEmailConsequence: "WARNING",
      detectGroupsSpoofing: true,
      groupsSpoofingVisibilityType: "ALL_GROUPS",
      groupsSpoofingConsequence: "SPAM_FOLDER",
    },
  ],
  ["calendar.external_invitations", { warnOnInvite: true }],
  [
    "groups_for_business.groups_sharing",
    {
      collaborationCapability: "DOMAIN_USERS_ONLY",
      createGroupsAccessLevel: "ADMIN_ONLY",
      ownersCanAllowExternalMembers: false,
      ownersCanAllowIncomingMailFromPublic: false,
      viewTopicsDefaultAccessLevel: "GROUP_MEMBERS",
    },
  ],
  ["chat.external_chat_restriction", { allowExternalChat: true, externalChatRestriction: "TRUSTED_DOMAINS" }],
  ["chat.chat_file_sharing", { externalFileSharing: "NO_FILES", internalFileSharing: "NO_FILES" }],
  ["chat.chat_external_spaces", { enabled: true, domainAllowlistMode: "TRUSTED_DOMAINS" }],
  ["chat.chat_apps_access", { enableApps: false, enableWebhooks: false }],
  [
    "calendar.secondary_calendar_max_allowed_external_sharing",
    { maxAllowedExternalSharing: "EXTERNAL_FREE_BUSY_ONLY" },
  ],
  ["sites.service_status", { serviceState: "DISABLED" }],
  ["groups.service_status", { serviceState: "DISABLED" }],
  [
    "rule.dlp",
    {
      displayName: "Card numbers on Drive",
      state: "ACTIVE",
      triggers: ["google.workspace.drive.file.v1.share"],
    },
  ],
  [
    "rule.dlp",
    { displayName: "Old Gmail rule", state: "INACTIVE", triggers: ["google.workspace.gmail.email.v1.send"] },
  ],
  ["workspace_marketplace.apps_access_options", { accessLevel: "ALLOW_LISTED_APPS" }],
  ...RULES.map((name) => alertRule(name, "ACTIVE", [{ allSuperAdmins: true }])),
];

// Mostly secure at the root: what fails is an org-unit or group override, or an insecure root value.
const WEAK_ROWS: readonly TPolicyRow[] = [
  ["security.two_step_verification_enrollment", { allowEnrollment: true }],
  ["security.two_step_verification_enrollment", { allowEnrollment: false }, "/Sales/EMEA"],
  ["security.two_step_verification_enforcement", { enforcedFrom: "1970-01-01T00:00:00Z" }],
  ["security.two_step_verification_enforcement_factor", { allowedSignInFactorSet: "PASSKEY_ONLY" }],
  // Every admin sits in /Admins, which allows codes by SMS and phone call.
  ["security.two_step_verification_enforcement_factor", { allowedSignInFactorSet: "ALL" }, "/Admins"],
  ["security.super_admin_account_recovery", { enableAccountRecovery: true }],
  ["security.user_account_recovery", { enableAccountRecovery: false }],
  ["security.advanced_protection_program", { enableAdvancedProtectionSelfEnrollment: false }],
  [
    "security.password",
    { minimumLength: 14, allowedStrength: "STRONG", allowReuse: false, enforceRequirementsAtLogin: true },
  ],
  [
    "security.password",
    { minimumLength: 8, allowedStrength: "STRONG", allowReuse: true, enforceRequirementsAtLogin: false },
    "/Sales",
  ],
  ["security.session_controls", { webSessionDuration: "1209600s" }],
  ["security.less_secure_apps", { allowLessSecureApps: false }],
  ["security.less_secure_apps", { allowLessSecureApps: true }, "/", "groups/01legacyprinters"],
  ["api_controls.unconfigured_third_party_apps", { accessLevel: "ACCESS_LEVEL_UNSPECIFIED" }],
  ["api_controls.internal_apps", { trustInternalApps: false }],
  [
    "drive_and_docs.external_sharing",
    {
      externalSharingMode: "ALLOWED",
      warnForExternalSharing: false,
      warnForSharingOutsideAllowlistedDomains: false,
      allowPublishingFiles: true,
      accessCheckerSuggestions: "RECIPIENTS_OR_AUDIENCE_OR_PUBLIC",
      allowedPartiesForDistributingContent: "ALL_ELIGIBLE_USERS",
    },
  ],
  [
    "drive_and_docs.shared_drive_creation",
    {
      allowSharedDriveCreation: false,
      allowManagersToOverrideSettings: true,
      allowNonMemberAccess: true,
      allowedPartiesForDownloadPrintCopy: "ALL",
    },
  ],
  ["drive_and_docs.drive_for_desktop", { allowDriveForDesktop: true }],
  ["gmail.mail_delegation", { enableMailDelegation: true }],
  ["gmail.pop_access", { enablePopAccess: false }],
  ["gmail.imap_access", { enableImapAccess: true }, "/Sales"],
  ["gmail.auto_forwarding", { enableAutoForwarding: true }],
  ["gmail.per_user_outbound_gateway", { allowUsersToUseExternalSmtpServers: true }],
  ["gmail.enhanced_pre_delivery_message_scanning", { enableImprovedSuspiciousContentDetection: false }],
  [
    "calendar.primary_calendar_max_allowed_external_sharing",
    { maxAllowedExternalSharing: "EXTERNAL_ALL_INFO_READ_WRITE" },
  ],
  [
    "gmail.email_attachment_safety",
    {
      enableEncryptedAttachmentProtection: false,
      enableAttachmentWithScriptsProtection: true,
      scriptAttachmentProtectionConsequence: "NO_ACTION",
    },
  ],
  [
    "gmail.links_and_external_images",
    {
      enableShortenerScanning: false,
      enableExternalImageScanning: false,
      enableAggressiveWarningsOnUntrustedLinks: false,
    },
  ],
  [
    "gmail.spoofing_and_authentication",
    {
      detectDomainNameSpoofing: true,
      domainSpoofingConsequence: "NO_ACTION",
      detectEmployeeNameSpoofing: false,
      detectDomainSpoofingFromUnauthenticatedSenders: true,
      inboundDomainSpoofingConsequence: "SPAM_FOLDER",
      detectUnauthenticatedEmails: false,
      detectGroupsSpoofing: true,
      groupsSpoofingConsequence: "WARNING",
    },
  ],
  // Inbound spoofing protection is on at the root but off for Sales; groups' protection does nothing there.
  [
    "gmail.spoofing_and_authentication",
    {
      detectDomainSpoofingFromUnauthenticatedSenders: false,
      detectGroupsSpoofing: true,
      groupsSpoofingConsequence: "NO_ACTION",
    },
    "/Sales",
  ],
  ["calendar.external_invitations", { warnOnInvite: false }],
  [
    "groups_for_business.groups_sharing",
    {
      collaborationCapability: "ANYONE_CAN_ACCESS",
      createGroupsAccessLevel: "USERS_IN_DOMAIN",
      ownersCanAllowExternalMembers: true,
      ownersCanAllowIncomingMailFromPublic: true,
      viewTopicsDefaultAccessLevel: "DOMAIN_USERS",
    },
  ],
  ["chat.external_chat_restriction", { allowExternalChat: true, externalChatRestriction: "NO_RESTRICTION" }],
  ["chat.chat_file_sharing", { externalFileSharing: "ALL_FILES", internalFileSharing: "IMAGES_ONLY" }],
  ["chat.chat_external_spaces", { enabled: true, domainAllowlistMode: "ALL_DOMAINS" }],
  ["chat.chat_apps_access", { enableApps: false, enableWebhooks: false }],
  ["chat.chat_apps_access", { enableApps: true, enableWebhooks: true }, "/Sales/EMEA"],
  [
    "calendar.secondary_calendar_max_allowed_external_sharing",
    { maxAllowedExternalSharing: "EXTERNAL_ALL_INFO_READ_ONLY" },
  ],
  ["sites.service_status", { serviceState: "ENABLED" }],
  ["groups.service_status", { serviceState: "ENABLED" }],
  // A Drive DLP rule exists but is off; the active one watches Gmail only.
  [
    "rule.dlp",
    {
      displayName: "Card numbers on Drive",
      state: "INACTIVE",
      triggers: ["google.workspace.drive.file.v1.share"],
    },
  ],
  [
    "rule.dlp",
    {
      displayName: "Card numbers in mail",
      state: "ACTIVE",
      triggers: ["google.workspace.gmail.email.v1.send"],
    },
  ],
  ["workspace_marketplace.apps_access_options", { accessLevel: "ALLOW_ALL" }],
  ...RULES.map(weakRule),
];

export function secureGoogleSettings(): TGoogleSettingsFixture {
  return { customerId: "C03az79cb", orgUnits: ORG_UNITS, policies: toPolicies(SECURE_ROWS) };
}

export function weakGoogleSettings(): TGoogleSettingsFixture {
  return { customerId: "C03az79cb", orgUnits: ORG_UNITS, policies: toPolicies(WEAK_ROWS) };
}

type TFixtureUser = TGUser & TGAdminUser;

const SUPER_ADMIN_ROLE = "91447453409034241";
const GROUPS_ADMIN_ROLE = "91447453409034242";
const HELP_DESK_ROLE = "91447453409034246";
const ROLES: TGRole[] = [
  { roleId: SUPER_ADMIN_ROLE, roleName: "_SEED_ADMIN_ROLE", isSuperAdminRole: true, isSystemRole: true },
  { roleId: GROUPS_ADMIN_ROLE, roleName: "_GROUPS_ADMIN_ROLE", isSuperAdminRole: false, isSystemRole: true },
  { roleId: HELP_DESK_ROLE, roleName: "_HELP_DESK_ADMIN_ROLE", isSuperAdminRole: false, isSystemRole: true },
];

const adminUser = (n: number, extra: Partial<TFixtureUser>): TFixtureUser => ({
  id: `u-sa-${n}`,
  primaryEmail: `superadmin${n}@acme.test`,
  name: { fullName: `Super Admin ${n}` },
  isAdmin: true,
  isDelegatedAdmin: false,
  isEnrolledIn2Sv: true,
  isEnforcedIn2Sv: true,
  suspended: false,
  orgUnitPath: "/Admins",
  lastLoginTime: "2025-05-01T09:00:00.000Z",
  creationTime: "2020-01-01T00:00:00.000Z",
  ...extra,
});

/**
 * A Google fixture with a tenant's settings and admin accounts: `secure` has two super admins and a
 * delegated admin, all with 2SV enforced; `weak` has one super admin (or five, `superAdmins: 5`,
 * to fail the upper bound) and a delegated admin without 2SV enforced. The base fixture's own users
 * lose their admin flag, so the tenant's admins are exactly these.
 */
export function withGoogleTenant(
  base: TGoogleFixture,
  tenant: "secure" | "weak",
  opts: { superAdmins?: number; withheldScopes?: string[] } = {},
): TGoogleFixture {
  const count = opts.superAdmins ?? (tenant === "secure" ? 2 : 1);
  const admins: TFixtureUser[] = Array.from({ length: count }, (_, i) => adminUser(i + 1, {}));
  admins.push(
    adminUser(99, {
      id: "u-helpdesk",
      primaryEmail: "helpdesk@acme.test",
      isAdmin: false,
      isDelegatedAdmin: true,
      isEnforcedIn2Sv: tenant === "secure",
    }),
    // A suspended super admin counts for neither check.
    adminUser(98, {
      id: "u-sa-gone",
      primaryEmail: "former-admin@acme.test",
      suspended: true,
      isEnforcedIn2Sv: false,
    }),
  );
  const roleOf = (roleId: string, user: TFixtureUser, i: number): TGRoleAssignment => ({
    roleAssignmentId: `ra-${i}`,
    roleId,
    assignedTo: user.id,
    assigneeType: "user",
    scopeType: "CUSTOMER",
  });
  const supers = admins.filter((u) => u.isAdmin);
  const roleAssignments = [
    ...supers.map((u, i) => roleOf(SUPER_ADMIN_ROLE, u, i)),
    ...admins.filter((u) => u.isDelegatedAdmin).map((u, i) => roleOf(HELP_DESK_ROLE, u, 100 + i)),
    // Weak: the first super admin is also the groups admin, doing daily work with super admin rights.
    ...(tenant === "weak" && supers[0] ? [roleOf(GROUPS_ADMIN_ROLE, supers[0], 200)] : []),
  ];
  const settings = tenant === "secure" ? secureGoogleSettings() : weakGoogleSettings();
  return {
    ...base,
    users: [...base.users.map((u) => ({ ...u, isAdmin: false })), ...admins],
    settings: { ...settings, roles: ROLES, roleAssignments, withheldScopes: opts.withheldScopes },
  };
}

export { DIRECTORY_USERS_SCOPE, ORG_UNITS_SCOPE, POLICIES_SCOPE, ROLES_SCOPE };
