import { createHash, hash } from "node:crypto";
import { sql } from "drizzle-orm";
import {
  arrayLiteral,
  queryRows,
  type Db,
  type TRemediationAction,
  type TRemediationResource,
  type TSeverity,
} from "@posture/db";
import {
  NO_RESTRICT_REASON,
  reversibilityOf as sourceReversibility,
  type TConnectorType,
} from "@posture/connectors";
import { AppError } from "@posture/platform";
import { deployKeySteps, type TDeployKeyFinding } from "./draft-deploy-keys";
import { fingerprintOf, QUICK_WIN_GROUPS, RULE_IDS } from "@posture/posture";

// The planner: from findings, sharing items, agents or the offboarding playbook to the exact
// changes at the source, read set-based from the resource store (every query filters by org and
// connector, the store's partition key; no query per finding). Shared by POST /remediations and
// POST /posture/simulate, so a simulation predicts exactly what the plan would.

export const PUBLIC_AUDIENCE = "anyone with the link";

/** The store's row ids (workspace's `stableId`, mirrored: the workspace package does not export it). */
export function storeId(prefix: string, connectorId: string, externalId: string): string {
  return `${prefix}_${hash("sha256", `${connectorId}\0${externalId}`, "base64url").slice(0, 27)}`;
}

/** An agent's id (agent-guard's `agentIdOf`, mirrored: remediation does not depend on agent-guard). */
export function agentIdOf(connectorId: string, clientKey: string): string {
  return `agt_${createHash("sha256").update(`${connectorId}\0${clientKey}`).digest("hex").slice(0, 24)}`;
}

export type TConnectorInfo = { id: string; type: string; displayName: string; writeAccess: boolean };

/** Whether a change can be put back on this connector's source (connectors' one rule for it). */
export function reversibilityOf(
  connectorType: string,
  action: TRemediationAction,
): { reversible: boolean; reason: string | null } {
  const r = sourceReversibility(connectorType as TConnectorType, action);
  return r.reversible ? { reversible: true, reason: null } : { reversible: false, reason: r.reason };
}

export type TDraftStep = {
  key: string;
  connectorId: string;
  action: TRemediationAction;
  resource: TRemediationResource;
  before: Record<string, unknown>;
  after: Record<string, unknown> | null;
  findingIds: string[];
  people: string[];
  /** Sorting key: permissions by file, then transfers, then grants. */
  order: string;
};

export type TSkipped = { findingId: string | null; ref: string | null; reason: string };

/** A finding the draft resolves completely (every permission or grant it names is removed). */
export type TFixedFinding = { id: string; ruleId: string; category: string; severity: TSeverity };

export type TDraft = {
  steps: TDraftStep[];
  skipped: TSkipped[];
  fixed: TFixedFinding[];
  connectors: Map<string, TConnectorInfo>;
  /** For the compliance what-if. */
  effects: {
    filesNoLongerPublic: number;
    filesNoLongerExternal: number;
    riskySharersCleared: number;
    grantsRevoked: { total: number; unverified: number; aiAgents: number };
  };
};

export type TDraftInput = {
  findingIds?: readonly string[] | undefined;
  shareIds?: readonly string[] | undefined;
  agentIds?: readonly string[] | undefined;
  playbook?: { kind: "offboard_user"; userEmail: string; transferTo?: string | undefined } | undefined;
  /** A quick win's group: every open finding of it. */
  quickWin?: (typeof QUICK_WIN_GROUPS)[number]["key"] | undefined;
  /** What happens to `org_wide_link` findings' links: removed (default) or made link-only. */
  orgWideLinks?: "remove" | "restrict" | undefined;
};

type TFindingRow = {
  id: string;
  connector_id: string;
  rule_id: string;
  category: string;
  severity: TSeverity;
  status: string;
  resource_id: string;
  /** Internal-exposure findings only (the planner reads their permissions from it). */
  details: TInternalDetails | null;
};

/** An internal-exposure finding's details, as far as the planner reads them (CONTRACT, issue 30). */
type TInternalDetails = {
  permissionIds?: unknown;
  links?: Array<{ permissionId?: string; role?: string; discoverable?: boolean; expiresAt?: string | null }>;
  grants?: Array<{ permissionId?: string; role?: string; everyone?: "all" | "members" }>;
  groups?: Array<{ permissionId?: string; email?: string; role?: string; memberCount?: number }>;
};

