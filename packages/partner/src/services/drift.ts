import { sql, type SQL } from "drizzle-orm";
import { arrayLiteral, newId, queryRows, type Db, type TSeverity } from "@posture/db";
import type { TJobQueue } from "@posture/platform";
import { withEvents } from "@posture/webhooks";
import {
  driftOf,
  type TClientRule,
  type TClientState,
  type TDriftItem,
  type TStandardPolicy,
  type TStandardPrevention,
} from "./drift-rules";

export type TDriftDeps = { db: Db; jobs: TJobQueue; runtime: { publicUrl: string } };

/** Recomputes the drift of one partner's clients (after a standard, an assignment or a group changed). */
export const PARTNER_DRIFT_JOB = "partner.drift.refresh";
/** Periodic: every partner's clients, so that drift a missed job left stale is caught. */
export const PARTNER_DRIFT_SWEEP_JOB = "partner.drift.sweep";

/** Clients per transaction: the reads and writes of a batch are a handful of set-based statements. */
const BATCH = 100;

/** Queues the partner-wide recomputation; a lost enqueue is caught by the periodic sweep. */
export async function queuePartnerDrift(jobs: TJobQueue, partnerOrgId: string): Promise<void> {
  await jobs.enqueue(PARTNER_DRIFT_JOB, { partnerOrgId }).catch(() => undefined);
}

/** Recomputes one client's drift from every standard assigned to it, directly or through a group. */
export async function refreshDrift(deps: TDriftDeps, clientOrgId: string): Promise<void> {
  await refreshDriftOf(deps, [clientOrgId]);
}

/** Every client of the partner that holds a standard or has open drift. */
export async function refreshPartnerDrift(deps: TDriftDeps, partnerOrgId: string): Promise<number> {
  const rows = await queryRows<{ id: string }>(
    deps.db,
    sql`SELECT o.id FROM organizations o WHERE o.managed_by_org_id = ${partnerOrgId}
      UNION SELECT DISTINCT client_org_id FROM partner_drift WHERE partner_org_id = ${partnerOrgId} AND resolved_at IS NULL
      ORDER BY 1`,
  );
  const ids = rows.map((r) => r.id);
  for (let i = 0; i < ids.length; i += BATCH) await refreshDriftOf(deps, ids.slice(i, i + BATCH));
  return ids.length;
}

/** The periodic sweep: every partner that has a standard or open drift. */
export async function sweepDrift(deps: TDriftDeps): Promise<number> {
  const partners = await queryRows<{ id: string }>(
    deps.db,
    sql`SELECT DISTINCT partner_org_id AS id FROM partner_standards
      UNION SELECT DISTINCT partner_org_id FROM partner_drift WHERE resolved_at IS NULL`,
  );
  let n = 0;
  for (const p of partners) n += await refreshPartnerDrift(deps, p.id);
  return n;
}

type TManaged = { id: string; name: string; partner_org_id: string };
type TStandardRow = {
  id: string;
  name: string;
  partner_org_id: string;
  policies: TStandardPolicy[];
  prevention_rules: TStandardPrevention[];
  trusted_domains: string[];
  min_score: number | null;
};
type TOpenRow = {
  id: string;
  partner_org_id: string;
  standard_id: string;
  client_org_id: string;
  rule: string;
  severity: TSeverity;
  detail: Record<string, unknown>;
};
type TWanted = TDriftItem & { partnerOrgId: string; standardId: string; clientOrgId: string };

const keyOf = (standardId: string, clientOrgId: string, rule: string) =>
  `${standardId}\n${clientOrgId}\n${rule}`;

