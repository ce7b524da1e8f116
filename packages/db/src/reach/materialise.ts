import { sql, type SQL } from "drizzle-orm";
import { allowLongStatements, queryRows, type Db } from "../client";
import { arrayLiteral } from "../upsert";
import { EXPOSURES, SENSITIVITIES, type TExposure, type TSensitivity } from "../schema/workspace-files";
import {
  listAgentPrincipals,
  reachRowOf,
  type TReachCounts,
  type TReachFileRow,
  type TReachRow,
} from "./index";

/**
 * The AI reach of one connector (issue 30), computed for all its subjects at once and stored in
 * ai_reach_summaries / ai_reach_files (schema/ai-reach.ts): each assistant its active licensed
 * users hold, and each AI agent of its grants. The same sets as `reachCte` (a person reaches the
 * files they own, are granted directly or through a group, whose shared drive they are a member
 * of, and every file that reaches everyone), but as one pass over the connector's files and
 * permissions joined to (person → subjects), instead of one pass per subject: the files that
 * reach everyone (`O`) are in every subject's reach and counted once.
 */

/** The worst files kept per subject (GET /api/exposure/ai's `worstFiles`). */
export const AI_REACH_WORST = 5;

export type TAiReachSubject = {
  subject: string;
  kind: "assistant" | "agent";
  label: string;
  access: "application" | "delegated" | null;
  clientKey: string | null;
  users: number;
  counts: TReachCounts;
  worst: TReachRow[];
};

/** How long one statement of the computation may run (a million files on a loaded machine). */
const AI_REACH_STATEMENT_MS = 300_000;

/** `*`: the files any assistant's users can open (the files page without `assistant`). */
export const ANY_ASSISTANT = "*";

type TCountRow = Record<string, number | string>;

const SENS_RANK = sql`CASE f.sensitivity WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END`;

const countCols = (): SQL =>
  sql.join(
    [
      sql`count(*)::int AS total`,
      ...SENSITIVITIES.map(
        (s) => sql`count(*) FILTER (WHERE f.sensitivity = ${s})::int AS ${sql.identifier(`s_${s}`)}`,
      ),
      ...EXPOSURES.map(
        (e) => sql`count(*) FILTER (WHERE f.exposure = ${e})::int AS ${sql.identifier(`e_${e}`)}`,
      ),
    ],
    sql`, `,
  );

const num = (r: TCountRow | undefined, k: string) => Number(r?.[k] ?? 0);

function addCounts(a: TCountRow | undefined, b: TCountRow | undefined, orgWide: number): TReachCounts {
  const n = (k: string) => num(a, k) + num(b, k);
  return {
    total: n("total"),
    sensitive: n("s_high"),
    orgWide,
    bySensitivity: Object.fromEntries(SENSITIVITIES.map((s) => [s, n(`s_${s}`)])) as Record<
      TSensitivity,
      number
    >,
    byExposure: Object.fromEntries(EXPOSURES.map((e) => [e, n(`e_${e}`)])) as Record<TExposure, number>,
  };
}

type TFileRow = TReachFileRow & { subject?: string };

const FILE_COLS = sql`f.id, f.name, f.mime_type, f.owner_email, f.sensitivity, f.exposure, f.labels, f.reach_people`;

const toRow = (connectorId: string) => (r: TFileRow) => reachRowOf(connectorId, r);

