import { sql } from "drizzle-orm";
import {
  arrayLiteral,
  outsideGrantSeverity,
  queryRows,
  SEVERITY_RANK,
  type Db,
  type TSensitivity,
  type TSeverity,
} from "@posture/db";
import {
  applyWhatIf,
  controlChanges,
  gatherSignals,
  WHAT_IF_CHECKS,
  type TControlChange,
  type TSignals,
  type TWhatIf,
} from "@posture/compliance";
import { domainIn } from "@posture/platform";
import { gradeOf, openFindingCounts, RULE_IDS, scoreCounts, type TCategoryCounts } from "@posture/posture";
import { draftPlan, storeId, type TDraft, type TFixedFinding } from "./draft";
import type { TSimulateOutput } from "../procedures/remediation.types";

/** The period the compliance what-if judges (the compliance dashboard's). */
const COMPLIANCE_DAYS = 30;

/** How long an organization's compliance signals serve what-ifs while nothing they count has moved. */
const SIGNALS_TTL_MS = 5 * 60_000;
const SIGNALS_CACHED = 500;
/** Audited moves that change nothing the signals count (planning is not doing). */
const QUIET_ACTIONS = [
  "REMEDIATION_PLANNED",
  "REMEDIATION_APPROVED",
  "REMEDIATION_CANCELLED",
  "REMEDIATION_SETTINGS_CHANGED",
  "REMEDIATION_APPLY_STARTED",
  "REMEDIATION_UNDO_STARTED",
] as const;
const signalsCache = new Map<string, { key: string; at: number; signals: Promise<TSignals> }>();

/**
 * The organization's compliance signals for a what-if. Gathering them reads the whole store (a
 * million files, the period's activity: seconds at that size), so they are kept per organization
 * until a scan completes or an audited change other than planning lands (the key), and for SIGNALS_TTL_MS at most:
 * both sides of a what-if come from the same signals, so only what the what-if changes moves a
 * control; the score beside them is always read live.
 */
async function signalsFor(db: Db, orgId: string): Promise<TSignals> {
  const [row] = await queryRows<{ key: string }>(
    db,
    sql`SELECT concat_ws(':',
          (SELECT max(completed_at)::text FROM scans WHERE org_id = ${orgId} AND status = 'COMPLETE'),
          (SELECT max(seq)::text FROM audit_log WHERE org_id = ${orgId} AND action NOT IN (${sql.join(
            QUIET_ACTIONS.map((a) => sql`${a}`),
            sql`, `,
          )}))) AS key`,
  );
  const key = row?.key ?? "";
  const hit = signalsCache.get(orgId);
  if (hit && hit.key === key && Date.now() - hit.at < SIGNALS_TTL_MS) return hit.signals;
  const signals = gatherSignals(db, { orgId, days: COMPLIANCE_DAYS, tenantChecks: WHAT_IF_CHECKS });
  signalsCache.delete(orgId);
  if (signalsCache.size >= SIGNALS_CACHED) signalsCache.delete(signalsCache.keys().next().value ?? "");
  signalsCache.set(orgId, { key, at: Date.now(), signals });
  signals.catch(() => signalsCache.delete(orgId));
  return signals;
}

export type TRerated = { id: string; ruleId: string; category: string; from: TSeverity; to: TSeverity };

export type TPrediction = {
  predicted: { score: number; grade: string; scoreDelta: number; before: { score: number; grade: string } };
  controls: TControlChange[];
};

/**
 * The posture engine's exact score now and once `resolved` resolve (and `rerated` change
 * severity), from the open findings' counts (org_finding_counts: a few rows, exact in the
 * caller's transaction too).
 */
export async function predictScore(
  db: Db,
  q: { orgId: string; resolved: readonly TFixedFinding[]; rerated?: readonly TRerated[] },
): Promise<TPrediction["predicted"]> {
  const { orgId, ...what } = q;
  const { counts } = await openFindingCounts(db, { orgId });
  const before = scoreCounts(counts);
  const after: TCategoryCounts = new Map([...counts].map(([k, c]) => [k, { ...c }]));
  const shift = (category: string, severity: TSeverity, by: number) => {
    const c = after.get(category);
    if (c) c[severity] = Math.max(0, c[severity] + by);
  };
  for (const f of what.resolved) shift(f.category, f.severity, -1);
  for (const f of what.rerated ?? []) {
    shift(f.category, f.from, -1);
    shift(f.category, f.to, 1);
  }
  const score = scoreCounts(after).score;
  return {
    score,
    grade: gradeOf(score),
    scoreDelta: score - before.score,
    before: { score: before.score, grade: before.grade },
  };
}

