import { hash } from "node:crypto";
import { fileReach, type TReachDirectory, type TSourceFile } from "@posture/connectors";
import { SEVERITY_RANK, type TExposure, type TSensitivity, type TShareType } from "@posture/db";
import {
  baseSeverity,
  classifyPermission,
  ratedSeverity,
  riskRank,
  sensitivityOf,
  stableId,
  widerExposure,
  widerRole,
} from "./classify";
import { FILE_COLUMNS } from "./columns";

export type TFileContext = {
  orgId: string;
  connectorId: string;
  /** The workspace's own domains (lower case). */
  internal: ReadonlySet<string>;
  /** The organization's trusted domains (lower case). */
  trusted: ReadonlySet<string>;
  /**
   * Who the tenant's people and groups are, for the files' reach (the snapshot's users and
   * groups); absent: reach counts the named addressees only.
   */
  directory?: TReachDirectory;
};

const NO_DIRECTORY = (ctx: TFileContext): TReachDirectory => ({
  internal: { has: (d) => ctx.internal.has(d.toLowerCase()) },
  groups: new Map(),
  peopleCount: () => 0,
});

/** One source file as the store keeps it: its row, its permissions' rows and its sharing items' rows. */
export type TFileRows = {
  sourceId: string;
  fileId: string;
  owner: string;
  exposure: TExposure;
  sensitivity: TSensitivity;
  labelled: boolean;
  /** Everyone in the organization can open it (`reach.orgWide`). */
  orgWide: boolean;
  /** Grants reaching outside the organization (public or external). */
  externalCount: number;
  /**
   * What the store persists of the file (its row, permissions and sharing items) as one hash,
   * stored on the file's row (`digest`): a full rescan that computes the same digest leaves the
   * file's rows alone without asking the database (`storedDigests`).
   */
  digest: string;
  /** In FILE_COLUMNS order (`digest` last). */
  file: unknown[];
  /** In PERMISSION_COLUMNS order. */
  permissions: unknown[][];
  /** In SHARE_COLUMNS order, one per way the file leaves the organization. */
  shares: unknown[][];
  shareTypes: TShareType[];
  /** The outside domains of the sharing items. */
  domains: string[];
};

/** The id of a file's sharing item of one type: stable, so approvals follow the item across snapshots. */
export const shareId = (fileId: string, type: TShareType) => `${fileId}|${type}`;

/** Classifies a file's permissions and rates its sharing items (the same for full and incremental snapshots). */
export function fileRows(f: TSourceFile, ctx: TFileContext): TFileRows {
  const { orgId, connectorId } = ctx;
  const fileId = stableId("wsf", connectorId, f.id);
  const owner = f.ownerEmail.toLowerCase();
  const label = f.label?.trim() || null;
  const sensitivity = sensitivityOf(f.name, label === null ? [] : [label]);
  const reach = fileReach(ctx.directory ?? NO_DIRECTORY(ctx), f);
  let exposure: TExposure = "private";
  let externalCount = 0;
  const permissions: unknown[][] = [];
  const byType = new Map<TShareType, { role: string; targets: string[]; domains: Set<string> }>();
  const seen = new Set<string>();
  for (const p of f.permissions) {
    // A permission listed twice (a page re-read) is one grant.
    if (seen.has(p.id)) continue;
    seen.add(p.id);
    // The owner's own grant is the file's owner column, not a share.
    if (p.role === "owner" || (p.type === "user" && p.emailAddress?.toLowerCase() === owner)) continue;
    const c = classifyPermission(p, ctx.internal);
    permissions.push([
      stableId("wsp", connectorId, `${f.id}/${p.id}`),
      orgId,
      connectorId,
      fileId,
      p.id,
      c.sharingType,
      c.target,
      p.role,
      c.domain,
    ]);
    if (c.sharingType === "internal") {
      exposure = widerExposure(exposure, "internal");
      continue;
    }
    exposure = widerExposure(exposure, c.sharingType === "public" ? "public" : "external");
    externalCount++;
    const item = byType.get(c.sharingType) ?? { role: "reader", targets: [], domains: new Set<string>() };
    item.role = widerRole(item.role, p.role);
    item.targets.push(c.target);
    if (c.domain) item.domains.add(c.domain);
    byType.set(c.sharingType, item);
  }
  const shares: unknown[][] = [];
  const shareTypes: TShareType[] = [];
  const allDomains: string[] = [];
  for (const [type, item] of byType) {
    const domains = [...item.domains].sort();
    const base = baseSeverity(type, item.role, sensitivity);
    const severity = ratedSeverity(base, domains, ctx.trusted);
    // One address or domain (the first of the sorted outside targets); the list itself is
    // read from the permissions when the items are (`targets[]` of GET /sharing/items).
    const targets = [...new Set(item.targets)].sort();
    const target = targets[0] ?? "";
    shareTypes.push(type);
    allDomains.push(...domains);
    shares.push([
      shareId(fileId, type),
      orgId,
      connectorId,
      fileId,
      f.id,
      f.name,
      owner,
      type,
      target,
      targets.length,
      domains.join(","),
      item.role,
      sensitivity,
      base,
      severity,
      SEVERITY_RANK[severity],
      riskRank(severity, sensitivity, type, targets.length),
    ]);
  }
  const file = [
    fileId,
    orgId,
    connectorId,
    f.id,
    f.name,
    f.mimeType,
    owner,
    f.driveId,
    sensitivity,
    exposure,
    externalCount,
    f.sizeBytes,
    f.modifiedAt,
    reach.people,
    reach.orgWide,
    label,
  ];
  const digest = rowsDigest(file, permissions, shares, reach.orgWide);
  file.push(digest);
  return {
    sourceId: f.id,
    fileId,
    owner,
    exposure,
    sensitivity,
    labelled: label !== null,
    orgWide: reach.orgWide,
    externalCount,
    digest,
    file,
    permissions,
    shares,
    shareTypes,
    domains: allDomains,
  };
}

const REACH_PEOPLE = FILE_COLUMNS.findIndex(([n]) => n === "reach_people");

/**
 * The digest of a file's rows as the store writes them (the inputs of the computed columns
 * included): 128 bits of SHA-256 over their JSON, so two different sets of rows share one only by
 * a collision. Left out: each row's id, organization, connector and file id (functions of the
 * connector and the source ids the rows hold), and an organization-wide file's people count (the
 * tenant's, which each snapshot sets for all such files in one statement, `moveOrgWideReach`). So a
 * file has the same digest in every connector and whichever snapshot wrote it. One-shot `hash()`.
 */
export function rowsDigest(
  file: readonly unknown[],
  permissions: readonly unknown[][],
  shares: readonly unknown[][],
  orgWide: boolean,
): string {
  const content = [
    file.map((v, i) => (orgWide && i === REACH_PEOPLE ? null : v)).slice(3),
    permissions.map((p) => p.slice(4)),
    shares.map((r) => r.slice(4)),
  ];
  return hash("sha256", JSON.stringify(content), "base64url").slice(0, 22);
}
