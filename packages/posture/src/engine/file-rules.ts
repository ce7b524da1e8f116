import {
  PERMISSION_ROLE_RANK,
  type TPermission,
  type TFileReach,
  type TPermissionRole,
  type TSourceFile,
} from "@posture/connectors";
import {
  EDITING_ROLES,
  fileSensitivity,
  lowerSeverity,
  outsideGrantSeverity,
  publicLinkSeverity,
  raiseSeverity,
  sensitiveTermIn,
  type TSensitivity,
} from "@posture/db";
import type { TRuleContext } from "./context";
import { emailDomain } from "./domains";
import { makeFinding } from "./finding";
import { RULE_IDS } from "./rule-ids";
import { maxSeverity, type TDetectedFinding, type TSeverity } from "./types";

/** Bounds the details of a file shared with hundreds of outsiders. */
const MAX_LISTED_TARGETS = 25;

type TExternalGrant = {
  permissionId: string;
  type: TPermission["type"];
  target: string;
  domain: string;
  role: TPermissionRole;
  trusted: boolean;
  severity: TSeverity;
};

/** The outside domain a grant reaches, or null when it stays inside (or names nobody we can place). */
function externalDomainOf(ctx: TRuleContext, permission: TPermission): string | null {
  let domain: string | null = null;
  if (permission.type === "domain") domain = permission.domain?.toLowerCase() ?? null;
  else if (permission.type === "user" || permission.type === "group") {
    domain = permission.emailAddress
      ? emailDomain(permission.emailAddress)
      : (permission.domain?.toLowerCase() ?? null);
  }
  return domain !== null && !ctx.internal.has(domain) ? domain : null;
}

type TOrgLink = {
  permissionId: string;
  role: TPermissionRole;
  discoverable: boolean;
  expiresAt: string | null;
};
type TEveryoneGrant = { permissionId: string; role: TPermissionRole; everyone: "all" | "members" };
type TBroadGroup = { permissionId: string; email: string; role: TPermissionRole; memberCount: number };

const SENSITIVITY_BASE: Record<TSensitivity, TSeverity> = { high: "HIGH", medium: "MEDIUM", low: "LOW" };

/**
 * Internal exposure's scale: the file's sensitivity sets the base (high → HIGH, medium → MEDIUM,
 * low → LOW), then reach moves it: one level more when someone reached can edit, one more when
 * people find the file without being sent it (a searchable link; a grant, which search and
 * assistants surface to everyone it names), one level less when every link expires (never above
 * CRITICAL, never below LOW).
 */
export function internalExposureSeverity(
  sensitivity: TSensitivity,
  reach: { editable: boolean; discoverable: boolean; expires: boolean },
): TSeverity {
  let severity = SENSITIVITY_BASE[sensitivity];
  if (reach.editable) severity = raiseSeverity(severity);
  if (reach.discoverable) severity = raiseSeverity(severity);
  if (reach.expires) severity = lowerSeverity(severity);
  return severity;
}

const strongest = (roles: TPermissionRole[]): TPermissionRole =>
  roles.reduce((a, b) => (PERMISSION_ROLE_RANK[b] > PERMISSION_ROLE_RANK[a] ? b : a));

