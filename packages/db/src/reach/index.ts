import { createHash } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db } from "../client";
import { arrayLiteral } from "../upsert";
import { EXPOSURES, SENSITIVITIES, type TExposure, type TSensitivity } from "../schema/workspace-files";

/**
 * Who can open a file (issue 30), as set-based SQL over the resource store: a person can open a
 * file they own, are granted directly, are in a granted group (`workspace_groups.member_emails`),
 * are a member of its shared drive (`workspace_drives.members`), or that reaches everyone in the
 * organization (`workspace_files.reach_org_wide`, an internal domain / everyone grant, or a
 * public link). Only files of the connectors the people belong to count: a Copilot user of the
 * Microsoft tenant does not reach the Google files.
 *
 * The people are a set, never a loop: every branch is one join over an index
 * (`workspace_files_connector_owner_idx`, `workspace_permissions_connector_target_idx`, the
 * permissions' org/type index), unioned once.
 */
export type TReachWho =
  /** Everyone of the organization (or of the listed connectors): every stored file. */
  | { kind: "all"; connectorIds?: readonly string[] }
  /** The active users licensed for any of the assistants (`workspace_users.assistants`). */
  | { kind: "assistant"; assistants: readonly string[]; connectorIds?: readonly string[] }
  /** Named people of connectors (e-mails compared lower-case). */
  | { kind: "users"; users: ReadonlyArray<{ connectorId: string; email: string }> }
  /** The users who granted an app (`oauth_grants` of the connector whose client id or external id is the key). */
  | { kind: "grantees"; connectorId: string; clientKey: string };

export type TReachCounts = {
  total: number;
  /** Highly sensitive files (`sensitivity = 'high'`). */
  sensitive: number;
  /** Files that reach everyone in the organization. */
  orgWide: number;
  bySensitivity: Record<TSensitivity, number>;
  byExposure: Record<TExposure, number>;
};

export type TReachRow = {
  fileId: string;
  connectorId: string;
  name: string;
  mimeType: string;
  ownerEmail: string;
  sensitivity: TSensitivity;
  exposure: TExposure;
  /** The source's sensitivity label, null when none. */
  label: string | null;
  reach: { people: number; orgWide: boolean };
};

/** A workspace_files row as the reach queries select it (snake case, straight from SQL). */
export type TReachFileRow = {
  id: string;
  name: string;
  mime_type: string;
  owner_email: string;
  sensitivity: TSensitivity;
  exposure: TExposure;
  labels: string[];
  reach_people: number;
  org_wide: boolean;
};

/** The wire shape of one reach query row. */
export const reachRowOf = (connectorId: string, r: TReachFileRow): TReachRow => ({
  fileId: r.id,
  connectorId,
  name: r.name,
  mimeType: r.mime_type,
  ownerEmail: r.owner_email,
  sensitivity: r.sensitivity,
  exposure: r.exposure,
  label: r.labels[0] ?? null,
  reach: { people: Number(r.reach_people), orgWide: r.org_wide },
});

const connectorFilter = (column: SQL, ids: readonly string[] | undefined): SQL =>
  ids === undefined ? sql`TRUE` : sql`${column} = ANY(${arrayLiteral(ids)}::text[])`;

/** `(connector_id, email)` rows of the people, distinct and lower-case. */
function peopleSql(orgId: string, who: Exclude<TReachWho, { kind: "all" }>): SQL {
  if (who.kind === "assistant")
    return sql`SELECT DISTINCT u.connector_id, u.email FROM workspace_users u
      WHERE u.org_id = ${orgId} AND u.status = 'active' AND u.assistants && ${arrayLiteral(who.assistants)}::text[]
        AND ${connectorFilter(sql`u.connector_id`, who.connectorIds)}`;
  if (who.kind === "grantees")
    return sql`SELECT DISTINCT g.connector_id, lower(g.user_email) AS email FROM oauth_grants g
      WHERE g.org_id = ${orgId} AND g.connector_id = ${who.connectorId}
        AND (g.client_id = ${who.clientKey} OR g.external_id = ${who.clientKey})`;
  const connectorIds = who.users.map((u) => u.connectorId);
  const emails = who.users.map((u) => u.email.toLowerCase());
  return sql`SELECT DISTINCT w.connector_id, w.email
    FROM unnest(${arrayLiteral(connectorIds)}::text[], ${arrayLiteral(emails)}::text[]) AS w(connector_id, email)
    JOIN connectors c ON c.id = w.connector_id AND c.org_id = ${orgId}`;
}

/**
 * The CTEs ending in `reach(id, connector_id)`: the distinct files `who` can open. Prefix a query
 * with it (`WITH ... SELECT ... FROM reach`).
 */