type TPermRow = {
  connector_id: string;
  file_row: string;
  file_ext: string;
  name: string;
  owner_email: string;
  drive_id: string | null;
  perm_id: string;
  sharing_type: "public" | "external_user" | "external_domain";
  target: string;
  role: string;
};

/** An internal grant's row: a permission row whose sharing type is `internal` (not an outside one). */
type TInternalPermRow = Omit<TPermRow, "sharing_type">;

type TGrantRow = {
  id: string;
  connector_id: string;
  external_id: string;
  client_key: string;
  client_id: string;
  label: string;
  kind: string;
  user_email: string;
  scopes: string[];
  is_known_publisher: boolean;
};

/** The kind of outside access a finding names in the store. */
const FILE_RULES: Record<string, "public" | "external"> = {
  [RULE_IDS.publicLink]: "public",
  [RULE_IDS.externalShare]: "external",
};
const APP_RULES = new Set<string>([
  RULE_IDS.appBroadScopesUnverified,
  RULE_IDS.appBroadScopes,
  RULE_IDS.appUnverifiedPublisher,
]);

/** Internal exposure (issue 30): the action that removes what each rule's finding names. */
const INTERNAL_RULES: Record<string, TRemediationAction> = {
  [RULE_IDS.orgWideLink]: "remove_org_wide_link",
  [RULE_IDS.orgWideGrant]: "remove_everyone_grant",
  [RULE_IDS.broadGroupGrant]: "remove_group_grant",
};
const INTERNAL_ACTIONS = new Set<TRemediationAction>([
  ...Object.values(INTERNAL_RULES),
  "restrict_org_wide_link",
]);

const RESTRICTED_REASON =
  "Restricted, not removed: its links become link-only, so nobody finds the file by search (nor an assistant's index) without the link, but everyone in the organization who has a link still opens it. Remove the links to resolve the finding";

const fmtCount = (n: number) => n.toLocaleString("en-US");

/** Why a finding no step can fix is skipped. */
function unfixableReason(f: TFindingRow): string {
  if (f.category === "tenant_configuration")
    return "A tenant setting: change it in the admin console (the finding's fix names it)";
  if (f.category === "identity")
    return "An account finding (MFA, dormant account, administrators): fixed by the account's owner or an administrator, not by removing access";
  if (f.rule_id === RULE_IDS.sharedDriveExternalMembers)
    return "Shared-drive membership is not changed by remediation: remove the outside members in the admin console";
  return `No remediation action fixes ${f.rule_id} findings`;
}

const kindOf = (t: TPermRow["sharing_type"]) => (t === "public" ? "public" : "external");

const ACTION_OF: Record<TPermRow["sharing_type"], TRemediationAction> = {
  public: "remove_public_link",
  external_user: "remove_external_user",
  external_domain: "remove_external_domain",
};
const TYPE_OF: Record<TPermRow["sharing_type"], string> = {
  public: "anyone",
  external_user: "user",
  external_domain: "domain",
};

/** Who loses access when a permission goes. */
function peopleOf(p: TPermRow): string[] {
  if (p.sharing_type === "public") return [PUBLIC_AUDIENCE];
  if (p.sharing_type === "external_domain") return [`anyone at ${p.target}`];
  return [p.target];
}

/**
 * Works out a plan's steps without writing anything: which permissions and grants go, which
 * findings that fixes completely, and what it does to the files and apps the compliance
 * evaluation counts. Unknown ids of the organization are 404; what cannot be fixed is skipped.
 */
