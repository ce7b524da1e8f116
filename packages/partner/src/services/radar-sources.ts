import { sql } from "drizzle-orm";
import { queryRows, SEVERITIES, type Db, type TCampaignKind, type TSeverity } from "@posture/db";
import { domainIn, emailDomain } from "@posture/platform";

/** How long a subject counts as new in a client, and how many clients make it a campaign. */
export const RADAR_WINDOW_DAYS = 30;
export const RADAR_MIN_CLIENTS = 2;
/** At most this many evidence ids are kept per client (the count says how many there were). */
export const RADAR_EVIDENCE_IDS = 20;

/**
 * Mail providers anyone may share with: a domain every portfolio's clients send files to is no
 * cross-client signal (the personal-mail exposure is each client's own finding).
 */
const PERSONAL_MAIL = new Set([
  "gmail.com",
  "googlemail.com",
  "outlook.com",
  "hotmail.com",
  "live.com",
  "msn.com",
  "yahoo.com",
  "icloud.com",
  "me.com",
  "aol.com",
  "proton.me",
  "protonmail.com",
  "gmx.com",
  "gmx.de",
  "yandex.com",
  "mail.ru",
]);

// The platform owners' own apps: present in every tenant by construction, never a campaign.
const FIRST_PARTY_PUBLISHER = "^(google|microsoft)( |\\.com|$)";
// Scopes reaching every file, mailbox or the directory (both platforms' spellings).
const BROAD_SCOPE =
  "(auth/drive(\\.readonly)?$|gmail|mail\\.google\\.com|auth/admin\\.|cloud-platform|\\.All$|^Mail\\.)";

/** One subject as seen in one client: when it first and last showed there, and by which records. */
export type TSighting = {
  orgId: string;
  kind: TCampaignKind;
  subject: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
  evidenceIds: string[];
  evidenceCount: number;
  severity: TSeverity;
  /** Grants only: the app's name and publisher, whether any grant's publisher is verified, broad scopes. */
  label: string | null;
  publisher: string | null;
  known: boolean;
  broad: boolean;
};

type TRow = {
  org_id: string;
  kind: TCampaignKind;
  subject: string;
  first_seen: Date | string;
  last_seen: Date | string;
  ids: string[];
  n: number;
  sev_rank: number | null;
  label: string | null;
  publisher: string | null;
  known: boolean | null;
  broad: boolean | null;
};

const severityOfRank = (rank: number | null): TSeverity => SEVERITIES[4 - (rank ?? 1)] ?? "LOW";

// The partner's clients that have not withdrawn access: the only ones the radar reads.
const consenting = (partnerOrgId: string) => sql`
  SELECT o.id FROM organizations o
  JOIN partner_access pa ON pa.client_org_id = o.id
  WHERE o.managed_by_org_id = ${partnerOrgId} AND pa.partner_org_id = ${partnerOrgId} AND pa.withdrawn_at IS NULL`;

/**
 * Every subject the radar correlates, per consenting client, in three set-based reads: current
 * grants (apps and AI agents, by OAuth client id), outside domains of current shares, anomalies
 * of the window by type. Benign subjects are left out here (docs/decisions.md).
 */