export function reachCte(orgId: string, who: TReachWho): SQL {
  if (who.kind === "all")
    return sql`reach AS (
      SELECT f.id, f.connector_id FROM workspace_files f
      WHERE f.org_id = ${orgId} AND ${connectorFilter(sql`f.connector_id`, who.connectorIds)})`;
  return sql`who AS MATERIALIZED (${peopleSql(orgId, who)}),
    conns AS MATERIALIZED (SELECT DISTINCT connector_id FROM who),
    grp AS (
      SELECT g.connector_id, lower(g.email) AS email FROM workspace_groups g
      JOIN conns c ON c.connector_id = g.connector_id
      WHERE EXISTS (SELECT 1 FROM who w WHERE w.connector_id = g.connector_id AND w.email = ANY(g.member_emails))),
    targets AS (SELECT connector_id, email FROM who UNION SELECT connector_id, email FROM grp),
    drv AS (
      SELECT d.connector_id, d.external_id FROM workspace_drives d
      JOIN conns c ON c.connector_id = d.connector_id
      WHERE d.org_id = ${orgId} AND EXISTS (
        SELECT 1 FROM jsonb_array_elements(d.members) m
        JOIN who w ON w.connector_id = d.connector_id AND w.email = lower(m->>'email'))),
    reach AS (
      SELECT f.id, f.connector_id FROM workspace_files f
      JOIN conns c ON c.connector_id = f.connector_id
      WHERE f.org_id = ${orgId} AND f.reach_org_wide
      UNION
      SELECT p.file_id, p.connector_id FROM workspace_permissions p
      JOIN conns c ON c.connector_id = p.connector_id
      WHERE p.org_id = ${orgId}
        AND (p.sharing_type = 'public' OR (p.sharing_type = 'internal' AND strpos(p.target, '@') = 0))
      UNION
      SELECT f.id, f.connector_id FROM workspace_files f
      JOIN who w ON w.connector_id = f.connector_id AND w.email = f.owner_email
      WHERE f.org_id = ${orgId}
      UNION
      SELECT p.file_id, p.connector_id FROM workspace_permissions p
      JOIN targets t ON t.connector_id = p.connector_id AND t.email = p.target
      WHERE p.org_id = ${orgId}
      UNION
      SELECT f.id, f.connector_id FROM workspace_files f
      JOIN drv ON drv.connector_id = f.connector_id AND drv.external_id = f.drive_external_id
      WHERE f.org_id = ${orgId})`;
}

const SENSITIVITY_ORDER = sql`CASE f.sensitivity WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END`;

/** How many files `who` can open, by sensitivity and exposure. One statement. */
export async function reachCounts(db: Db, orgId: string, who: TReachWho): Promise<TReachCounts> {
  const counts = [
    ...SENSITIVITIES.map(
      (s) => sql`count(*) FILTER (WHERE f.sensitivity = ${s})::int AS ${sql.identifier(`s_${s}`)}`,
    ),
    ...EXPOSURES.map(
      (e) => sql`count(*) FILTER (WHERE f.exposure = ${e})::int AS ${sql.identifier(`e_${e}`)}`,
    ),
  ];
  const [row] = await queryRows<Record<string, number>>(
    db,
    sql`WITH ${reachCte(orgId, who)}
      SELECT count(*)::int AS total, count(*) FILTER (WHERE ${orgWideSql})::int AS org_wide, ${sql.join(counts, sql`, `)}
      FROM reach r JOIN workspace_files f ON f.id = r.id AND f.connector_id = r.connector_id
      WHERE f.org_id = ${orgId}`,
  );
  const n = (k: string) => Number(row?.[k] ?? 0);
  return {
    total: n("total"),
    sensitive: n("s_high"),
    orgWide: n("org_wide"),
    bySensitivity: Object.fromEntries(SENSITIVITIES.map((s) => [s, n(`s_${s}`)])) as Record<
      TSensitivity,
      number
    >,
    byExposure: Object.fromEntries(EXPOSURES.map((e) => [e, n(`e_${e}`)])) as Record<TExposure, number>,
  };
}

/** A file reaches everyone of its organization (the stored reach, or an org-wide / public grant). */
const orgWideSql = sql`(f.reach_org_wide OR EXISTS (
  SELECT 1 FROM workspace_permissions op
  WHERE op.connector_id = f.connector_id AND op.file_id = f.id
    AND (op.sharing_type = 'public' OR (op.sharing_type = 'internal' AND strpos(op.target, '@') = 0))))`;