// Stable JSON for comparing a stored detail with a computed one (jsonb reorders keys).
const stable = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(
          Object.entries(x as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : x,
  );

/**
 * Recomputes the drift of `clientOrgIds` in one transaction: loads, set-based, their assigned
 * standards and their own policies, prevention rules, trusted domains and score; opens the drift
 * that is new (one `partner.drift.detected` each, to the partner, in the same transaction),
 * updates what changed, resolves what no longer drifts. Clients are locked (advisory, sorted)
 * first, so two recomputations of one client cannot interleave.
 *
 * Only clients managed with consent are judged; the open drift of a client that withdrew
 * consent is left as it was (not the partner's to see), and of a client that left the partner
 * (or whose partner changed) is resolved.
 */
async function refreshDriftOf(deps: TDriftDeps, clientOrgIds: string[]): Promise<void> {
  if (clientOrgIds.length === 0) return;
  const ids = arrayLiteral([...new Set(clientOrgIds)].sort());
  const base = deps.runtime.publicUrl.replace(/\/$/, "");
  await withEvents(deps.db, deps.jobs, async (tx, emit) => {
    await tx.execute(
      sql`SELECT pg_advisory_xact_lock(17017, hashtext(s.id)) FROM (SELECT id FROM unnest(${ids}::text[]) AS u(id) ORDER BY id) s`,
    );
    // One after another: the statements of a transaction share its one connection.
    const q = <T>(query: SQL) => queryRows<T>(tx, query);
    const clients = await q<TManaged>(
      sql`SELECT o.id, o.name, o.managed_by_org_id AS partner_org_id FROM organizations o
        JOIN partner_access pa ON pa.client_org_id = o.id AND pa.partner_org_id = o.managed_by_org_id
        WHERE o.id = ANY(${ids}::text[]) AND pa.withdrawn_at IS NULL`,
    );
    // Each client's standards: assigned to it, or to a group it is in, by its own partner.
    const assigned = await q<{ client_org_id: string; standard_id: string }>(
      sql`SELECT DISTINCT o.id AS client_org_id, a.standard_id FROM organizations o
        JOIN partner_standard_assignments a ON a.partner_org_id = o.managed_by_org_id
        WHERE o.id = ANY(${ids}::text[]) AND (a.client_org_id = o.id
          OR a.group_id IN (SELECT m.group_id FROM partner_group_members m WHERE m.client_org_id = o.id))`,
    );
    const policies = await q<TClientRule & { org_id: string }>(
      sql`SELECT org_id, id, name, match, enabled FROM security_policies WHERE org_id = ANY(${ids}::text[])`,
    );
    const prevention = await q<TClientRule & { org_id: string; dry_run: boolean }>(
      sql`SELECT org_id, id, name, match, enabled, action, dry_run FROM prevention_rules WHERE org_id = ANY(${ids}::text[])`,
    );
    const domains = await q<{ org_id: string; domain: string }>(
      sql`SELECT org_id, domain FROM trusted_domains WHERE org_id = ANY(${ids}::text[])`,
    );
    const scores = await q<{ org_id: string; score: number | null }>(
      sql`SELECT org_id, posture_score AS score FROM org_posture_summary WHERE org_id = ANY(${ids}::text[])`,
    );
    const open = await q<TOpenRow>(
      sql`SELECT id, partner_org_id, standard_id, client_org_id, rule, severity, detail FROM partner_drift
        WHERE client_org_id = ANY(${ids}::text[]) AND resolved_at IS NULL`,
    );
    const standardIds = [...new Set(assigned.map((a) => a.standard_id))];
    const standards = new Map(
      (standardIds.length === 0
        ? []
        : await queryRows<TStandardRow>(
            tx,
            sql`SELECT id, name, partner_org_id, policies, prevention_rules, trusted_domains, min_score
              FROM partner_standards WHERE id = ANY(${arrayLiteral(standardIds)}::text[])`,
          )
      ).map((s) => [s.id, s]),
    );

    const group = <T extends { org_id: string }>(rows: T[]) => {
      const m = new Map<string, T[]>();
      for (const r of rows) {
        const list = m.get(r.org_id);
        if (list) list.push(r);
        else m.set(r.org_id, [r]);
      }
      return m;
    };
    const policiesOf = group(policies);
    const preventionOf = group(prevention);
    const domainsOf = group(domains);
    const scoreOf = new Map(scores.map((s) => [s.org_id, s.score === null ? null : Number(s.score)]));
    const managed = new Map(clients.map((c) => [c.id, c]));

    const wanted = new Map<string, TWanted>();
    for (const a of assigned) {
      const client = managed.get(a.client_org_id);
      const std = standards.get(a.standard_id);
      if (!client || !std || std.partner_org_id !== client.partner_org_id) continue;
      const state: TClientState = {
        policies: policiesOf.get(client.id) ?? [],
        prevention: (preventionOf.get(client.id) ?? []).map((r) => ({ ...r, dryRun: r.dry_run })),
        trustedDomains: (domainsOf.get(client.id) ?? []).map((d) => d.domain),
        score: scoreOf.get(client.id) ?? null,
      };
      const rules = {
        policies: std.policies,
        preventionRules: std.prevention_rules,
        trustedDomains: std.trusted_domains,
        minScore: std.min_score,
      };
      for (const d of driftOf(rules, state)) {
        wanted.set(keyOf(std.id, client.id, d.rule), {
          ...d,
          partnerOrgId: client.partner_org_id,
          standardId: std.id,
          clientOrgId: client.id,
        });
      }
    }

    const resolve: string[] = [];
    const changed: Array<{ id: string; severity: TSeverity; detail: Record<string, unknown> }> = [];
    const stillOpen = new Set<string>();
    const frozen = new Map<string, boolean>();
    for (const row of open) {
      const client = managed.get(row.client_org_id);
      if (!client) {
        // Consent withdrawn: frozen. No longer (or otherwise) managed: resolved below.
        const pair = `${row.client_org_id}\n${row.partner_org_id}`;
        let withdrawn = frozen.get(pair);
        if (withdrawn === undefined) {
          withdrawn = await isWithdrawnFrom(tx, row.client_org_id, row.partner_org_id);
          frozen.set(pair, withdrawn);
        }
        if (!withdrawn) resolve.push(row.id);
        continue;
      }
      const key = keyOf(row.standard_id, row.client_org_id, row.rule);
      const want = wanted.get(key);
      if (!want) {
        resolve.push(row.id);
        continue;
      }
      stillOpen.add(key);
      if (want.severity !== row.severity || stable(want.detail) !== stable(row.detail))
        changed.push({ id: row.id, severity: want.severity, detail: want.detail });
    }

    const checked = [...managed.keys()];
    if (checked.length > 0) {
      await tx.execute(
        sql`UPDATE partner_drift SET checked_at = now()
          WHERE client_org_id = ANY(${arrayLiteral(checked)}::text[]) AND resolved_at IS NULL`,
      );
    }
    if (resolve.length > 0) {
      await tx.execute(
        sql`UPDATE partner_drift SET resolved_at = now() WHERE id = ANY(${arrayLiteral(resolve)}::text[])`,
      );
    }
    if (changed.length > 0) {
      await tx.execute(
        sql`UPDATE partner_drift d SET severity = v.severity, detail = v.detail
          FROM jsonb_to_recordset(${JSON.stringify(changed)}::jsonb) AS v(id text, severity text, detail jsonb)
          WHERE d.id = v.id`,
      );
    }
    const fresh = [...wanted.entries()].filter(([k]) => !stillOpen.has(k)).map(([, w]) => w);
    if (fresh.length === 0) return;
    const inserted = await queryRows<{
      id: string;
      standard_id: string;
      client_org_id: string;
      rule: string;
    }>(
      tx,
      sql`INSERT INTO partner_drift (id, partner_org_id, standard_id, client_org_id, rule, severity, detail)
        SELECT v.id, v.partner_org_id, v.standard_id, v.client_org_id, v.rule, v.severity, v.detail
        FROM jsonb_to_recordset(${JSON.stringify(
          fresh.map((f) => ({
            id: newId("dft"),
            partner_org_id: f.partnerOrgId,
            standard_id: f.standardId,
            client_org_id: f.clientOrgId,
            rule: f.rule,
            severity: f.severity,
            detail: f.detail,
          })),
        )}::jsonb) AS v(id text, partner_org_id text, standard_id text, client_org_id text, rule text, severity text, detail jsonb)
        ON CONFLICT (standard_id, client_org_id, rule) WHERE resolved_at IS NULL DO NOTHING
        RETURNING id, standard_id, client_org_id, rule`,
    );
    for (const row of inserted) {
      const w = wanted.get(keyOf(row.standard_id, row.client_org_id, row.rule));
      const std = standards.get(row.standard_id);
      const client = managed.get(row.client_org_id);
      if (!w || !std || !client) continue;
      await emit({
        orgId: w.partnerOrgId,
        type: "partner.drift.detected",
        data: {
          driftId: row.id,
          standardId: std.id,
          standardName: std.name,
          clientOrgId: client.id,
          clientName: client.name,
          rule: row.rule,
          severity: w.severity,
          link: `${base}/api/partner/standards/${std.id}/drift?clientOrgId=${client.id}`,
        },
      });
    }
  });
}

/** The client is still managed by the partner but withdrew consent: its drift stays as it was. */
async function isWithdrawnFrom(tx: Db, clientOrgId: string, partnerOrgId: string): Promise<boolean> {
  const [row] = await queryRows<{ ok: boolean }>(
    tx,
    sql`SELECT true AS ok FROM organizations o JOIN partner_access pa ON pa.client_org_id = o.id
      WHERE o.id = ${clientOrgId} AND o.managed_by_org_id = ${partnerOrgId} AND pa.partner_org_id = ${partnerOrgId}`,
  );
  return row?.ok === true;
}