export async function draftPlan(db: Db, q: { orgId: string } & TDraftInput): Promise<TDraft> {
  const { orgId, ...input } = q;
  const skipped: TSkipped[] = [];
  /** Files whose permissions of some sharing types go: `${connector}\0${fileRow}` → types. */
  const fileKinds = new Map<string, Set<TPermRow["sharing_type"]>>();
  const fileRefs = new Map<string, { connectorId: string; fileRow: string }>();
  const wantFile = (connectorId: string, fileRow: string, kind: "external" | TPermRow["sharing_type"]) => {
    const key = `${connectorId}\0${fileRow}`;
    const kinds = fileKinds.get(key) ?? new Set();
    if (kind === "external") {
      kinds.add("external_user");
      kinds.add("external_domain");
    } else kinds.add(kind);
    fileKinds.set(key, kinds);
    fileRefs.set(key, { connectorId, fileRow });
  };
  /** Grants to revoke: by app (connector + client key) or one user's grants. */
  const appKeys = new Set<string>();
  const grantUsers = new Set<string>();
  let offboard: { email: string; transferTo: string | null } | null = null;
  const requested = new Set<string>();
  /** Open internal-exposure findings: their own permissions go (or their links are restricted). */
  const internal: TFindingRow[] = [];
  /** Open `deploy_key_write` findings: their writable keys go (draft-deploy-keys.ts). */
  const keyFindings: TDeployKeyFinding[] = [];

  // Findings: those named, and a quick win's group (its open findings, read in SQL).
  const findingIds = [...new Set(input.findingIds ?? [])];
  const group = QUICK_WIN_GROUPS.find((g) => g.key === input.quickWin);
  if (group) {
    const trusted = sql`COALESCE((details->>'trustedOnly')::boolean, false)`;
    const rows = await queryRows<{ id: string }>(
      db,
      sql`SELECT id FROM findings WHERE org_id = ${orgId} AND status = 'OPEN' AND rule_id = ${group.ruleId}
          ${group.trustedOnly === null ? sql`` : sql`AND ${trusted} = ${group.trustedOnly}`}`,
    );
    for (const r of rows) if (!findingIds.includes(r.id)) findingIds.push(r.id);
  }
  if (findingIds.length > 0) {
    const rows = await queryRows<TFindingRow>(
      db,
      sql`SELECT id, connector_id, rule_id, category, severity, status, resource_id,
            CASE WHEN rule_id = ANY(${arrayLiteral([...Object.keys(INTERNAL_RULES), RULE_IDS.deployKeyWrite])}::text[]) THEN details END AS details
          FROM findings
          WHERE org_id = ${orgId} AND id = ANY(${arrayLiteral(findingIds)}::text[])`,
    );
    const found = new Set(rows.map((r) => r.id));
    const missing = findingIds.filter((id) => !found.has(id));
    if (missing.length > 0)
      throw new AppError("not_found", `Finding not found: ${missing.slice(0, 5).join(", ")}`, { missing });
    for (const f of rows) {
      requested.add(f.id);
      if (f.status !== "OPEN") {
        skipped.push({
          findingId: f.id,
          ref: null,
          reason: f.status === "ACCEPTED" ? "Accepted: a sharing approval covers it" : "Already resolved",
        });
        continue;
      }
      const kind = FILE_RULES[f.rule_id];
      if (kind) wantFile(f.connector_id, storeId("wsf", f.connector_id, f.resource_id), kind);
      else if (INTERNAL_RULES[f.rule_id]) internal.push(f);
      else if (f.rule_id === RULE_IDS.deployKeyWrite)
        keyFindings.push({ ...f, details: f.details as TDeployKeyFinding["details"] });
      else if (APP_RULES.has(f.rule_id)) appKeys.add(`${f.connector_id}\0${f.resource_id}`);
      else skipped.push({ findingId: f.id, ref: null, reason: unfixableReason(f) });
    }
  }

  // Sharing items: `<file row id>|<type>`.
  const shareIds = [...new Set(input.shareIds ?? [])];
  if (shareIds.length > 0) {
    const rows = await queryRows<{ id: string; connector_id: string; file_id: string; sharing_type: string }>(
      db,
      sql`SELECT id, connector_id, file_id, sharing_type FROM workspace_shares
          WHERE org_id = ${orgId} AND id = ANY(${arrayLiteral(shareIds)}::text[])`,
    );
    const found = new Set(rows.map((r) => r.id));
    const missing = shareIds.filter((id) => !found.has(id));
    if (missing.length > 0)
      throw new AppError("not_found", `Sharing item not found: ${missing.slice(0, 5).join(", ")}`, {
        missing,
      });
    for (const r of rows) wantFile(r.connector_id, r.file_id, r.sharing_type as TPermRow["sharing_type"]);
  }

  // Agents: every grant of the app.
  const agentIds = [...new Set(input.agentIds ?? [])];
  if (agentIds.length > 0) {
    const apps = await queryRows<{ connector_id: string; client_key: string }>(
      db,
      sql`SELECT DISTINCT connector_id, COALESCE(NULLIF(client_id, ''), external_id) AS client_key
          FROM oauth_grants WHERE org_id = ${orgId}`,
    );
    const byId = new Map(apps.map((a) => [agentIdOf(a.connector_id, a.client_key), a]));
    const missing = agentIds.filter((id) => !byId.has(id));
    if (missing.length > 0)
      throw new AppError("not_found", `Agent not found: ${missing.slice(0, 5).join(", ")}`, { missing });
    for (const id of agentIds) {
      const a = byId.get(id);
      if (a) appKeys.add(`${a.connector_id}\0${a.client_key}`);
    }
  }

  // Offboarding: every outside share of the person's files, every grant of theirs.
  if (input.playbook) {
    const email = input.playbook.userEmail.toLowerCase();
    offboard = { email, transferTo: input.playbook.transferTo?.toLowerCase() ?? null };
    const owned = await queryRows<{ connector_id: string; file_id: string }>(
      db,
      sql`SELECT DISTINCT connector_id, file_id FROM workspace_shares
          WHERE org_id = ${orgId} AND owner_email = ANY(${arrayLiteral([...new Set([email, input.playbook.userEmail])])}::text[])`,
    );
    for (const r of owned) {
      wantFile(r.connector_id, r.file_id, "public");
      wantFile(r.connector_id, r.file_id, "external");
    }
    grantUsers.add(email);
  }

  // Every outside permission of the files touched: what goes, and what stays.
  const refs = [...fileRefs.values()];
  const perms =
    refs.length === 0
      ? []
      : await queryRows<TPermRow>(
          db,
          sql`SELECT p.connector_id, f.id AS file_row, f.external_id AS file_ext, f.name, f.owner_email,
                f.drive_external_id AS drive_id, p.external_id AS perm_id, p.sharing_type, p.target, p.role
              FROM workspace_files f
              JOIN workspace_permissions p ON p.connector_id = f.connector_id AND p.file_id = f.id
              WHERE f.org_id = ${orgId}
                AND f.connector_id = ANY(${arrayLiteral([...new Set(refs.map((r) => r.connectorId))])}::text[])
                AND f.id = ANY(${arrayLiteral(refs.map((r) => r.fileRow))}::text[])
                AND p.connector_id = ANY(${arrayLiteral([...new Set(refs.map((r) => r.connectorId))])}::text[])
                AND p.file_id = ANY(${arrayLiteral(refs.map((r) => r.fileRow))}::text[])
                AND p.sharing_type <> 'internal'`,
        );

  // Grants: of the apps asked for, and of the person offboarded.
  const appList = [...appKeys].map((k) => k.split("\0") as [string, string]);
  const grants =
    appList.length === 0 && grantUsers.size === 0
      ? []
      : await queryRows<TGrantRow>(
          db,
          sql`SELECT g.id, g.connector_id, g.external_id, COALESCE(NULLIF(g.client_id, ''), g.external_id) AS client_key,
                g.client_id, g.label, g.kind, g.user_email, g.scopes, g.is_known_publisher
              FROM oauth_grants g
              WHERE g.org_id = ${orgId} AND (
                (g.connector_id, COALESCE(NULLIF(g.client_id, ''), g.external_id)) IN (
                  SELECT * FROM unnest(${arrayLiteral(appList.map((a) => a[0]))}::text[], ${arrayLiteral(appList.map((a) => a[1]))}::text[]))
                OR lower(g.user_email) = ANY(${arrayLiteral([...grantUsers])}::text[]))`,
        );

  // The internal permissions of the internal-exposure findings' files, as the store has them.
  const internalFiles = internal.map((f) => ({
    connectorId: f.connector_id,
    fileRow: storeId("wsf", f.connector_id, f.resource_id),
  }));
  const internalConnectors = [...new Set(internalFiles.map((r) => r.connectorId))];
  const internalPerms =
    internal.length === 0
      ? []
      : await queryRows<TInternalPermRow>(
          db,
          sql`SELECT p.connector_id, f.id AS file_row, f.external_id AS file_ext, f.name, f.owner_email,
                f.drive_external_id AS drive_id, p.external_id AS perm_id, p.target, p.role
              FROM workspace_files f
              JOIN workspace_permissions p ON p.connector_id = f.connector_id AND p.file_id = f.id
              WHERE f.org_id = ${orgId}
                AND f.connector_id = ANY(${arrayLiteral(internalConnectors)}::text[])
                AND f.id = ANY(${arrayLiteral(internalFiles.map((r) => r.fileRow))}::text[])
                AND p.connector_id = ANY(${arrayLiteral(internalConnectors)}::text[])
                AND p.file_id = ANY(${arrayLiteral(internalFiles.map((r) => r.fileRow))}::text[])
                AND p.sharing_type = 'internal'`,
        );
  const orgName =
    internal.length === 0
      ? ""
      : ((await queryRows<{ name: string }>(db, sql`SELECT name FROM organizations WHERE id = ${orgId}`))[0]
          ?.name ?? "the organization");

  const connectorIds = [
    ...new Set([
      ...perms.map((p) => p.connector_id),
      ...grants.map((g) => g.connector_id),
      ...internalPerms.map((p) => p.connector_id),
      ...keyFindings.map((f) => f.connector_id),
    ]),
  ];
  const connectorRows =
    connectorIds.length === 0
      ? []
      : await queryRows<{ id: string; type: string; display_name: string; write_access: boolean }>(
          db,
          sql`SELECT id, type, display_name, write_access FROM connectors
              WHERE org_id = ${orgId} AND id = ANY(${arrayLiteral(connectorIds)}::text[])`,
        );
  const connectors = new Map(
    connectorRows.map((c) => [
      c.id,
      { id: c.id, type: c.type, displayName: c.display_name, writeAccess: c.write_access },
    ]),
  );

  // The steps.
  const steps = new Map<string, TDraftStep>();
  const removed = new Set<string>();
  const remaining = new Map<
    string,
    { public: number; external: number; removedPublic: number; removedExternal: number; p: TPermRow }
  >();
  for (const p of perms) {
    const fileKey = `${p.connector_id}\0${p.file_row}`;
    const r = remaining.get(fileKey) ?? { public: 0, external: 0, removedPublic: 0, removedExternal: 0, p };
    const kind = kindOf(p.sharing_type);
    r[kind]++;
    remaining.set(fileKey, r);
    if (!fileKinds.get(fileKey)?.has(p.sharing_type)) continue;
    if (kind === "public") r.removedPublic++;
    else r.removedExternal++;
    const key = `perm:${p.connector_id}:${p.file_ext}:${p.perm_id}`;
    removed.add(key);
    steps.set(key, {
      key,
      connectorId: p.connector_id,
      action: ACTION_OF[p.sharing_type],
      resource: {
        kind: "permission",
        fileId: p.file_ext,
        driveId: p.drive_id,
        name: p.name,
        ownerEmail: p.owner_email,
        permissionId: p.perm_id,
      },
      before: { type: TYPE_OF[p.sharing_type], role: p.role, target: p.target },
      after: null,
      findingIds: [],
      people: peopleOf(p),
      order: `0:${p.connector_id}:${p.name}:${p.file_ext}:${p.sharing_type}:${p.perm_id}`,
    });
  }

  // Ownership transfers (offboarding with transferTo): each of the person's externally shared files.
  if (offboard?.transferTo) {
    const to = offboard.transferTo;
    const files = new Map<string, TPermRow>();
    for (const p of perms)
      if (p.owner_email.toLowerCase() === offboard.email) files.set(`${p.connector_id}\0${p.file_row}`, p);
    const byConnector = new Map<string, TPermRow[]>();
    for (const p of files.values())
      byConnector.set(p.connector_id, [...(byConnector.get(p.connector_id) ?? []), p]);
    const transferable = [...byConnector.keys()].filter((id) => connectors.get(id)?.type !== "microsoft_365");
    const active =
      transferable.length === 0
        ? []
        : await queryRows<{ connector_id: string }>(
            db,
            sql`SELECT connector_id FROM workspace_users
                WHERE org_id = ${orgId} AND connector_id = ANY(${arrayLiteral(transferable)}::text[])
                  AND lower(email) = ${to} AND status = 'active'`,
          );
    const activeIn = new Set(active.map((a) => a.connector_id));
    for (const [connectorId, list] of byConnector) {
      const c = connectors.get(connectorId);
      if (c?.type === "microsoft_365") {
        for (const p of list)
          skipped.push({
            findingId: null,
            ref: `file:${p.file_ext}`,
            reason: `Microsoft 365 cannot transfer a OneDrive file's ownership: ${p.name} stays ${p.owner_email}'s`,
          });
        continue;
      }
      if (!activeIn.has(connectorId))
        throw new AppError(
          "invalid_input",
          `transferTo ${to} is not an active user of ${c?.displayName ?? connectorId}: ownership goes only to an internal, active user of the same source`,
        );
      for (const p of list) {
        if (p.drive_id !== null) {
          skipped.push({
            findingId: null,
            ref: `file:${p.file_ext}`,
            reason: `${p.name} is on a shared drive: the drive, not a person, owns it`,
          });
          continue;
        }
        const key = `owner:${connectorId}:${p.file_ext}`;
        steps.set(key, {
          key,
          connectorId,
          action: "transfer_ownership",
          resource: {
            kind: "file_owner",
            fileId: p.file_ext,
            driveId: p.drive_id,
            name: p.name,
            ownerEmail: p.owner_email,
          },
          before: { owner: p.owner_email },
          after: { owner: to, previousOwnerRole: "writer" },
          findingIds: [],
          people: [p.owner_email, to],
          order: `1:${connectorId}:${p.name}:${p.file_ext}`,
        });
      }
    }
  }

  // Grants.
  const appGrants = new Map<string, { total: number; revoked: number }>();
  for (const g of grants) {
    const appKey = `${g.connector_id}\0${g.client_key}`;
    const a = appGrants.get(appKey) ?? { total: 0, revoked: 0 };
    a.total++;
    appGrants.set(appKey, a);
  }
  // Every grant of an app asked for; the offboarded person's own grants.
  const appsWanted = new Set(appKeys);
  const grantsRevoked = { total: 0, unverified: 0, aiAgents: 0 };
  for (const g of grants) {
    const appKey = `${g.connector_id}\0${g.client_key}`;
    if (!appsWanted.has(appKey) && !grantUsers.has(g.user_email.toLowerCase())) continue;
    const key = `grant:${g.connector_id}:${g.external_id}`;
    if (steps.has(key)) continue;
    const a = appGrants.get(appKey);
    if (a) a.revoked++;
    grantsRevoked.total++;
    if (!g.is_known_publisher) grantsRevoked.unverified++;
    if (g.kind === "ai_agent") grantsRevoked.aiAgents++;
    steps.set(key, {
      key,
      connectorId: g.connector_id,
      action: "revoke_oauth_grant",
      resource: {
        kind: "grant",
        grantId: g.external_id,
        clientId: g.client_id || g.client_key,
        label: g.label,
        userEmail: g.user_email,
      },
      before: { clientId: g.client_id || g.client_key, label: g.label, kind: g.kind, scopes: g.scopes },
      after: null,
      findingIds: [],
      people: [g.user_email],
      order: `2:${g.connector_id}:${g.label}:${g.user_email}:${g.external_id}`,
    });
  }

  // Internal exposure: each finding's own permissions, still in the store, go (or are restricted).
  const internalFixed: Array<TFixedFinding & { connector_id: string; resource_id: string }> = [];
  const byFile = new Map<string, Map<string, TInternalPermRow>>();
  for (const p of internalPerms) {
    const k = `${p.connector_id}\0${p.file_ext}`;
    const m = byFile.get(k) ?? new Map<string, TInternalPermRow>();
    m.set(p.perm_id, p);
    byFile.set(k, m);
  }
  for (const f of internal) {
    const details = f.details ?? {};
    const ids = Array.isArray(details.permissionIds)
      ? details.permissionIds.filter((x): x is string => typeof x === "string")
      : [];
    const stored = byFile.get(`${f.connector_id}\0${f.resource_id}`) ?? new Map<string, TInternalPermRow>();
    const present = ids.flatMap((id) => {
      const p = stored.get(id);
      return p ? [p] : [];
    });
    const connectorType = connectors.get(f.connector_id)?.type;
    const restrict = f.rule_id === RULE_IDS.orgWideLink && input.orgWideLinks === "restrict";
    if (restrict && connectorType === "microsoft_365") {
      skipped.push({ findingId: f.id, ref: null, reason: NO_RESTRICT_REASON });
      continue;
    }
    const linkOf = new Map((details.links ?? []).map((l) => [l.permissionId, l]));
    const grantOf = new Map((details.grants ?? []).map((g) => [g.permissionId, g]));
    const groupOf = new Map((details.groups ?? []).map((g) => [g.permissionId, g]));
    const targets = restrict ? present.filter((p) => linkOf.get(p.perm_id)?.discoverable === true) : present;
    if (targets.length === 0) {
      skipped.push({
        findingId: f.id,
        ref: null,
        reason:
          restrict && present.length > 0
            ? "Its links are link-only already: remove them to resolve it"
            : "Nothing left to remove in the latest scan: the next scan resolves it",
      });
      continue;
    }
    const action: TRemediationAction = restrict
      ? "restrict_org_wide_link"
      : (INTERNAL_RULES[f.rule_id] ?? "remove_org_wide_link");
    for (const p of targets) {
      const link = linkOf.get(p.perm_id);
      const grant = grantOf.get(p.perm_id);
      const group = groupOf.get(p.perm_id);
      const everyone = `everyone in ${orgName}`;
      const people =
        f.rule_id === RULE_IDS.broadGroupGrant
          ? [
              `${group?.email ?? p.target}${typeof group?.memberCount === "number" ? ` (${fmtCount(group.memberCount)} members)` : ""}`,
            ]
          : f.rule_id === RULE_IDS.orgWideGrant && grant?.everyone === "all"
            ? [`${everyone}, guests included`]
            : [everyone];
      const key = `perm:${p.connector_id}:${p.file_ext}:${p.perm_id}`;
      const existing = steps.get(key);
      if (existing) {
        if (!restrict && !existing.findingIds.includes(f.id)) existing.findingIds.push(f.id);
        continue;
      }
      steps.set(key, {
        key,
        connectorId: p.connector_id,
        action,
        resource: {
          kind: "permission",
          fileId: p.file_ext,
          driveId: p.drive_id,
          name: p.name,
          ownerEmail: p.owner_email,
          permissionId: p.perm_id,
        },
        before: {
          type: f.rule_id === RULE_IDS.broadGroupGrant ? "group" : "domain",
          role: p.role,
          target: p.target,
          ...(link ? { discoverable: link.discoverable === true, expiresAt: link.expiresAt ?? null } : {}),
          ...(grant?.everyone ? { everyone: grant.everyone } : {}),
          ...(typeof group?.memberCount === "number" ? { memberCount: group.memberCount } : {}),
        },
        after: restrict ? { discoverable: false } : null,
        findingIds: restrict ? [] : [f.id],
        people: restrict ? [] : people,
        order: `0:${p.connector_id}:${p.name}:${p.file_ext}:internal:${p.perm_id}`,
      });
    }
    if (restrict) skipped.push({ findingId: f.id, ref: null, reason: RESTRICTED_REASON });
    else
      internalFixed.push({
        id: f.id,
        ruleId: f.rule_id,
        category: f.category,
        severity: f.severity,
        connector_id: f.connector_id,
        resource_id: f.resource_id,
      });
  }

  // Which open findings the steps fix completely.
  const fixedFiles: Array<[string, string, string]> = []; // connector, file external id, rule
  let filesNoLongerPublic = 0;
  let filesNoLongerExternal = 0;
  const leavingByOwner = new Map<string, number>(); // connector\0owner → files leaving outside sharing
  for (const r of remaining.values()) {
    const publicFixed = r.public > 0 && r.removedPublic === r.public;
    const externalFixed = r.external > 0 && r.removedExternal === r.external;
    if (publicFixed) fixedFiles.push([r.p.connector_id, r.p.file_ext, RULE_IDS.publicLink]);
    if (externalFixed) fixedFiles.push([r.p.connector_id, r.p.file_ext, RULE_IDS.externalShare]);
    if (publicFixed) filesNoLongerPublic++;
    const noneLeft = r.removedPublic + r.removedExternal === r.public + r.external;
    if (noneLeft && r.removedPublic + r.removedExternal > 0) {
      filesNoLongerExternal++;
      const ownerKey = `${r.p.connector_id}\0${r.p.owner_email}`;
      leavingByOwner.set(ownerKey, (leavingByOwner.get(ownerKey) ?? 0) + 1);
    }
  }
  const fixedApps: Array<[string, string]> = [];
  for (const [k, a] of appGrants)
    if (a.total > 0 && a.revoked === a.total) fixedApps.push(k.split("\0") as [string, string]);

  // Looked up by (connector, fingerprint), the findings' unique key: sha256("<rule>:<resource>").
  const wanted: Array<[string, string]> = [
    ...fixedFiles.map(([c, resource, rule]) => [c, fingerprintOf(rule, resource)] as [string, string]),
    ...fixedApps.flatMap(([c, resource]) =>
      [...APP_RULES].map((rule) => [c, fingerprintOf(rule, resource)] as [string, string]),
    ),
  ];
  const fixed =
    wanted.length === 0
      ? []
      : await queryRows<TFixedFinding & { connector_id: string; resource_id: string }>(
          db,
          sql`SELECT f.id, f.rule_id AS "ruleId", f.category, f.severity, f.connector_id, f.resource_id
              FROM findings f
              JOIN unnest(${arrayLiteral(wanted.map((w) => w[0]))}::text[], ${arrayLiteral(wanted.map((w) => w[1]))}::text[])
                AS k(connector_id, fingerprint)
                ON f.connector_id = k.connector_id AND f.fingerprint = k.fingerprint
              WHERE f.org_id = ${orgId} AND f.status = 'OPEN'`,
        );

  // Each step names the findings it helps fix.
  const findingsOf = new Map<string, string[]>();
  for (const f of fixed) {
    const k = `${f.connector_id}\0${f.resource_id}\0${f.ruleId}`;
    findingsOf.set(k, [...(findingsOf.get(k) ?? []), f.id]);
  }
  for (const s of steps.values()) {
    const r = s.resource;
    // Internal-exposure steps name their own finding (set where they were made).
    if (INTERNAL_ACTIONS.has(s.action)) continue;
    if (r.kind === "permission") {
      const rule = s.action === "remove_public_link" ? RULE_IDS.publicLink : RULE_IDS.externalShare;
      s.findingIds = findingsOf.get(`${s.connectorId}\0${r.fileId}\0${rule}`) ?? [];
    } else if (r.kind === "grant") {
      const clientKey = (s.before.clientId as string) ?? r.clientId;
      s.findingIds = [...APP_RULES].flatMap(
        (rule) => findingsOf.get(`${s.connectorId}\0${clientKey}\0${rule}`) ?? [],
      );
    }
  }

  fixed.push(...internalFixed);
  const keyed = await deployKeySteps(db, { orgId, findings: keyFindings });
  for (const s of keyed.steps) steps.set(s.key, s);
  fixed.push(...keyed.fixed);
  skipped.push(...keyed.skipped);

  // Requested findings no step fixes completely (the store no longer holds the file, or the app).
  const fixedIds = new Set(fixed.map((f) => f.id));
  const skippedIds = new Set(skipped.map((s) => s.findingId));
  for (const id of requested)
    if (!fixedIds.has(id) && !skippedIds.has(id))
      skipped.push({
        findingId: id,
        ref: null,
        reason: "Nothing left to remove in the latest scan: the next scan resolves it",
      });

  // Owners who would no longer own an externally shared file (compliance: risky sharers).
  let riskySharersCleared = 0;
  if (leavingByOwner.size > 0) {
    const owners = [...leavingByOwner.keys()].map((k) => k.split("\0") as [string, string]);
    const rows = await queryRows<{ connector_id: string; email: string; n: number }>(
      db,
      sql`SELECT u.connector_id, u.email, u.external_shares_owned AS n FROM workspace_users u
          JOIN unnest(${arrayLiteral(owners.map((o) => o[0]))}::text[], ${arrayLiteral(owners.map((o) => o[1]))}::text[])
            AS k(connector_id, email) ON u.connector_id = k.connector_id AND lower(u.email) = lower(k.email)
          WHERE u.org_id = ${orgId} AND u.status = 'active' AND u.external_shares_owned > 0`,
    );
    const leavingOf = new Map([...leavingByOwner].map(([k, n]) => [k.toLowerCase(), n]));
    for (const r of rows) {
      const leaving = leavingOf.get(`${r.connector_id}\0${r.email}`.toLowerCase());
      if (leaving !== undefined && leaving >= r.n) riskySharersCleared++;
    }
  }

  return {
    steps: [...steps.values()].sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0)),
    skipped,
    fixed: fixed.map(({ id, ruleId, category, severity }) => ({ id, ruleId, category, severity })),
    connectors,
    effects: { filesNoLongerPublic, filesNoLongerExternal, riskySharersCleared, grantsRevoked },
  };
}
