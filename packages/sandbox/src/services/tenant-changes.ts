import { randomBytes } from "node:crypto";
import {
  createSourceAdapter,
  sourceInputOf,
  type TActivityEvent,
  type TAppGrant,
  type TPermission,
  type TSourceFile,
} from "@posture/connectors";
import { demoOverlayStore, sensitiveTermIn, type connectors, type Db } from "@posture/db";
import type { TRuntime } from "@posture/platform";
import { GITHUB_SCENARIO_KINDS, changeGithubOrganization, type TGithubScenarioKind } from "./github-changes";
import { overlayWriter, pick, tagOf } from "./overlay-writer";

// What each scenario changes in the synthetic tenant: entries of the demo connector's overlay
// (packages/connectors/src/demo/README.md), the same store remediation writes to, so the next scan
// — incremental, from the change feed — reads exactly this change, as it would a real tenant's.

export const SCENARIO_KINDS = [
  "public_link_created",
  "external_share_created",
  "agent_granted",
  "sharing_spike",
  "client_unhealthy",
  "org_wide_link_created",
  ...GITHUB_SCENARIO_KINDS,
] as const;
export type TScenarioKind = (typeof SCENARIO_KINDS)[number];

/** Whether a kind changes a GitHub organization (its demo source is a GitHub one). */
export const isGithubKind = (kind: TScenarioKind): kind is TGithubScenarioKind =>
  (GITHUB_SCENARIO_KINDS as readonly string[]).includes(kind);

type TConnectorRow = typeof connectors.$inferSelect;

/** At most this many files shared outside in a sharing spike: well past a weekly baseline. */
export const SPIKE_SHARES = 30;
/** Where the spike's and the new external share's files go: a domain nobody trusts. */
export const OUTSIDE_DOMAIN = "files-transfer.example";
/** How many clean files a scenario looks at before choosing: a 1,000,000-file tenant is not read whole. */
const CANDIDATES = 400;

const GOOGLE_AGENT_SCOPES = [
  "https://www.googleapis.com/auth/drive",
  "https://mail.google.com/",
  "https://www.googleapis.com/auth/admin.directory.user.readonly",
];
const MICROSOFT_AGENT_SCOPES = ["Files.ReadWrite.All", "Mail.ReadWrite", "User.Read.All"];

/** What a scenario changed, for the run's record (never a secret: the tenant is synthetic). */
export type TTenantChange = Record<string, unknown>;

type TTenant = {
  connector: TConnectorRow;
  internalDomains: string[];
  /** Files with no public link and no outside access, with their index in the tenant, in order. */
  cleanFiles: Array<{ file: TSourceFile; index: number }>;
  put: (key: string, change: Record<string, unknown>) => Promise<void>;
};

const isOutside = (internal: string[], p: TPermission) => {
  if (p.type === "anyone") return true;
  const domain = (p.type === "domain" ? p.domain : p.emailAddress?.split("@")[1])?.toLowerCase() ?? "";
  return !internal.some((d) => domain === d || domain.endsWith(`.${d}`));
};

/** A generated file's index, from its owner permission's id (`<index base 36>-0`). */
function indexOf(file: TSourceFile): number | null {
  for (const p of file.permissions) {
    const m = /^([0-9a-z]{1,8})-0$/.exec(p.id);
    if (m?.[1]) return parseInt(m[1], 36);
  }
  return null;
}

/** The tenant as it is now (the overlay applied), read only as far as the scenario needs. */
async function openTenant(
  db: Db,
  connector: TConnectorRow,
  runtime: TRuntime,
  read: boolean,
): Promise<TTenant> {
  const store = demoOverlayStore(db, connector.id);
  const adapter = createSourceAdapter({ ...sourceInputOf(connector, runtime), demoOverlay: store });
  const internalDomains = read ? (await adapter.workspace()).internalDomains : [];
  const cleanFiles: TTenant["cleanFiles"] = [];
  for await (const file of read ? adapter.files() : []) {
    if (file.permissions.some((p) => isOutside(internalDomains, p))) continue;
    const index = indexOf(file);
    if (index !== null) cleanFiles.push({ file, index });
    if (cleanFiles.length >= CANDIDATES) break;
  }
  const { put } = await overlayWriter(db, connector.id);
  return { connector, internalDomains, cleanFiles, put };
}