/** The page order: most sensitive, widest reach, then id. */
const before = (a: TFileRow, b: TFileRow) => {
  const rank = (s: TSensitivity) => SENSITIVITIES.indexOf(s);
  return (
    rank(a.sensitivity) - rank(b.sensitivity) ||
    Number(b.reach_people) - Number(a.reach_people) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
};

/**
 * Computes the connector's subjects in the caller's transaction, leaving `ai_reach_pairs`
 * (file_id, subject: the files outside `O` each subject reaches) and `ai_reach_o` (file_id: `O`)
 * as temporary tables dropped at commit.
 */
export async function computeAiReach(
  tx: Db,
  { orgId, connectorId }: { orgId: string; connectorId: string },
): Promise<TAiReachSubject[]> {
  const agents = (await listAgentPrincipals(tx, orgId, "ai_agent")).filter(
    (a) => a.connectorId === connectorId,
  );
  const delegated = agents.filter((a) => a.access === "delegated");
  const licensed = await queryRows<{ subject: string; users: number }>(
    tx,
    sql`SELECT a AS subject, count(DISTINCT u.email)::int AS users FROM workspace_users u, unnest(u.assistants) a
        WHERE u.org_id = ${orgId} AND u.connector_id = ${connectorId} AND u.status = 'active' GROUP BY 1 ORDER BY 1`,
  );
  const assistants = licensed.map((l) => l.subject);

  await tx.execute(sql`CREATE TEMP TABLE ai_reach_o ON COMMIT DROP AS
    WITH ids AS (
      SELECT f.id FROM workspace_files f
      WHERE f.org_id = ${orgId} AND f.connector_id = ${connectorId} AND f.reach_org_wide
      UNION
      SELECT p.file_id FROM workspace_permissions p
      WHERE p.org_id = ${orgId} AND p.connector_id = ${connectorId}
        AND (p.sharing_type = 'public' OR (p.sharing_type = 'internal' AND strpos(p.target, '@') = 0)))
    SELECT f.id AS file_id, f.external_id, ${SENS_RANK} AS sens_rank, f.reach_people, f.sensitivity, f.exposure
    FROM ids JOIN workspace_files f ON f.id = ids.id AND f.connector_id = ${connectorId}
    WHERE f.org_id = ${orgId}`);
  await tx.execute(sql`CREATE TEMP TABLE ai_reach_people ON COMMIT DROP AS
    SELECT DISTINCT u.email, a AS subject FROM workspace_users u, unnest(u.assistants) a
    WHERE u.org_id = ${orgId} AND u.connector_id = ${connectorId} AND u.status = 'active'
    UNION
    SELECT DISTINCT lower(g.user_email), ag.subject
    FROM unnest(${arrayLiteral(delegated.map((a) => a.agentId))}::text[], ${arrayLiteral(delegated.map((a) => a.clientKey))}::text[])
      AS ag(subject, client_key)
    JOIN oauth_grants g ON g.org_id = ${orgId} AND g.connector_id = ${connectorId}
      AND (g.client_id = ag.client_key OR g.external_id = ag.client_key)`);
  await tx.execute(sql`ANALYZE ai_reach_o`);
  await tx.execute(sql`ANALYZE ai_reach_people`);
  await tx.execute(sql`CREATE TEMP TABLE ai_reach_pairs ON COMMIT DROP AS
    WITH targets AS (
      SELECT email AS target, subject FROM ai_reach_people
      UNION
      SELECT lower(g.email), s.subject FROM workspace_groups g, unnest(g.member_emails) m
      JOIN ai_reach_people s ON s.email = m
      WHERE g.connector_id = ${connectorId}),
    drv AS (
      SELECT DISTINCT d.external_id, s.subject FROM workspace_drives d, jsonb_array_elements(d.members) m
      JOIN ai_reach_people s ON s.email = lower(m->>'email')
      WHERE d.org_id = ${orgId} AND d.connector_id = ${connectorId}),
    pairs AS (
      SELECT f.id AS file_id, s.subject FROM workspace_files f JOIN ai_reach_people s ON s.email = f.owner_email
      WHERE f.org_id = ${orgId} AND f.connector_id = ${connectorId}
      UNION
      SELECT p.file_id, t.subject FROM workspace_permissions p JOIN targets t ON t.target = p.target
      WHERE p.org_id = ${orgId} AND p.connector_id = ${connectorId}
      UNION
      SELECT f.id, drv.subject FROM workspace_files f JOIN drv ON drv.external_id = f.drive_external_id
      WHERE f.org_id = ${orgId} AND f.connector_id = ${connectorId})
    SELECT p.file_id, p.subject, f.external_id, ${SENS_RANK} AS sens_rank, f.reach_people, f.sensitivity, f.exposure
    FROM pairs p JOIN workspace_files f ON f.id = p.file_id AND f.connector_id = ${connectorId}
    WHERE f.org_id = ${orgId} AND NOT EXISTS (SELECT 1 FROM ai_reach_o o WHERE o.file_id = p.file_id)`);
  await tx.execute(sql`ANALYZE ai_reach_pairs`);

  const files = sql`workspace_files f`;
  const inConnector = sql`f.org_id = ${orgId} AND f.connector_id = ${connectorId}`;
  const [oCounts] = await queryRows<TCountRow>(tx, sql`SELECT ${countCols()} FROM ai_reach_o f`);
  const bySubject = new Map(
    (
      await queryRows<TCountRow & { subject: string }>(
        tx,
        sql`SELECT f.subject, ${countCols()} FROM ai_reach_pairs f GROUP BY 1`,
      )
    ).map((r) => [r.subject, r]),
  );
  const [anyCounts] = assistants.length
    ? await queryRows<TCountRow>(
        tx,
        sql`SELECT ${countCols()} FROM (SELECT DISTINCT ON (file_id) * FROM ai_reach_pairs
              WHERE subject = ANY(${arrayLiteral(assistants)}::text[])) f`,
      )
    : [];
  const orgWide = num(oCounts, "total");

  // The worst files: O's first ones, then any pair that would come before O's last kept one.
  const oTop = await queryRows<TFileRow>(
    tx,
    sql`SELECT ${FILE_COLS}, true AS org_wide FROM (
          SELECT file_id FROM ai_reach_o ORDER BY sens_rank, reach_people DESC, file_id LIMIT ${AI_REACH_WORST}) o
        JOIN ${files} ON f.id = o.file_id AND f.connector_id = ${connectorId} WHERE ${inConnector}
        ORDER BY ${SENS_RANK}, f.reach_people DESC, f.id`,
  );
  const last = oTop.length === AI_REACH_WORST ? oTop[AI_REACH_WORST - 1] : undefined;
  const lastRank = last ? SENSITIVITIES.indexOf(last.sensitivity) : 0;
  const better = last
    ? sql`(p.sens_rank, -p.reach_people, p.file_id) < (${lastRank}::int, ${-Number(last.reach_people)}::int, ${last.id}::text)`
    : sql`TRUE`;
  const candidates = await queryRows<TFileRow>(
    tx,
    sql`SELECT subject, id, name, mime_type, owner_email, sensitivity, exposure, labels, reach_people, false AS org_wide FROM (
          SELECT p.subject, ${FILE_COLS},
            row_number() OVER (PARTITION BY p.subject ORDER BY ${SENS_RANK}, f.reach_people DESC, f.id) AS n
          FROM (SELECT * FROM ai_reach_pairs p WHERE ${better}) p
          JOIN ${files} ON f.id = p.file_id AND f.connector_id = ${connectorId}
          WHERE ${inConnector}) x
        WHERE n <= ${AI_REACH_WORST}`,
  );
  const worstOf = (subjects: readonly string[]) => {
    const seen = new Set<string>();
    return [...oTop, ...candidates.filter((c) => c.subject !== undefined && subjects.includes(c.subject))]
      .sort(before)
      .filter((r) => !seen.has(r.id) && seen.add(r.id))
      .slice(0, AI_REACH_WORST)
      .map(toRow(connectorId));
  };

  const out: TAiReachSubject[] = licensed.map((l) => ({
    subject: l.subject,
    kind: "assistant",
    label: l.subject,
    access: null,
    clientKey: null,
    users: Number(l.users),
    counts: addCounts(oCounts, bySubject.get(l.subject), orgWide),
    worst: worstOf([l.subject]),
  }));
  const anyUsers = assistants.length
    ? Number(
        (
          await queryRows<{ n: number }>(
            tx,
            sql`SELECT count(DISTINCT u.email)::int AS n FROM workspace_users u
                WHERE u.org_id = ${orgId} AND u.connector_id = ${connectorId} AND u.status = 'active'
                  AND u.assistants && ${arrayLiteral(assistants)}::text[]`,
          )
        )[0]?.n ?? 0,
      )
    : 0;
  out.push({
    subject: ANY_ASSISTANT,
    kind: "assistant",
    label: ANY_ASSISTANT,
    access: null,
    clientKey: null,
    users: anyUsers,
    counts: assistants.length ? addCounts(oCounts, anyCounts, orgWide) : addCounts(undefined, undefined, 0),
    worst: assistants.length ? worstOf(assistants) : [],
  });

  const application = agents.filter((a) => a.access === "application");
  const [allCounts] = application.length
    ? await queryRows<TCountRow>(tx, sql`SELECT ${countCols()} FROM ${files} WHERE ${inConnector}`)
    : [];
  const allTop = application.length
    ? await queryRows<TFileRow>(
        tx,
        sql`SELECT ${FILE_COLS}, (f.reach_org_wide OR EXISTS (SELECT 1 FROM ai_reach_o o WHERE o.file_id = f.id)) AS org_wide
            FROM ${files} WHERE ${inConnector} ORDER BY ${SENS_RANK}, f.reach_people DESC, f.id LIMIT ${AI_REACH_WORST}`,
      )
    : [];
  for (const a of agents) {
    const app = a.access === "application";
    out.push({
      subject: a.agentId,
      kind: "agent",
      label: a.label,
      access: a.access,
      clientKey: a.clientKey,
      users: a.users,
      counts: app
        ? addCounts(allCounts, undefined, orgWide)
        : addCounts(oCounts, bySubject.get(a.agentId), orgWide),
      worst: app ? allTop.map(toRow(connectorId)) : worstOf([a.agentId]),
    });
  }
  return out;
}

/** A store version: the snapshot row's scan and `store_version`. */
export type TStoreVersion = { scanId: string | null; storeVersion: number };

/**
 * What a scan's snapshot tells the refresh after it: the store's version before and after the
 * snapshot, and whether it changed any file, permission or shared drive (what reach reads besides
 * the directory).
 */
export type TAiReachCarry = { filesChanged: boolean; before: TStoreVersion | null; after: TStoreVersion };

/**
 * The directory side of the connector's AI reach as one digest: the users with their status and
 * assistants, the groups' members, the shared drives' members and the app grants (the agents and
 * their granting users). With the files unchanged, an equal digest means an equal reach.
 */
export async function aiReachInputsKey(tx: Db, connectorId: string): Promise<string> {
  const [row] = await queryRows<{ key: string }>(
    tx,
    sql`SELECT md5(concat_ws('|',
          (SELECT string_agg(concat_ws(':', email, status, array_to_string(assistants, ',')), ';' ORDER BY email, id)
             FROM workspace_users WHERE connector_id = ${connectorId}),
          (SELECT string_agg(concat_ws(':', email, member_count, array_to_string(member_emails, ',')), ';' ORDER BY email, id)
             FROM workspace_groups WHERE connector_id = ${connectorId}),
          (SELECT string_agg(concat_ws(':', external_id, members::text), ';' ORDER BY external_id, id)
             FROM workspace_drives WHERE connector_id = ${connectorId}),
          (SELECT string_agg(concat_ws(':', external_id, client_id, label, kind, access, lower(user_email)), ';'
                             ORDER BY external_id, user_email, id)
             FROM oauth_grants WHERE connector_id = ${connectorId}))) AS key`,
  );
  return row?.key ?? "";
}

/**
 * Recomputes and stores the connector's AI reach (its summaries and the assistants' files), in a
 * repeatable-read transaction holding the connector's store lock, so the rows carry exactly the
 * store version they were computed from. After a scan that changed no file (`carry`), rows
 * computed from the store as it was before the scan, with the same directory digest, are carried
 * to the new version instead: an unchanged rescan of a million files computes nothing again.
 */
export async function refreshAiReach(
  db: Db,
  scope: { orgId: string; connectorId: string },
  carry?: TAiReachCarry,
): Promise<{ subjects: number; files: number; carried: boolean }> {
  return db.transaction(
    async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`workspace:${scope.connectorId}`}))`);
      // Set-based over the connector's files: seconds at a million files, so past the request
      // and job bound (also when a read computes a connector whose store moved); room to hash its
      // pairs in memory, and no JIT for statements that run once per scan.
      await tx.execute(allowLongStatements(AI_REACH_STATEMENT_MS));
      await tx.execute(sql`SET LOCAL work_mem = '64MB'`);
      await tx.execute(sql`SET LOCAL jit = off`);
      const [snap] = await queryRows<{ scan_id: string | null; store_version: number }>(
        tx,
        sql`SELECT scan_id, store_version FROM workspace_snapshots WHERE connector_id = ${scope.connectorId}`,
      );
      // A store written without a scan (no snapshot row) is version -1.
      const version = { scanId: snap?.scan_id ?? null, storeVersion: snap ? Number(snap.store_version) : -1 };
      const inputs = await aiReachInputsKey(tx, scope.connectorId);
      if (carry && !carry.filesChanged && carry.before && sameVersion(version, carry.after)) {
        const [kept] = await queryRows<{
          scan_id: string | null;
          store_version: number;
          inputs_key: string | null;
        }>(
          tx,
          sql`SELECT scan_id, store_version, inputs_key FROM ai_reach_summaries
              WHERE connector_id = ${scope.connectorId} AND subject = ${ANY_ASSISTANT}`,
        );
        const from = kept && { scanId: kept.scan_id, storeVersion: Number(kept.store_version) };
        if (from && sameVersion(from, carry.before) && kept.inputs_key === inputs) {
          const subjects = await queryRows<{ n: number }>(
            tx,
            sql`UPDATE ai_reach_summaries SET scan_id = ${version.scanId}, store_version = ${version.storeVersion}
                WHERE connector_id = ${scope.connectorId} RETURNING 1 AS n`,
          );
          const [files] = await queryRows<{ n: number }>(
            tx,
            sql`SELECT count(*)::int AS n FROM ai_reach_files WHERE connector_id = ${scope.connectorId}`,
          );
          return { subjects: subjects.length, files: Number(files?.n ?? 0), carried: true };
        }
      }
      await tx.execute(sql`DELETE FROM ai_reach_summaries WHERE connector_id = ${scope.connectorId}`);
      const subjects = await computeAiReach(tx, scope);
      const assistants = subjects
        .filter((s) => s.kind === "assistant" && s.subject !== ANY_ASSISTANT)
        .map((s) => s.subject);
      const delegated = subjects.filter((s) => s.access === "delegated").map((s) => s.subject);
      for (const s of subjects)
        await tx.execute(sql`INSERT INTO ai_reach_summaries
          (org_id, connector_id, subject, kind, label, access, client_key, users, counts, worst, scan_id, store_version, inputs_key)
          VALUES (${scope.orgId}, ${scope.connectorId}, ${s.subject}, ${s.kind}, ${s.label}, ${s.access}, ${s.clientKey},
            ${s.users}, ${JSON.stringify(s.counts)}::jsonb, ${JSON.stringify(s.worst)}::jsonb, ${version.scanId}, ${version.storeVersion},
            ${inputs})`);
      const files = await writeAssistantFiles(tx, scope, assistants, delegated);
      return { subjects: subjects.length, files, carried: false };
    },
    { isolationLevel: "repeatable read" },
  );
}

const sameVersion = (a: TStoreVersion, b: TStoreVersion) =>
  a.scanId === b.scanId && a.storeVersion === b.storeVersion;

/**
 * The assistants' and delegated agents' files (ai_reach_files) as the temporary tables say they
 * now are, written as a difference: after a rescan that changed 1 % of the files only their rows
 * are written, not the whole set again with its indexes. (An application agent reads every file
 * of its connector: its page is the connector's files, not stored here.)
 */
async function writeAssistantFiles(
  tx: Db,
  scope: { orgId: string; connectorId: string },
  assistants: readonly string[],
  delegated: readonly string[],
): Promise<number> {
  const list = arrayLiteral([...assistants, ...delegated]);
  const isAssistant = sql`${arrayLiteral(assistants)}::text[]`;
  // Every subject reaches the files of `O`, and no pair names one of them (`ai_reach_pairs` leaves
  // them out): their rows all carry the whole list, aggregated once rather than once per file.
  await tx.execute(sql`CREATE TEMP TABLE ai_reach_want ON COMMIT DROP AS
    SELECT file_id, min(external_id) AS external_id, array_agg(DISTINCT subject ORDER BY subject) AS assistants,
      bool_or(subject = ANY(${isAssistant})) AS any_assistant,
      min(sens_rank)::smallint AS sens_rank, min(reach_people) AS reach_people
    FROM ai_reach_pairs WHERE subject = ANY(${list}::text[])
    GROUP BY file_id
    UNION ALL
    SELECT o.file_id, o.external_id, s.assistants, s.any_assistant, o.sens_rank::smallint, o.reach_people
    FROM ai_reach_o o, (
      SELECT array_agg(DISTINCT a ORDER BY a) AS assistants, bool_or(a = ANY(${isAssistant})) AS any_assistant
      FROM unnest(${list}::text[]) a) s
    WHERE s.assistants IS NOT NULL`);
  await tx.execute(sql`ANALYZE ai_reach_want`);
  await tx.execute(sql`DELETE FROM ai_reach_files a WHERE a.connector_id = ${scope.connectorId}
    AND NOT EXISTS (SELECT 1 FROM ai_reach_want w WHERE w.file_id = a.file_id)`);
  await tx.execute(sql`INSERT INTO ai_reach_files AS a (org_id, connector_id, file_id, external_id, assistants, any_assistant, sens_rank, reach_people)
    SELECT ${scope.orgId}, ${scope.connectorId}, w.file_id, w.external_id, w.assistants, w.any_assistant, w.sens_rank, w.reach_people
    FROM ai_reach_want w
    WHERE NOT EXISTS (SELECT 1 FROM ai_reach_files x WHERE x.connector_id = ${scope.connectorId} AND x.file_id = w.file_id
      AND x.external_id = w.external_id AND x.assistants = w.assistants AND x.any_assistant = w.any_assistant
      AND x.sens_rank = w.sens_rank AND x.reach_people = w.reach_people)
    ON CONFLICT (connector_id, file_id) DO UPDATE SET external_id = excluded.external_id, assistants = excluded.assistants,
      any_assistant = excluded.any_assistant, sens_rank = excluded.sens_rank, reach_people = excluded.reach_people`);
  const [n] = await queryRows<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM ai_reach_want`);
  return Number(n?.n ?? 0);
}
