import { sql } from "drizzle-orm";
import {
  agentWho,
  arrayLiteral,
  listAgentPrincipals,
  queryRows,
  reachCounts,
  reachPage,
  SEVERITIES,
  type Db,
  type TReachCounts,
  type TReachRow,
  type TReachWho,
  type TSeverity,
} from "@posture/db";
import { notFound } from "@posture/platform";
import { pointsOf, readinessGrade, readinessScore, type TSeverityCounts } from "./readiness";

// GET /api/exposure/ai: what each AI assistant and agent can reach, the readiness score, and the
// quick wins that raise it (docs/exposure.md).

/** The suites' assistants, by the connector type whose users hold their licence. */
export const ASSISTANTS = [
  { id: "copilot", kind: "copilot", label: "Microsoft 365 Copilot", connectorType: "microsoft_365" },
  { id: "gemini", kind: "gemini", label: "Gemini for Google Workspace", connectorType: "google_workspace" },
] as const;
export type TAssistantId = (typeof ASSISTANTS)[number]["id"];

/** The quick-win groups of internal exposure (the planner's `POST /api/remediations {quickWin}`). */
export const AI_QUICK_WINS = [
  {
    key: "org_wide_links",
    ruleId: "org_wide_link",
    action: "remove_org_wide_link",
    title: (n: number) => `Remove ${n} organization-wide link${n === 1 ? "" : "s"}`,
  },
  {
    key: "everyone_grants",
    ruleId: "org_wide_grant",
    action: "remove_everyone_grant",
    title: (n: number) => `Remove ${n} grant${n === 1 ? "" : "s"} to everyone in the organization`,
  },
  {
    key: "broad_group_grants",
    ruleId: "broad_group_grant",
    action: "remove_group_grant",
    title: (n: number) => `Remove ${n} grant${n === 1 ? "" : "s"} to very large groups`,
  },
] as const;

/** A quick win names at most this many findings (the worst first); `findingCount` says how many the group holds. */
export const AI_QUICK_WIN_CAP = 500;
const WORST_FILES = 5;
const INTERNAL = "internal_exposure";

/** The posture score if the named findings were resolved (the remediation engine's what-if), handed in by the gateway. */
export type TPredictPosture = (
  db: Db,
  q: { orgId: string; findingIds: string[] },
) => Promise<{ before: number; after: number }>;

const emptyCounts = (): TSeverityCounts => ({ CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 });