function needFiles(tenant: TTenant, n = 1) {
  if (tenant.cleanFiles.length < n)
    throw new Error("the sandbox tenant has no file left without outside access; reset it");
}

async function addPermission(
  tenant: TTenant,
  { file, index }: TTenant["cleanFiles"][number],
  permission: Omit<TPermission, "id">,
  tag: string,
) {
  // The demo's own id form (`<file index base 36>-…`), so remediation finds and removes it later.
  const id = `${index.toString(36)}-sbx${tag}`;
  await tenant.put(`perm:${file.id}:${id}`, { op: "added", permission: { ...permission, id }, i: index });
  return id;
}

async function publicLink(tenant: TTenant, runId: string): Promise<TTenantChange> {
  needFiles(tenant);
  const target = tenant.cleanFiles[pick(runId, tenant.cleanFiles.length)];
  if (!target) throw new Error("no file");
  const permissionId = await addPermission(tenant, target, { type: "anyone", role: "reader" }, tagOf(runId));
  return { fileId: target.file.id, fileName: target.file.name, owner: target.file.ownerEmail, permissionId };
}

async function externalShare(tenant: TTenant, runId: string): Promise<TTenantChange> {
  needFiles(tenant);
  const target = tenant.cleanFiles[pick(runId, tenant.cleanFiles.length)];
  if (!target) throw new Error("no file");
  const emailAddress = `partner-${tagOf(runId).slice(0, 4)}@${OUTSIDE_DOMAIN}`;
  const permissionId = await addPermission(
    tenant,
    target,
    { type: "user", role: "writer", emailAddress },
    tagOf(runId),
  );
  return { fileId: target.file.id, fileName: target.file.name, sharedWith: emailAddress, permissionId };
}

/**
 * One person shares SPIKE_SHARES of their files with an outside address within half an hour: the
 * shares (each an external-share finding) and the audit-log events behaviour analytics reads.
 */
async function sharingSpike(tenant: TTenant, runId: string): Promise<TTenantChange> {
  const byOwner = new Map<string, TTenant["cleanFiles"]>();
  for (const f of tenant.cleanFiles) {
    if (f.file.driveId !== null) continue;
    const list = byOwner.get(f.file.ownerEmail) ?? [];
    list.push(f);
    byOwner.set(f.file.ownerEmail, list);
  }
  const owners = [...byOwner.entries()].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  const [owner, files] = owners[pick(runId, Math.min(3, owners.length) || 1)] ?? [];
  if (!owner || !files || files.length === 0)
    throw new Error("the sandbox tenant has no personal files left without outside access; reset it");
  const tag = tagOf(runId);
  const emailAddress = `dropbox-${tag.slice(0, 4)}@${OUTSIDE_DOMAIN}`;
  const chosen = files.slice(0, SPIKE_SHARES);
  const now = Date.now();
  for (const [k, f] of chosen.entries()) {
    await addPermission(tenant, f, { type: "user", role: "writer", emailAddress }, tag);
    const event: TActivityEvent = {
      id: `sbx-${tag}-share-${k}`,
      at: new Date(now - (chosen.length - k) * 60_000).toISOString(),
      actorEmail: owner,
      type: "share_external",
      resourceId: f.file.id,
      target: emailAddress,
    };
    await tenant.put(`activity:${event.id}`, { op: "added", event });
  }
  return { actor: owner, sharedWith: emailAddress, files: chosen.length };
}

/**
 * Someone shares a sensitive file with everyone in the organization by link (issue 30): Google
 * "anyone at <domain> can find and open", a searchable `domain` permission; Microsoft an
 * organization-scope view link (never searchable). The file: a clean one whose label or name says
 * it is sensitive (any clean one when none does), with no organization-wide access yet.
 */