/** The predicted score (`predictScore`) and the compliance controls whose status would change. */
export async function predict(
  db: Db,
  q: {
    orgId: string;
    resolved: readonly TFixedFinding[];
    rerated?: readonly TRerated[];
    effects?: TDraft["effects"];
    trustedDomainsAdded?: number;
  },
): Promise<TPrediction> {
  const { orgId, ...what } = q;
  const [predicted, signals] = await Promise.all([
    predictScore(db, { orgId, ...what }),
    signalsFor(db, orgId),
  ]);
  const base = { ...signals, posture: predicted.before };
  const whatIf: TWhatIf = {
    resolved: what.resolved,
    rerated: what.rerated ?? [],
    filesNoLongerPublic: what.effects?.filesNoLongerPublic ?? 0,
    filesNoLongerExternal: what.effects?.filesNoLongerExternal ?? 0,
    riskySharersCleared: what.effects?.riskySharersCleared ?? 0,
    grantsRevoked: what.effects?.grantsRevoked ?? { total: 0, unverified: 0, aiAgents: 0 },
    trustedDomainsAdded: what.trustedDomainsAdded ?? 0,
    posture: { score: predicted.score, grade: predicted.grade },
  };
  return { predicted, controls: controlChanges(base, applyWhatIf(base, whatIf)) };
}

const maxSeverity = (a: TSeverity, b: TSeverity): TSeverity => (SEVERITY_RANK[b] > SEVERITY_RANK[a] ? b : a);

/**
 * External shares re-rated by more trusted domains: each open external_share finding reaching one
 * of the new domains, its severity worked out again from the file's outside grants in the store
 * exactly as the rule engine does (the highest of outsideGrantSeverity over the grants, a grant
 * lowered when its domain is trusted).
 */
async function rerateForTrust(db: Db, orgId: string, domains: readonly string[]): Promise<TRerated[]> {
  const added = [...new Set(domains.map((d) => d.toLowerCase().replace(/^\.+|\.+$/g, "")))].filter(Boolean);
  if (added.length === 0) return [];
  const existing = await queryRows<{ domain: string }>(
    db,
    sql`SELECT domain FROM trusted_domains WHERE org_id = ${orgId}`,
  );
  const trusted = new Set([...existing.map((r) => r.domain.toLowerCase()), ...added]);
  const addedSet = new Set(added);
  const candidates = await queryRows<{
    id: string;
    connector_id: string;
    resource_id: string;
    category: string;
    severity: TSeverity;
    sensitivity: TSensitivity | null;
    domains: string[];
  }>(
    db,
    sql`SELECT f.id, f.connector_id, f.resource_id, f.category, f.severity, f.details->>'sensitivity' AS sensitivity,
          ARRAY(SELECT jsonb_array_elements_text(COALESCE(f.details->'externalDomains', '[]'::jsonb))) AS domains
        FROM findings f
        WHERE f.org_id = ${orgId} AND f.status = 'OPEN' AND f.rule_id = ${RULE_IDS.externalShare}
          AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(COALESCE(f.details->'externalDomains', '[]'::jsonb)) AS d(domain)
            WHERE d.domain = ANY(${arrayLiteral(added)}::text[])
               OR d.domain LIKE ANY(${arrayLiteral(added.map((x) => `%.${x.replace(/[\\%_]/g, (c) => `\\${c}`)}`))}::text[]))`,
  );
  const touched = candidates.filter((f) => f.domains.some((d) => domainIn(addedSet, d)));
  if (touched.length === 0) return [];
  const rows = touched.map((f) => [f.connector_id, storeId("wsf", f.connector_id, f.resource_id)] as const);
  const grants = await queryRows<{
    connector_id: string;
    file_id: string;
    role: string;
    target_domain: string | null;
  }>(
    db,
    sql`SELECT p.connector_id, p.file_id, p.role, p.target_domain FROM workspace_permissions p
        WHERE p.org_id = ${orgId}
          AND p.connector_id = ANY(${arrayLiteral([...new Set(rows.map((r) => r[0]))])}::text[])
          AND p.file_id = ANY(${arrayLiteral(rows.map((r) => r[1]))}::text[])
          AND p.sharing_type IN ('external_user', 'external_domain')`,
  );
  const byFile = new Map<string, typeof grants>();
  for (const g of grants)
    byFile.set(`${g.connector_id}\0${g.file_id}`, [
      ...(byFile.get(`${g.connector_id}\0${g.file_id}`) ?? []),
      g,
    ]);
  const out: TRerated[] = [];
  for (const f of touched) {
    const list = byFile.get(`${f.connector_id}\0${storeId("wsf", f.connector_id, f.resource_id)}`) ?? [];
    if (list.length === 0) continue;
    let severity: TSeverity = "LOW";
    for (const g of list) {
      const isTrusted = g.target_domain !== null && domainIn(trusted, g.target_domain);
      severity = maxSeverity(severity, outsideGrantSeverity(g.role, isTrusted, f.sensitivity ?? "low"));
    }
    if (severity !== f.severity)
      out.push({
        id: f.id,
        ruleId: RULE_IDS.externalShare,
        category: f.category,
        from: f.severity,
        to: severity,
      });
  }
  return out;
}

