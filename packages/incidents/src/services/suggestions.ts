import { sql } from "drizzle-orm";
import { queryRows, type Db, type TSeverity } from "@posture/db";

// Suggested incidents: open findings and anomalies that tell one story, clustered by theme. They
// are only suggestions: an administrator creates the incident (POST /api/incidents).

export type TSuggestion = {
  theme: string;
  kind: "person" | "external_domain" | "agent" | "rule";
  key: string;
  title: string;
  severity: TSeverity;
  findingIds: string[];
  anomalyIds: string[];
};

type TFindingRow = {
  id: string;
  severity: TSeverity;
  rule_id: string;
  title: string;
  resource_type: string;
  resource_id: string;
  resource_name: string;
  person: string | null;
  domains: string[] | null;
};

const RANK: Record<TSeverity, number> = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1 };
const BY_RANK: TSeverity[] = ["LOW", "LOW", "MEDIUM", "HIGH", "CRITICAL"];
const MAX_IDS = 150; // Sentinel groups at most 150 alerts per incident
const MAX_SUGGESTIONS = 25;

/** The cluster's severity: its worst item, one step up when it gathers many HIGH or worse. */
function clusterSeverity(severities: TSeverity[]): TSeverity {
  const worst = Math.max(...severities.map((s) => RANK[s]));
  const serious = severities.filter((s) => RANK[s] >= 3).length;
  return BY_RANK[Math.min(4, worst + (serious >= 5 && worst < 4 ? 1 : 0))] ?? "LOW";
}

export async function suggestIncidents(db: Db, q: { orgId: string }): Promise<TSuggestion[]> {
  // Findings already in an incident that is not closed are being handled.
  const open = await queryRows<TFindingRow>(
    db,
    sql`select f.id, f.severity, f.rule_id, f.title, f.resource_type, f.resource_id, f.resource_name,
          lower(coalesce(f.details->>'ownerEmail', f.details->>'email')) as person,
          case when jsonb_typeof(f.details->'externalDomains') = 'array'
               then array(select jsonb_array_elements_text(f.details->'externalDomains')) end as domains
        from findings f
        where f.org_id = ${q.orgId} and f.status = 'OPEN'
          and not exists (select 1 from incidents i where i.org_id = ${q.orgId} and i.status <> 'CLOSED'
                          and f.id = any(i.linked_finding_ids))
        order by f.severity_rank desc, f.detected_at desc, f.id`,
  );
  const anomalies = await queryRows<{ id: string; principal: string; type: string; severity: TSeverity }>(
    db,
    sql`select id, principal, type, severity from anomalies
        where org_id = ${q.orgId} and at > now() - interval '30 days' order by at desc`,
  );

  type TAcc = { findings: TFindingRow[]; anomalies: typeof anomalies; label: string };
  const groups = new Map<string, TAcc>();
  const add = (
    kind: TSuggestion["kind"],
    key: string,
    label: string,
    f?: TFindingRow,
    a?: (typeof anomalies)[number],
  ) => {
    const id = `${kind}:${key}`;
    const g = groups.get(id) ?? { findings: [], anomalies: [], label };
    if (f) g.findings.push(f);
    if (a) g.anomalies.push(a);
    groups.set(id, g);
  };
  for (const f of open) {
    if (f.person) add("person", f.person, f.person, f);
    for (const d of f.domains ?? []) add("external_domain", d, d, f);
    if (f.resource_type === "app") add("agent", f.resource_id, f.resource_name, f);
    add("rule", f.rule_id, f.title, f);
  }
  for (const a of anomalies) add("person", a.principal, a.principal, undefined, a);

  const out: TSuggestion[] = [];
  for (const [theme, g] of groups) {
    const [kind, ...rest] = theme.split(":");
    const key = rest.join(":");
    const size = g.findings.length + g.anomalies.length;
    // A theme is a story when it gathers several items; a person with an anomaly needs one more signal.
    const enough =
      kind === "rule"
        ? g.findings.length >= 3
        : kind === "person"
          ? size >= 2 && (g.anomalies.length > 0 || g.findings.length >= 3)
          : size >= 2;
    if (!enough) continue;
    const severities = [...g.findings.map((f) => f.severity), ...g.anomalies.map((a) => a.severity)];
    const titles: Record<string, string> = {
      person: `Activity and exposures of ${g.label}`,
      external_domain: `Data shared with ${g.label}`,
      agent: `Access held by ${g.label}`,
      rule: `${g.label} (${g.findings.length} resources)`,
    };
    out.push({
      theme,
      kind: kind as TSuggestion["kind"],
      key,
      title: titles[kind ?? "rule"] ?? theme,
      severity: clusterSeverity(severities),
      findingIds: g.findings.slice(0, MAX_IDS).map((f) => f.id),
      anomalyIds: g.anomalies.map((a) => a.id),
    });
  }
  out.sort(
    (a, b) =>
      RANK[b.severity] - RANK[a.severity] ||
      b.anomalyIds.length + b.findingIds.length - (a.anomalyIds.length + a.findingIds.length) ||
      (a.theme < b.theme ? -1 : 1),
  );
  return out.slice(0, MAX_SUGGESTIONS);
}
