import { sql } from "drizzle-orm";
import {
  agentWho,
  ANY_ASSISTANT,
  arrayLiteral,
  listAgentPrincipals,
  queryRows,
  reachPage,
  SEVERITIES,
  type Db,
  type TReachRow,
  type TReachWho,
  type TSeverity,
} from "@posture/db";
import {
  aiReachRows,
  assistantFilesPage,
  freshAiReach,
  mergeCounts,
  mergeWorst,
  type TSummaryRow,
} from "./ai-reach-store";
import { exposureStateKey, memoised } from "./answer-memo";
import { notFound } from "@posture/platform";
import { pointsOf, readinessGrade, readinessScore, type TSeverityCounts } from "./readiness";

// GET /api/exposure/ai: what each AI assistant and agent can reach, the readiness score, and the
// quick wins that raise it (docs/exposure.md).

/** The assistants, by the connector type whose users hold their licence (GitHub Copilot: its seats). */
export const ASSISTANTS = [
  { id: "copilot", kind: "copilot", label: "Microsoft 365 Copilot", connectorType: "microsoft_365" },
  { id: "gemini", kind: "gemini", label: "Gemini for Google Workspace", connectorType: "google_workspace" },
  { id: "github_copilot", kind: "copilot", label: "GitHub Copilot", connectorType: "github" },
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
const INTERNAL = "internal_exposure";

/** The posture score if the named findings were resolved (the remediation engine's what-if), handed in by the gateway. */
export type TPredictPosture = (
  db: Db,
  q: { orgId: string; findingIds: string[] },
) => Promise<{ before: number; after: number }>;

const emptyCounts = (): TSeverityCounts => ({ CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 });

const SEVERITY_OF_RANK: Record<number, TSeverity> = { 4: "CRITICAL", 3: "HIGH", 2: "MEDIUM", 1: "LOW" };

/**
 * The open internal-exposure findings by rule and severity (their partial index), and the
 * organization's file count (the connectors' snapshot rows, which every scan and every
 * remediation of the store keep current).
 */
async function tallies(db: Db, orgId: string) {
  const [rows, snapshots] = await Promise.all([
    queryRows<{ rule_id: string; rank: number; n: number }>(
      db,
      sql`SELECT rule_id, severity_rank AS rank, count(*)::int AS n FROM findings
          WHERE org_id = ${orgId} AND status = 'OPEN' AND category = ${INTERNAL} GROUP BY 1, 2`,
    ),
    queryRows<{ id: string; files: number | null }>(
      db,
      sql`SELECT c.id, s.files FROM connectors c LEFT JOIN workspace_snapshots s ON s.connector_id = c.id
          WHERE c.org_id = ${orgId}`,
    ),
  ]);
  // A store written without a scan (no snapshot row) is counted.
  const unsnapped = snapshots.filter((c) => c.files === null).map((c) => c.id);
  const [counted] = unsnapped.length
    ? await queryRows<{ n: number }>(
        db,
        sql`SELECT count(*)::int AS n FROM workspace_files
            WHERE org_id = ${orgId} AND connector_id = ANY(${arrayLiteral(unsnapped)}::text[])`,
      )
    : [];
  const files = snapshots.reduce((n, c) => n + Number(c.files ?? 0), 0) + Number(counted?.n ?? 0);
  const all = emptyCounts();
  const byRule = new Map<string, TSeverityCounts>();
  for (const r of rows) {
    const severity = SEVERITY_OF_RANK[Number(r.rank)];
    if (!severity) continue;
    all[severity] += Number(r.n);
    const c = byRule.get(r.rule_id) ?? emptyCounts();
    c[severity] += Number(r.n);
    byRule.set(r.rule_id, c);
  }
  return { all, byRule, files };
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

const assistantEntry = (
  base: { id: string; kind: "copilot" | "gemini" | "agent"; label: string },
  users: number,
  rows: readonly TSummaryRow[],
  extra: Record<string, unknown> = {},
) => {
  const counts = mergeCounts(rows);
  return {
    ...base,
    reachableFiles: counts.total,
    sensitiveReachableFiles: counts.sensitive,
    users,
    orgWideFiles: counts.orgWide,
    bySensitivity: counts.bySensitivity,
    byExposure: counts.byExposure,
    worstFiles: mergeWorst(rows).map(pageRow),
    ...extra,
  };
};

export async function getAiExposure(
  db: Db,
  { orgId }: { orgId: string },
  deps: { predictPosture?: TPredictPosture } = {},
) {
  await freshAiReach(db, { orgId });
  const key = await exposureStateKey(db, { orgId });
  return memoised(`${orgId}:${deps.predictPosture ? "posture" : "readiness"}`, key, () =>
    computeAiExposure(db, orgId, deps),
  );
}

async function computeAiExposure(db: Db, orgId: string, deps: { predictPosture?: TPredictPosture }) {
  const [t, connectorRows, reach] = await Promise.all([
    tallies(db, orgId),
    queryRows<{ id: string; type: string }>(db, sql`SELECT id, type FROM connectors WHERE org_id = ${orgId}`),
    aiReachRows(db, { orgId }),
  ]);
  const points = pointsOf(t.all);
  const score = readinessScore(t.files, points);
  const types = new Set(connectorRows.map((c) => c.type));
  const of = (subject: string) => reach.filter((r) => r.subject === subject);
  const agents = reach
    .filter((r) => r.kind === "agent")
    .sort((a, b) => a.label.localeCompare(b.label) || a.subject.localeCompare(b.subject));

  const assistants = [
    ...ASSISTANTS.filter((a) => types.has(a.connectorType)).map((a) =>
      assistantEntry(
        { id: a.id, kind: a.kind, label: a.label },
        of(a.id).reduce((n, r) => n + r.users, 0),
        of(a.id),
      ),
    ),
    ...agents.map((g) =>
      assistantEntry({ id: g.subject, kind: "agent", label: g.label }, g.users, [g], {
        access: g.access,
        connectorId: g.connectorId,
      }),
    ),
  ];

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

/** The `assistant` filter naming an agent (404 when the organization has no such agent). */
async function agentFor(db: Db, orgId: string, assistant: string) {
  const agent = (await listAgentPrincipals(db, orgId, "ai_agent")).find((a) => a.agentId === assistant);
  if (!agent) throw notFound("Assistant");
  return agent;
}

export async function listAiFiles(
  db: Db,
  q: { orgId: string; assistant?: string; severity?: TSeverity; limit: number; offset: number },
) {
  const page = { limit: q.limit, offset: q.offset };
  // The assistants' and delegated agents' files are stored (ai_reach_files); an application
  // agent reads every file of its connector, computed on request.
  const agent =
    q.assistant === undefined || ASSISTANTS.some((a) => a.id === q.assistant)
      ? null
      : await agentFor(db, q.orgId, q.assistant);
  if (agent === null || agent.access === "delegated") {
    await freshAiReach(db, { orgId: q.orgId });
    const subject = q.assistant ?? ANY_ASSISTANT;
    const stored = await assistantFilesPage(db, {
      orgId: q.orgId,
      assistant: q.assistant,
      severity: q.severity,
      ...page,
    });
    const total =
      stored.total ??
      mergeCounts((await aiReachRows(db, { orgId: q.orgId })).filter((r) => r.subject === subject)).total;
    return { rows: stored.rows.map(pageRow), total, ...page };
  }
  const who: TReachWho = agentWho(agent);
  const where =
    q.severity === undefined
      ? undefined
      : sql`EXISTS (SELECT 1 FROM findings fi WHERE fi.org_id = ${q.orgId} AND fi.connector_id = f.connector_id
          AND fi.resource_id = f.external_id AND fi.status = 'OPEN' AND fi.category = ${INTERNAL}
          AND fi.severity = ${q.severity})`;
  const live = await reachPage(db, q.orgId, who, { ...page, where });
  return { rows: live.rows.map(pageRow), total: live.total, ...page };
}