/**
 * What a what-if resolves: the findings its plan fixes at the source, and every open finding
 * named, fixable at the source or not (MFA, settings…). Findings fixed by revoking agents count once.
 */
async function resolvedBy(
  db: Db,
  input: { orgId: string; findingIds?: string[]; agentIds?: string[] },
): Promise<{ draft: TDraft; resolved: Map<string, TFixedFinding> }> {
  const draft = await draftPlan(db, {
    orgId: input.orgId,
    findingIds: input.findingIds,
    agentIds: input.agentIds,
  });
  const resolved = new Map(draft.fixed.map((f) => [f.id, f]));
  const named = input.findingIds ?? [];
  if (named.length > 0) {
    const rows = await queryRows<TFixedFinding>(
      db,
      sql`SELECT id, rule_id AS "ruleId", category, severity FROM findings
          WHERE org_id = ${input.orgId} AND status = 'OPEN' AND id = ANY(${arrayLiteral(named)}::text[])`,
    );
    for (const r of rows) resolved.set(r.id, r);
  }
  return { draft, resolved };
}

/**
 * The posture score now and once these findings resolved: POST /posture/simulate's score without
 * its compliance controls (which gather the organization's signals: seconds on a large store).
 * The AI exposure quick wins' posture prediction.
 */
export async function predictPostureScore(
  db: Db,
  input: { orgId: string; findingIds: string[] },
): Promise<{ before: number; after: number }> {
  const { resolved } = await resolvedBy(db, input);
  const predicted = await predictScore(db, { orgId: input.orgId, resolved: [...resolved.values()] });
  return { before: predicted.before.score, after: predicted.score };
}

/**
 * POST /posture/simulate: the score, grade and controls if these findings were resolved (all of
 * them, fixable at the source or not), these agents' grants revoked, these domains trusted.
 * Changes nothing. Findings fixed by revoking the agents count once.
 */
export async function simulatePosture(
  db: Db,
  input: { orgId: string; findingIds?: string[]; trustedDomains?: string[]; agentIds?: string[] },
): Promise<TSimulateOutput> {
  const { draft, resolved } = await resolvedBy(db, input);
  const rerated = (await rerateForTrust(db, input.orgId, input.trustedDomains ?? [])).filter(
    (r) => !resolved.has(r.id),
  );
  const existing = input.trustedDomains?.length
    ? await queryRows<{ n: number }>(
        db,
        sql`SELECT count(*)::int AS n FROM trusted_domains WHERE org_id = ${input.orgId}
            AND domain = ANY(${arrayLiteral(input.trustedDomains.map((d) => d.toLowerCase()))}::text[])`,
      )
    : [];
  const added =
    new Set((input.trustedDomains ?? []).map((d) => d.toLowerCase())).size - (existing[0]?.n ?? 0);
  const { predicted, controls } = await predict(db, {
    orgId: input.orgId,
    resolved: [...resolved.values()],
    rerated,
    effects: draft.effects,
    trustedDomainsAdded: Math.max(0, added),
  });
  return {
    score: predicted.score,
    grade: predicted.grade,
    scoreDelta: predicted.scoreDelta,
    before: predicted.before,
    resolvedFindings: resolved.size,
    controls,
  };
}
