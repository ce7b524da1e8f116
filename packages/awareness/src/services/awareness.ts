import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@posture/db";
import { rank, rankAmong, scoreOf, type TRanked, type TSignals } from "./model";

// Reads each person's own signals from the shared store: the workspace snapshot (MFA, dormant),
// the findings on what they own (public links, external shares, how fast they were fixed), their
// MFA and dormant-account findings, and their behaviour anomalies of the last 30 days.

const DAY_MS = 86_400_000;

type TFindingRow = {
  person: string;
  rule_id: string;
  status: string;
  resource_name: string;
  domains: string[] | null;
  detected_at: Date | string;
  resolved_at: Date | string | null;
};

function blank(email: string): TSignals {
  return {
    email,
    mfaEnabled: null,
    dormant: false,
    openPublicLinks: [],
    openExternalShares: [],
    fixDays: [],
    anomalies: [],
  };
}

export async function collectSignals(
  db: Db,
  q: { orgId: string; now?: Date },
): Promise<Map<string, TSignals>> {
  const now = (q.now ?? new Date()).getTime();
  const people = new Map<string, TSignals>();
  const of = (email: string) => {
    const key = email.toLowerCase();
    let s = people.get(key);
    if (!s) {
      s = blank(key);
      people.set(key, s);
    }
    return s;
  };

  const users = await queryRows<{ email: string; mfa: boolean | null; dormant: boolean; suspended: boolean }>(
    db,
    sql`select lower(email) as email, bool_and(mfa_enabled) as mfa, bool_or(dormant) as dormant,
          bool_and(status = 'suspended') as suspended
        from workspace_users where org_id = ${q.orgId} group by lower(email)`,
  );
  for (const u of users) {
    if (u.suspended) continue;
    const s = of(u.email);
    s.mfaEnabled = u.mfa;
    s.dormant = u.dormant;
  }

  const rows = await queryRows<TFindingRow>(
    db,
    sql`select lower(coalesce(details->>'ownerEmail', details->>'email')) as person, rule_id, status, resource_name,
          case when jsonb_typeof(details->'externalDomains') = 'array'
               then array(select jsonb_array_elements_text(details->'externalDomains')) end as domains,
          detected_at, resolved_at
        from findings
        where org_id = ${q.orgId}
          and rule_id in ('public_link', 'external_share', 'user_without_mfa', 'admin_without_mfa', 'dormant_account')
          and (status = 'OPEN' or resolved_at > now() - interval '90 days')
          and coalesce(details->>'ownerEmail', details->>'email') is not null`,
  );
  for (const f of rows) {
    const s = of(f.person);
    const ageDays = Math.floor((now - new Date(f.detected_at).getTime()) / DAY_MS);
    if (f.status === "OPEN") {
      if (f.rule_id === "public_link") s.openPublicLinks.push({ name: f.resource_name, ageDays });
      else if (f.rule_id === "external_share")
        s.openExternalShares.push({ name: f.resource_name, domains: f.domains ?? [], ageDays });
      else if (f.rule_id === "dormant_account") s.dormant = true;
      else if (s.mfaEnabled === null) s.mfaEnabled = false;
    } else if (f.resolved_at && (f.rule_id === "public_link" || f.rule_id === "external_share")) {
      s.fixDays.push((new Date(f.resolved_at).getTime() - new Date(f.detected_at).getTime()) / DAY_MS);
    }
  }

  const anomalies = await queryRows<{
    principal: string;
    type: string;
    severity: string;
    window: string;
    observed: number;
  }>(
    db,
    sql`select principal, type, severity, "window", observed from anomalies
        where org_id = ${q.orgId} and at > ${new Date(now - 30 * DAY_MS).toISOString()}::timestamptz
        order by severity_rank desc, at desc`,
  );
  for (const a of anomalies) of(a.principal).anomalies.push(a);

  // Everyone the behaviour engine knows is a person too, even before a workspace snapshot.
  const principals = await queryRows<{ principal: string }>(
    db,
    sql`select principal from behavior_baselines where org_id = ${q.orgId}`,
  );
  for (const p of principals) of(p.principal);
  return people;
}

/** The organization's leaderboard, rank 1 first. */
export async function leaderboard(db: Db, q: { orgId: string; now?: Date }): Promise<TRanked[]> {
  const signals = await collectSignals(db, q);
  return rank([...signals.values()].map(scoreOf));
}

/** The caller's own score; someone with no signals at all scores as a careful newcomer would. */
export async function myAwareness(db: Db, q: { orgId: string; email: string; now?: Date }) {
  const signals = await collectSignals(db, q);
  const email = q.email.toLowerCase();
  const mine = scoreOf(signals.get(email) ?? blank(email));
  const others = [...signals.values()].filter((s) => s.email !== email).map(scoreOf);
  return { ...mine, rank: rankAmong(mine.score, others) };
}