/** The open internal-exposure findings by rule and severity, and the organization's file count. */
async function tallies(db: Db, orgId: string) {
  const [rows, [files]] = await Promise.all([
    queryRows<{ rule_id: string; severity: TSeverity; n: number }>(
      db,
      sql`SELECT rule_id, severity, count(*)::int AS n FROM findings
          WHERE org_id = ${orgId} AND status = 'OPEN' AND category = ${INTERNAL} GROUP BY 1, 2`,
    ),
    queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM workspace_files WHERE org_id = ${orgId}`),
  ]);
  const all = emptyCounts();
  const byRule = new Map<string, TSeverityCounts>();
  for (const r of rows) {
    all[r.severity] += Number(r.n);
    const c = byRule.get(r.rule_id) ?? emptyCounts();
    c[r.severity] += Number(r.n);
    byRule.set(r.rule_id, c);
  }
  return { all, byRule, files: Number(files?.n ?? 0) };
}

/** The readiness score and grade alone (the partner portfolio's column). */
export async function getAiReadiness(db: Db, { orgId }: { orgId: string }) {
  const t = await tallies(db, orgId);
  const score = readinessScore(t.files, pointsOf(t.all));
  return { score, grade: readinessGrade(score), findings: t.all, files: t.files };
}

const pageRow = (r: TReachRow) => ({
  fileId: r.fileId,
  name: r.name,
  label: r.label,
  reach: r.reach,
  sensitivity: r.sensitivity,
  exposure: r.exposure,
  ownerEmail: r.ownerEmail,
  connectorId: r.connectorId,
});

async function reachOf(db: Db, orgId: string, who: TReachWho) {
  const [counts, worst] = await Promise.all([
    reachCounts(db, orgId, who),
    reachPage(db, orgId, who, { limit: WORST_FILES, offset: 0 }),
  ]);
  return { counts, worst: worst.rows.map(pageRow) };
}

const assistantEntry = (
  base: { id: string; kind: "copilot" | "gemini" | "agent"; label: string },
  users: number,
  r: { counts: TReachCounts; worst: Array<ReturnType<typeof pageRow>> },
  extra: Record<string, unknown> = {},
) => ({
  ...base,
  reachableFiles: r.counts.total,
  sensitiveReachableFiles: r.counts.sensitive,
  users,
  orgWideFiles: r.counts.orgWide,
  bySensitivity: r.counts.bySensitivity,
  byExposure: r.counts.byExposure,
  worstFiles: r.worst,
  ...extra,
});

export async function getAiExposure(
  db: Db,
  { orgId }: { orgId: string },
  deps: { predictPosture?: TPredictPosture } = {},
) {
  const [t, connectorRows, licensed, agents] = await Promise.all([
    tallies(db, orgId),
    queryRows<{ id: string; type: string }>(db, sql`SELECT id, type FROM connectors WHERE org_id = ${orgId}`),
    queryRows<{ assistant: string; n: number }>(
      db,
      sql`SELECT a AS assistant, count(DISTINCT (u.connector_id, u.email))::int AS n
          FROM workspace_users u, unnest(u.assistants) AS a
          WHERE u.org_id = ${orgId} AND u.status = 'active' GROUP BY 1`,
    ),
    listAgentPrincipals(db, orgId, "ai_agent"),
  ]);
  const points = pointsOf(t.all);
  const score = readinessScore(t.files, points);
  const types = new Set(connectorRows.map((c) => c.type));
  const usersOf = new Map(licensed.map((l) => [l.assistant, Number(l.n)]));

  const assistants = await Promise.all([
    ...ASSISTANTS.filter((a) => types.has(a.connectorType)).map(async (a) =>
      assistantEntry(
        { id: a.id, kind: a.kind, label: a.label },
        usersOf.get(a.id) ?? 0,
        await reachOf(db, orgId, { kind: "assistant", assistants: [a.id] }),
      ),
    ),
    ...agents.map(async (g) =>
      assistantEntry(
        { id: g.agentId, kind: "agent", label: g.label },
        g.users,
        await reachOf(db, orgId, agentWho(g)),
        {
          access: g.access,
          connectorId: g.connectorId,
        },
      ),
    ),
  ]);

  const groups = AI_QUICK_WINS.filter((q) => t.byRule.has(q.ruleId));
  const ids = groups.length
    ? await queryRows<{ rule_id: string; id: string }>(
        db,
        sql`SELECT rule_id, id FROM (
              SELECT rule_id, id, row_number() OVER (PARTITION BY rule_id ORDER BY severity_rank DESC, id COLLATE "C") AS n
              FROM findings WHERE org_id = ${orgId} AND status = 'OPEN' AND category = ${INTERNAL}
                AND rule_id = ANY(${arrayLiteral(groups.map((g) => g.ruleId))}::text[])) x
            WHERE n <= ${AI_QUICK_WIN_CAP} ORDER BY rule_id, n`,
      )
    : [];
  const quickWins = await Promise.all(
    groups.map(async (g) => {
      const c = t.byRule.get(g.ruleId) ?? emptyCounts();
      const findingCount = SEVERITIES.reduce((s, k) => s + c[k], 0);
      const predicted = readinessScore(t.files, points - pointsOf(c));
      const findingIds = ids.filter((r) => r.rule_id === g.ruleId).map((r) => r.id);
      const posture = deps.predictPosture ? await deps.predictPosture(db, { orgId, findingIds }) : null;
      return {
        action: g.action,
        title: g.title(findingCount),
        findingIds,
        findingCount,
        readinessDelta: predicted - score,
        predictedScore: predicted,
        predictedPostureScore: posture?.after ?? null,
        postureScoreDelta: posture ? posture.after - posture.before : null,
        plan: { quickWin: g.key },
      };
    }),
  );
  quickWins.sort((a, b) => b.readinessDelta - a.readinessDelta || b.findingCount - a.findingCount);

  return {
    score,
    grade: readinessGrade(score),
    assistants,
    quickWins,
    summary: { files: t.files, points, findings: t.all },
  };
}

/** The `assistant` filter: an assistant id, an agent id, or absent (either assistant's users). */
async function whoFor(db: Db, orgId: string, assistant: string | undefined): Promise<TReachWho> {
  if (assistant === undefined) return { kind: "assistant", assistants: ASSISTANTS.map((a) => a.id) };
  if (ASSISTANTS.some((a) => a.id === assistant)) return { kind: "assistant", assistants: [assistant] };
  const agent = (await listAgentPrincipals(db, orgId, "ai_agent")).find((a) => a.agentId === assistant);
  if (!agent) throw notFound("Assistant");
  return agentWho(agent);
}

export async function listAiFiles(
  db: Db,
  q: { orgId: string; assistant?: string; severity?: TSeverity; limit: number; offset: number },
) {
  const who = await whoFor(db, q.orgId, q.assistant);
  const where =
    q.severity === undefined
      ? undefined
      : sql`EXISTS (SELECT 1 FROM findings fi WHERE fi.org_id = ${q.orgId} AND fi.connector_id = f.connector_id
          AND fi.resource_id = f.external_id AND fi.status = 'OPEN' AND fi.category = ${INTERNAL}
          AND fi.severity = ${q.severity})`;
  const page = await reachPage(db, q.orgId, who, { limit: q.limit, offset: q.offset, where });
  return { rows: page.rows.map(pageRow), total: page.total, limit: q.limit, offset: q.offset };
}