export function evaluateFile(
  ctx: TRuleContext,
  file: TSourceFile,
  reach: TFileReach = { people: 0, orgWide: false },
  peopleCount = 0,
): TDetectedFinding[] {
  // The file's sensitivity label first, else its name: the resource store rates it by the same
  // function, so a finding and its sharing item agree.
  const label = file.label?.trim() || null;
  const sensitivity = fileSensitivity(file.name, label === null ? [] : [label]);
  let publicRole: TPermissionRole | null = null;
  const publicPermissionIds: string[] = [];
  const external: TExternalGrant[] = [];
  const orgLinks: TOrgLink[] = [];
  const everyoneGrants: TEveryoneGrant[] = [];
  const broadGroups: TBroadGroup[] = [];

  for (const permission of file.permissions) {
    if (permission.type === "anyone") {
      publicPermissionIds.push(permission.id);
      if (publicRole === null || PERMISSION_ROLE_RANK[permission.role] > PERMISSION_ROLE_RANK[publicRole])
        publicRole = permission.role;
      continue;
    }
    const domain = externalDomainOf(ctx, permission);
    if (domain === null) {
      collectInternal(ctx, permission, peopleCount, orgLinks, everyoneGrants, broadGroups);
      continue;
    }
    const trusted = ctx.trusted.has(domain);
    external.push({
      permissionId: permission.id,
      type: permission.type,
      target: permission.emailAddress ?? domain,
      domain,
      role: permission.role,
      trusted,
      severity: outsideGrantSeverity(permission.role, trusted, sensitivity),
    });
  }
  const writableKeys = (file.repository?.deployKeys ?? []).filter((k) => !k.readOnly);
  if (
    publicRole === null &&
    external.length === 0 &&
    orgLinks.length === 0 &&
    everyoneGrants.length === 0 &&
    broadGroups.length === 0 &&
    writableKeys.length === 0
  )
    return [];

  const findings: TDetectedFinding[] = [];
  const sensitiveTerm = sensitiveTermIn(file.name);
  const common = { resourceId: file.id, resourceName: file.name, resourceType: "file" as const };
  // A repository (GitHub) is stored and judged as a file; its findings say what it is.
  const repo = file.repository !== undefined;
  const fileDetails = {
    ownerEmail: file.ownerEmail,
    mimeType: file.mimeType,
    driveId: file.driveId,
    label,
    sensitivity,
  };
  const sensitive = sensitivity === "high";

  if (publicRole !== null) {
    const editable = publicRole !== "reader";
    findings.push(
      makeFinding({
        ruleId: RULE_IDS.publicLink,
        severity: publicLinkSeverity(publicRole, sensitivity),
        title: repo
          ? sensitive
            ? `Public repository with ${label !== null && sensitiveTerm === null ? label.toLowerCase() : "a sensitive name"}`
            : "Public repository"
          : editable
            ? `Public link lets anyone ${publicRole === "commenter" ? "comment on" : "edit"} the file`
            : sensitive
              ? `${label !== null && sensitiveTerm === null ? `${label} file` : "Sensitive file"} shared with anyone who has the link`
              : "File shared with anyone who has the link",
        ...common,
        details: { ...fileDetails, role: publicRole, permissionIds: publicPermissionIds, sensitiveTerm },
      }),
    );
  }

  if (external.length > 0) {
    let severity: TSeverity = "LOW";
    const domains = new Set<string>();
    for (const grant of external) {
      severity = maxSeverity(severity, grant.severity);
      domains.add(grant.domain);
    }
    const allTrusted = external.every((g) => g.trusted);
    const editable = external.some((g) => EDITING_ROLES.has(g.role));
    findings.push(
      makeFinding({
        ruleId: RULE_IDS.externalShare,
        severity,
        title: repo
          ? `Outside collaborator${external.length === 1 ? "" : "s"} ${editable ? "with write access or more" : "with read access"}`
          : `File shared ${editable ? "with edit access " : ""}outside the organization${allTrusted ? " (trusted domain)" : ""}`,
        ...common,
        details: {
          ...fileDetails,
          externalDomains: [...domains].sort(),
          targetCount: external.length,
          targets: external.slice(0, MAX_LISTED_TARGETS).map(({ severity: _s, ...grant }) => grant),
          trustedOnly: allTrusted,
          sensitiveTerm,
        },
      }),
    );
  }
  const internalDetails = { ...fileDetails, sensitiveTerm, reach };
  const noun = repo ? "repository" : "file";
  const what = sensitive
    ? label !== null && sensitiveTerm === null
      ? `${label} ${noun}`
      : `Sensitive ${noun}`
    : repo
      ? "Repository"
      : "File";
  if (orgLinks.length > 0) {
    const role = strongest(orgLinks.map((l) => l.role));
    const editable = EDITING_ROLES.has(role);
    findings.push(
      makeFinding({
        ruleId: RULE_IDS.orgWideLink,
        severity: internalExposureSeverity(sensitivity, {
          editable,
          discoverable: orgLinks.some((l) => l.discoverable),
          expires: orgLinks.every((l) => l.expiresAt !== null),
        }),
        title: `${what} ${editable ? "editable" : "open"} to everyone in the organization with the link`,
        ...common,
        details: { ...internalDetails, permissionIds: orgLinks.map((l) => l.permissionId), links: orgLinks },
      }),
    );
  }
  if (everyoneGrants.length > 0) {
    const role = strongest(everyoneGrants.map((g) => g.role));
    const editable = EDITING_ROLES.has(role);
    const guests = everyoneGrants.some((g) => g.everyone === "all");
    findings.push(
      makeFinding({
        ruleId: RULE_IDS.orgWideGrant,
        severity: internalExposureSeverity(sensitivity, { editable, discoverable: true, expires: false }),
        title: `${what} ${editable ? "editable by" : "shared with"} everyone in the organization${guests ? " (guests included)" : ""}`,
        ...common,
        details: {
          ...internalDetails,
          permissionIds: everyoneGrants.map((g) => g.permissionId),
          grants: everyoneGrants,
        },
      }),
    );
  }
  if (broadGroups.length > 0) {
    const role = strongest(broadGroups.map((g) => g.role));
    const editable = EDITING_ROLES.has(role);
    const largest = Math.max(...broadGroups.map((g) => g.memberCount));
    findings.push(
      makeFinding({
        ruleId: RULE_IDS.broadGroupGrant,
        severity: internalExposureSeverity(sensitivity, { editable, discoverable: false, expires: false }),
        title: `${what} ${editable ? "editable by" : "shared with"} a group of ${largest.toLocaleString("en-US")} people`,
        ...common,
        details: {
          ...internalDetails,
          permissionIds: broadGroups.map((g) => g.permissionId),
          groups: broadGroups.slice(0, MAX_LISTED_TARGETS),
        },
      }),
    );
  }
  if (writableKeys.length > 0) {
    const archived = file.repository?.archived === true;
    findings.push(
      makeFinding({
        ruleId: RULE_IDS.deployKeyWrite,
        // Whoever holds the key pushes code without a person's account, 2FA or review; an archived
        // repository refuses pushes until it is unarchived.
        severity: archived ? "MEDIUM" : "HIGH",
        title: `Deploy key${writableKeys.length === 1 ? "" : "s"} with write access`,
        ...common,
        details: {
          ...fileDetails,
          visibility: file.repository?.visibility ?? null,
          archived,
          keys: writableKeys.slice(0, MAX_LISTED_TARGETS).map((k) => ({ id: k.id, title: k.title })),
          keyCount: writableKeys.length,
        },
      }),
    );
  }
  return findings;
}