export async function collectSightings(db: Db, partnerOrgId: string, now: Date): Promise<TSighting[]> {
  const since = new Date(now.getTime() - RADAR_WINDOW_DAYS * 86_400_000);
  // One after another: inside the radar's transaction there is one connection.
  const grants = await queryRows<TRow>(
    db,
    sql`SELECT g.org_id, CASE WHEN g.kind = 'ai_agent' THEN 'ai_agent' ELSE 'oauth_app' END AS kind,
          COALESCE(NULLIF(g.client_id, ''), g.external_id) AS subject,
          min(g.granted_at) AS first_seen, max(g.granted_at) AS last_seen,
          (array_agg(g.id ORDER BY g.granted_at, g.id))[1:${RADAR_EVIDENCE_IDS}] AS ids, count(*)::int AS n,
          NULL::int AS sev_rank, min(g.label) AS label, min(g.publisher) AS publisher,
          bool_or(g.is_known_publisher) AS known,
          bool_or(g.kind = 'service_account' OR EXISTS (SELECT 1 FROM unnest(g.scopes) s WHERE s ~* ${BROAD_SCOPE})) AS broad
        FROM oauth_grants g
        WHERE g.org_id IN (${consenting(partnerOrgId)}) AND g.publisher !~* ${FIRST_PARTY_PUBLISHER}
        GROUP BY 1, 2, 3`,
  );
  // A share keeps no creation time: its file's last change is the closest the store knows.
  const shares = await queryRows<TRow>(
    db,
    sql`SELECT s.org_id, 'outside_domain' AS kind, lower(d) AS subject,
          min(f.modified_at) AS first_seen, max(f.modified_at) AS last_seen,
          (array_agg(s.id ORDER BY s.risk_rank DESC, s.id))[1:${RADAR_EVIDENCE_IDS}] AS ids, count(*)::int AS n,
          max(s.severity_rank) AS sev_rank, NULL AS label, NULL AS publisher, NULL::boolean AS known, NULL::boolean AS broad
        FROM workspace_shares s
        CROSS JOIN LATERAL unnest(s.target_domains) d
        JOIN workspace_files f ON f.id = s.file_id AND f.connector_id = s.connector_id
        WHERE s.org_id IN (${consenting(partnerOrgId)}) AND s.sharing_type <> 'public' AND s.approved_until IS NULL
        GROUP BY 1, 3`,
  );
  const anomalies = await queryRows<TRow>(
    db,
    sql`SELECT a.org_id, 'anomaly' AS kind, a.type AS subject, min(a.at) AS first_seen, max(a.at) AS last_seen,
          (array_agg(a.id ORDER BY a.at DESC, a.id))[1:${RADAR_EVIDENCE_IDS}] AS ids, count(*)::int AS n,
          max(a.severity_rank) AS sev_rank, NULL AS label, NULL AS publisher, NULL::boolean AS known, NULL::boolean AS broad
        FROM anomalies a
        WHERE a.org_id IN (${consenting(partnerOrgId)}) AND a.at >= ${since}
        GROUP BY 1, 3`,
  );
  const exclusions = await domainExclusions(db, partnerOrgId);
  const keep = (r: TRow) =>
    r.kind !== "outside_domain" ||
    !(
      PERSONAL_MAIL.has(r.subject) ||
      domainIn(exclusions.partner, r.subject) ||
      domainIn(exclusions.byClient.get(r.org_id) ?? new Set(), r.subject)
    );
  return [...grants, ...shares, ...anomalies].filter(keep).map((r) => ({
    orgId: r.org_id,
    kind: r.kind,
    subject: r.subject,
    firstSeenAt: new Date(r.first_seen),
    lastSeenAt: new Date(r.last_seen),
    evidenceIds: r.ids,
    evidenceCount: Number(r.n),
    severity: severityOfRank(r.sev_rank === null ? null : Number(r.sev_rank)),
    label: r.label,
    publisher: r.publisher,
    known: r.known ?? false,
    broad: r.broad ?? false,
  }));
}

/**
 * Domains no outside-domain campaign is made of: the partner's own (its people's mail domains),
 * the domains its standards let clients share with, and each client's own trusted domains.
 */
async function domainExclusions(db: Db, partnerOrgId: string) {
  const people = await queryRows<{ email: string }>(
    db,
    sql`SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = ${partnerOrgId}`,
  );
  const standards = await queryRows<{ domain: string }>(
    db,
    sql`SELECT DISTINCT lower(unnest(trusted_domains)) AS domain FROM partner_standards WHERE partner_org_id = ${partnerOrgId}`,
  );
  const trusted = await queryRows<{ org_id: string; domain: string }>(
    db,
    sql`SELECT t.org_id, lower(t.domain) AS domain FROM trusted_domains t WHERE t.org_id IN (${consenting(partnerOrgId)})`,
  );
  const partner = new Set<string>(standards.map((s) => s.domain));
  for (const p of people) {
    const d = emailDomain(p.email);
    if (d !== null) partner.add(d);
  }
  const byClient = new Map<string, Set<string>>();
  for (const t of trusted) {
    const set = byClient.get(t.org_id) ?? new Set<string>();
    set.add(t.domain);
    byClient.set(t.org_id, set);
  }
  return { partner, byClient };
}