export type TReachPageInput = {
  limit: number;
  offset: number;
  /** Only files of these sensitivities. */
  sensitivities?: readonly TSensitivity[];
  /** Only these files (workspace_files ids). */
  fileIds?: readonly string[];
  /** A further condition on the file, as SQL over the alias `f` (workspace_files). */
  where?: SQL;
};

/**
 * One page of the files `who` can open, the most sensitive and widest-reaching first
 * (sensitivity, then reach, then id: a stable order), with the total.
 */
export async function reachPage(
  db: Db,
  orgId: string,
  who: TReachWho,
  page: TReachPageInput,
): Promise<{ rows: TReachRow[]; total: number }> {
  const filters: SQL[] = [sql`f.org_id = ${orgId}`];
  if (page.sensitivities) filters.push(sql`f.sensitivity = ANY(${arrayLiteral(page.sensitivities)}::text[])`);
  if (page.fileIds) filters.push(sql`f.id = ANY(${arrayLiteral(page.fileIds)}::text[])`);
  if (page.where) filters.push(page.where);
  const rows = await queryRows<TReachFileRow & { connector_id: string; total: number }>(
    db,
    sql`WITH ${reachCte(orgId, who)}
      SELECT f.id, f.connector_id, f.name, f.mime_type, f.owner_email, f.sensitivity, f.exposure, f.labels,
        f.reach_people, ${orgWideSql} AS org_wide, count(*) OVER ()::int AS total
      FROM reach r JOIN workspace_files f ON f.id = r.id AND f.connector_id = r.connector_id
      WHERE ${sql.join(filters, sql` AND `)}
      ORDER BY ${SENSITIVITY_ORDER}, f.reach_people DESC, f.id
      LIMIT ${page.limit} OFFSET ${page.offset}`,
  );
  let total = rows[0]?.total;
  if (total === undefined) {
    // Past the last page: the count alone.
    const [c] = await queryRows<{ total: number }>(
      db,
      sql`WITH ${reachCte(orgId, who)}
        SELECT count(*)::int AS total FROM reach r JOIN workspace_files f ON f.id = r.id AND f.connector_id = r.connector_id
        WHERE ${sql.join(filters, sql` AND `)}`,
    );
    total = c?.total ?? 0;
  }
  return {
    total: Number(total),
    rows: rows.map((r) => reachRowOf(r.connector_id, r)),
  };
}

/** An app's id, stable across scans: derived from the connector and its OAuth client (agent-guard's ids). */
export function agentIdOf(connectorId: string, clientKey: string): string {
  return `agt_${createHash("sha256").update(`${connectorId}\0${clientKey}`).digest("hex").slice(0, 24)}`;
}

export type TAgentPrincipal = {
  agentId: string;
  connectorId: string;
  /** The OAuth client id, or the grant's external id when the source names no client. */
  clientKey: string;
  label: string;
  kind: string;
  /** `application` when any of its grants is app-only (every file of its connector). */
  access: "application" | "delegated";
  /** Distinct granting users. */
  users: number;
};

/**
 * The organization's apps (optionally of one kind, e.g. `ai_agent`) from `oauth_grants`, one per
 * connector and OAuth client, by label.
 */
export async function listAgentPrincipals(db: Db, orgId: string, kind?: string): Promise<TAgentPrincipal[]> {
  const rows = await queryRows<{
    connector_id: string;
    client_key: string;
    label: string;
    kind: string;
    application: boolean;
    users: number;
  }>(
    db,
    sql`SELECT connector_id, coalesce(nullif(client_id, ''), external_id) AS client_key, min(label) AS label,
          min(kind) AS kind, bool_or(access = 'application') AS application, count(DISTINCT lower(user_email))::int AS users
        FROM oauth_grants WHERE org_id = ${orgId} AND ${kind === undefined ? sql`TRUE` : sql`kind = ${kind}`}
        GROUP BY 1, 2`,
  );
  return rows
    .map((r) => ({
      agentId: agentIdOf(r.connector_id, r.client_key),
      connectorId: r.connector_id,
      clientKey: r.client_key,
      label: r.label,
      kind: r.kind,
      access: r.application ? ("application" as const) : ("delegated" as const),
      users: Number(r.users),
    }))
    .sort((a, b) => a.label.localeCompare(b.label) || a.agentId.localeCompare(b.agentId));
}

/** Who an app reads as: application access → every file of its connector; delegated → its granting users. */
export function agentWho(agent: Pick<TAgentPrincipal, "access" | "connectorId" | "clientKey">): TReachWho {
  return agent.access === "application"
    ? { kind: "all", connectorIds: [agent.connectorId] }
    : { kind: "grantees", connectorId: agent.connectorId, clientKey: agent.clientKey };
}