async function orgWideLink(tenant: TTenant, runId: string): Promise<TTenantChange> {
  needFiles(tenant);
  const open = tenant.cleanFiles.filter((f) => !f.file.permissions.some((p) => p.type === "domain"));
  const sensitive = open.filter((f) => f.file.label !== null || sensitiveTermIn(f.file.name) !== null);
  const pool = sensitive.length > 0 ? sensitive : open;
  const target = pool[pick(runId, pool.length)];
  const domain = tenant.internalDomains[0];
  if (!target || !domain) throw new Error("the sandbox tenant has no file left to share org-wide; reset it");
  const discoverable = tenant.connector.type === "google_workspace";
  const permissionId = await addPermission(
    tenant,
    target,
    { type: "domain", role: "reader", domain, link: { expiresAt: null, discoverable } },
    tagOf(runId),
  );
  return {
    fileId: target.file.id,
    fileName: target.file.name,
    owner: target.file.ownerEmail,
    permissionId,
    domain,
    discoverable,
    sensitive: sensitive.length > 0,
  };
}

/** A user grants an unverified AI agent broad access to files, mail and the directory. */
async function agentGrant(tenant: TTenant, runId: string): Promise<TTenantChange> {
  needFiles(tenant);
  const user = tenant.cleanFiles[pick(runId, tenant.cleanFiles.length)]?.file.ownerEmail;
  if (!user) throw new Error("no user");
  const tag = tagOf(runId);
  const google = tenant.connector.type === "google_workspace";
  const hex = randomBytes(16).toString("hex");
  const clientId = google
    ? `${BigInt(`0x${hex.slice(0, 12)}`).toString()}-sbx${tag}.apps.googleusercontent.com`
    : `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  const grant: TAppGrant = {
    id: `sbx-grant-${tag}`,
    clientId,
    label: "Autopilot Inbox Agent",
    kind: "ai_agent",
    // As the demo's agents are (issue 30): an Entra agent identity, on Google the publisher catalog's.
    agentSource: google ? "publisher_catalog" : "agent_registry",
    access: "delegated",
    publisher: "autopilot-agent.example",
    isKnownPublisher: false,
    scopes: google ? GOOGLE_AGENT_SCOPES : MICROSOFT_AGENT_SCOPES,
    userEmail: user,
    grantedAt: new Date().toISOString(),
  };
  await tenant.put(`grant:${grant.id}`, { op: "added", grant });
  const event: TActivityEvent = {
    id: `sbx-${tag}-grant`,
    at: grant.grantedAt,
    actorEmail: user,
    type: "oauth_grant",
    resourceId: grant.id,
    target: clientId,
  };
  await tenant.put(`activity:${event.id}`, { op: "added", event });
  return { grantId: grant.id, clientId, label: grant.label, userEmail: user, scopes: grant.scopes };
}

/** The tenant's administrator removes the service's access: every read is refused from now on. */
async function revokeAccess(tenant: TTenant): Promise<TTenantChange> {
  await tenant.put("access", { op: "revoked" });
  return { connectorId: tenant.connector.id, access: "revoked" };
}

export async function changeTenant(
  db: Db,
  runtime: TRuntime,
  connector: TConnectorRow,
  kind: TScenarioKind,
  runId: string,
): Promise<TTenantChange> {
  if (isGithubKind(kind)) return changeGithubOrganization(db, runtime, connector, kind, runId);
  // Withdrawing access reads nothing (and a tenant whose access is withdrawn cannot be read).
  const tenant = await openTenant(db, connector, runtime, kind !== "client_unhealthy");
  switch (kind) {
    case "public_link_created":
      return publicLink(tenant, runId);
    case "external_share_created":
      return externalShare(tenant, runId);
    case "sharing_spike":
      return sharingSpike(tenant, runId);
    case "agent_granted":
      return agentGrant(tenant, runId);
    case "client_unhealthy":
      return revokeAccess(tenant);
    case "org_wide_link_created":
      return orgWideLink(tenant, runId);
  }
  throw new Error(`scenario ${kind} does not change a suite's tenant`);
}
