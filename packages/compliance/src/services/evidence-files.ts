import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db } from "@posture/db";
import { auditKey, csvLine, verifyAuditChain as verifyKeyedAuditChain } from "@posture/platform";

const BATCH = 5_000;

type TRow = Record<string, unknown> & { k: string };

/**
 * A timestamp column as ISO 8601 UTC (`2026-03-02T09:30:00.000Z`), as every other export writes
 * it; empty when null. Raw rows carry PostgreSQL's text form (`2026-03-02 09:30:00+00`), which a
 * spreadsheet or a SIEM does not read as a time.
 */
export function isoCell(v: unknown): string | null {
  if (v === null || v === undefined || v === "") return null;
  const d = v instanceof Date ? v : new Date(String(v));
  return Number.isNaN(d.getTime()) ? String(v) : d.toISOString();
}

/**
 * Rows of one organization, read in keyset batches of 5,000 (never the whole table in memory),
 * as CSV text. `query(after)` must select a unique, ordered key `k` and filter `k > after`.
 */
async function* csvRows(
  db: Db,
  header: readonly string[],
  query: (after: string) => SQL,
  row: (r: TRow) => readonly unknown[],
): AsyncGenerator<string> {
  yield csvLine(header);
  let after = "";
  for (;;) {
    const rows = await queryRows<TRow>(db, query(after));
    if (rows.length === 0) return;
    yield rows.map((r) => csvLine(row(r))).join("");
    if (rows.length < BATCH) return;
    after = rows.at(-1)?.k ?? after;
  }
}

export function findingsCsv(db: Db, q: { orgId: string; from: Date }): AsyncGenerator<string> {
  const { orgId, from } = q;
  return csvRows(
    db,
    [
      "id",
      "rule_id",
      "category",
      "severity",
      "status",
      "title",
      "resource_name",
      "resource_type",
      "connector_type",
      "detected_at",
      "resolved_at",
    ],
    (after) => sql`SELECT id AS k, * FROM findings
      WHERE org_id = ${orgId} AND (status = 'OPEN' OR resolved_at >= ${from}) AND id > ${after}
      ORDER BY id LIMIT ${BATCH}`,
    (r) => [
      r.id,
      r.rule_id,
      r.category,
      r.severity,
      r.status,
      r.title,
      r.resource_name,
      r.resource_type,
      r.connector_type,
      isoCell(r.detected_at),
      isoCell(r.resolved_at),
    ],
  );
}

export function usersCsv(db: Db, q: { orgId: string; adminsOnly: boolean }): AsyncGenerator<string> {
  const { orgId, adminsOnly } = q;
  return csvRows(
    db,
    ["email", "name", "status", "is_admin", "mfa_enabled", "dormant", "last_login_at"],
    (after) => sql`SELECT id AS k, * FROM workspace_users
      WHERE org_id = ${orgId} AND id > ${after} ${adminsOnly ? sql`AND is_admin` : sql``}
      ORDER BY id LIMIT ${BATCH}`,
    (r) => [r.email, r.name, r.status, r.is_admin, r.mfa_enabled, r.dormant, isoCell(r.last_login_at)],
  );
}

export function externalSharesCsv(db: Db, { orgId }: { orgId: string }): AsyncGenerator<string> {
  return csvRows(
    db,
    ["file", "owner", "sensitivity", "sharing_type", "target", "role"],
    (after) => sql`SELECT p.id AS k, f.name, f.owner_email, f.sensitivity, p.sharing_type, p.target, p.role
      FROM workspace_permissions p JOIN workspace_files f ON f.id = p.file_id AND f.org_id = p.org_id
      WHERE p.org_id = ${orgId} AND p.sharing_type <> 'internal' AND p.id > ${after}
      ORDER BY p.id LIMIT ${BATCH}`,
    (r) => [r.name, r.owner_email, r.sensitivity, r.sharing_type, r.target, r.role],
  );
}

export function oauthAppsCsv(db: Db, { orgId }: { orgId: string }): AsyncGenerator<string> {
  return csvRows(
    db,
    ["label", "kind", "publisher", "known_publisher", "scopes", "granted_by", "granted_at"],
    (after) =>
      sql`SELECT id AS k, * FROM oauth_grants WHERE org_id = ${orgId} AND id > ${after} ORDER BY id LIMIT ${BATCH}`,
    (r) => [
      r.label,
      r.kind,
      r.publisher,
      r.is_known_publisher,
      (r.scopes as string[] | null)?.join(" "),
      r.user_email,
      isoCell(r.granted_at),
    ],
  );
}

export function auditCsv(db: Db, q: { orgId: string; from: Date }): AsyncGenerator<string> {
  const { orgId, from } = q;
  return csvRows(
    db,
    ["seq", "created_at", "action", "target", "user_email", "prev_hash", "hash"],
    (after) => sql`SELECT lpad(seq::text, 20, '0') AS k, * FROM audit_log
      WHERE org_id = ${orgId} AND created_at >= ${from} AND lpad(seq::text, 20, '0') > ${after}
      ORDER BY seq LIMIT ${BATCH}`,
    (r) => [r.seq, isoCell(r.created_at), r.action, r.target, r.user_email, r.prev_hash, r.hash],
  );
}

/**
 * The whole chain is verified with the process's audit key (platform's keyed verifier), not
 * only the extract: a break anywhere, or a chain recomputed without the key, shows.
 */
export async function verifyAuditChain(db: Db, { orgId }: { orgId: string }) {
  const key = auditKey();
  if (!key) throw new Error("audit key not set: every process sets it at start (setAuditKey)");
  const check = await verifyKeyedAuditChain(db, orgId, key);
  const [r] = await queryRows<{
    first_seq: string | null;
    last_seq: string | null;
    last_hash: string | null;
  }>(
    db,
    sql`SELECT min(seq) AS first_seq, max(seq) AS last_seq,
      (SELECT hash FROM audit_log WHERE org_id = ${orgId} ORDER BY seq DESC LIMIT 1) AS last_hash
      FROM audit_log WHERE org_id = ${orgId}`,
  );
  return {
    verified: check.ok,
    brokenAtSeq: check.firstBadSeq,
    reason: check.reason,
    entries: check.rows,
    unkeyedEntries: check.unkeyedRows,
    firstSeq: r?.first_seq ? Number(r.first_seq) : null,
    lastSeq: r?.last_seq ? Number(r.last_seq) : null,
    lastHash: r?.last_hash ?? null,
    method:
      "HMAC-SHA256(server key, prev_hash || canonical row) per organization, rows before the keyed chain sha256; every link recomputed",
  };
}

export async function incidentsJson(db: Db, q: { orgId: string; from: Date }): Promise<unknown[]> {
  const { orgId, from } = q;
  return queryRows(
    db,
    sql`SELECT id, title, status, priority, assignee, linked_finding_ids AS "linkedFindings", log, post_mortem AS "postMortem",
      created_at AS "openedAt", closed_at AS "closedAt"
      FROM incidents WHERE org_id = ${orgId} AND (created_at >= ${from} OR status NOT IN ('RESOLVED', 'CLOSED'))
      ORDER BY created_at`,
  );
}
