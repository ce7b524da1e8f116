import {
  PERMISSION_ROLE_RANK,
  type TPermission,
  type TPermissionRole,
  type TSourceFile,
} from "@posture/connectors";
import {
  EDITING_ROLES,
  fileSensitivity,
  outsideGrantSeverity,
  publicLinkSeverity,
  sensitiveTermIn,
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

export function evaluateFile(ctx: TRuleContext, file: TSourceFile): TDetectedFinding[] {
  // The file's sensitivity label first, else its name: the resource store rates it by the same
  // function, so a finding and its sharing item agree.
  const label = file.label?.trim() || null;
  const sensitivity = fileSensitivity(file.name, label === null ? [] : [label]);
  let publicRole: TPermissionRole | null = null;
  const publicPermissionIds: string[] = [];
  const external: TExternalGrant[] = [];

  for (const permission of file.permissions) {
    if (permission.type === "anyone") {
      publicPermissionIds.push(permission.id);
      if (publicRole === null || PERMISSION_ROLE_RANK[permission.role] > PERMISSION_ROLE_RANK[publicRole])
        publicRole = permission.role;
      continue;
    }
    const domain = externalDomainOf(ctx, permission);
    if (domain === null) continue;
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
  if (publicRole === null && external.length === 0) return [];

  const findings: TDetectedFinding[] = [];
  const sensitiveTerm = sensitiveTermIn(file.name);
  const common = { resourceId: file.id, resourceName: file.name, resourceType: "file" as const };
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
        title: editable
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
        title: `File shared ${editable ? "with edit access " : ""}outside the organization${allTrusted ? " (trusted domain)" : ""}`,
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
  return findings;
}