/**
 * Members from which a group is broad: the organization's threshold, or half the tenant's people
 * when that is fewer (in a 60-person company "All Staff" reaches as far as everyone does). A
 * tenant of fewer than 10 people has no broad groups but by the threshold.
 */
export function broadFrom(threshold: number, peopleCount: number): number {
  return peopleCount >= 10 ? Math.min(threshold, Math.ceil(peopleCount / 2)) : threshold;
}

/**
 * A grant that stays inside, sorted by what it reaches: a `domain` grant on an own domain is an
 * organization-wide link, or, carrying a Graph everyone claim, a grant to everyone; a grant to a
 * directory group of at least the threshold is broad.
 */
function collectInternal(
  ctx: TRuleContext,
  permission: TPermission,
  peopleCount: number,
  orgLinks: TOrgLink[],
  everyoneGrants: TEveryoneGrant[],
  broadGroups: TBroadGroup[],
): void {
  if (permission.type === "domain") {
    const domain = permission.domain?.toLowerCase();
    if (!domain || !ctx.internal.has(domain)) return;
    if (permission.everyone) {
      everyoneGrants.push({
        permissionId: permission.id,
        role: permission.role,
        everyone: permission.everyone,
      });
    } else {
      orgLinks.push({
        permissionId: permission.id,
        role: permission.role,
        discoverable: permission.link?.discoverable === true,
        expiresAt: permission.link?.expiresAt ?? null,
      });
    }
    return;
  }
  if (permission.type !== "group" || !permission.emailAddress) return;
  const email = permission.emailAddress.toLowerCase();
  const group = ctx.groups.get(email);
  if (!group || group.memberCount < broadFrom(ctx.broadGroupThreshold, peopleCount)) return;
  broadGroups.push({
    permissionId: permission.id,
    email,
    role: permission.role,
    memberCount: group.memberCount,
  });
}
