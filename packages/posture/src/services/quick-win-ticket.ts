import { sql } from "drizzle-orm";
import { queryRows, type Db, type TSeverity } from "@posture/db";
import { AppError, type TActor, type TRuntime } from "@posture/platform";
import { fileSubjectTicket, subjectDraft, type TSubjectTicket } from "@posture/ticketing";
import { SEVERITY_RANK } from "../engine";
import { QUICK_WIN_GROUP_CAP, QUICK_WIN_GROUPS, type TQuickWinGroup } from "../engine/rule-ids";
import { groupTitle } from "../engine/score-posture";

/** How many of the group's findings the ticket's text lists one by one (the rest are counted). */
export const QUICK_WIN_TICKET_LINES = 50;

/**
 * One ticket for a quick-win group (GET /posture/breakdown: the group a `quickWins[].plan`
 * `{quickWin}` names): its title (as the breakdown words it), its open findings, worst first, the
 * first QUICK_WIN_TICKET_LINES linked, and how to fix them all in one remediation
 * (POST /api/remediations {quickWin}). 404 when the group has no open finding.
 */
export async function createQuickWinTicket(
  db: Db,
  input: { orgId: string; actor: TActor; group: TQuickWinGroup["key"] },
  deps: { runtime: TRuntime; fetch?: typeof fetch },
): Promise<TSubjectTicket> {
  const g = QUICK_WIN_GROUPS.find((x) => x.key === input.group);
  if (!g) throw new AppError("not_found", "Quick-win group not found");
  const trusted = sql`COALESCE((f.details->>'trustedOnly')::boolean, false)`;
  const where =
    g.trustedOnly === null
      ? sql`f.rule_id = ${g.ruleId}`
      : sql`f.rule_id = ${g.ruleId} AND ${trusted} = ${g.trustedOnly}`;
  const rows = await queryRows<{
    id: string;
    title: string;
    severity: TSeverity;
    resourceName: string;
    total: number;
  }>(
    db,
    sql`SELECT f.id, f.title, f.severity, f.resource_name AS "resourceName", count(*) OVER ()::int AS total
        FROM findings f WHERE f.org_id = ${input.orgId} AND f.status = 'OPEN' AND ${where}
        ORDER BY f.severity_rank DESC, f.id COLLATE "C" LIMIT ${QUICK_WIN_GROUP_CAP}`,
  );
  const first = rows[0];
  if (!first) throw new AppError("not_found", `The quick-win group ${g.key} has no open finding`);
  const total = first.total;
  const base = deps.runtime.publicUrl.replace(/\/$/, "");
  const worst = rows.reduce<TSeverity>(
    (w, r) => (SEVERITY_RANK[r.severity] > SEVERITY_RANK[w] ? r.severity : w),
    first.severity,
  );
  const lines = rows.slice(0, QUICK_WIN_TICKET_LINES).map((r) => ({
    label: `${r.severity} ${r.title}`,
    value: `${base}/api/findings/${r.id}`,
    href: `${base}/api/findings/${r.id}`,
  }));
  if (total > lines.length) {
    lines.push({
      label: "And",
      value: `${total - lines.length} more (GET /api/posture/breakdown)`,
      href: "",
    });
  }
  const draft = subjectDraft({
    title: `[${worst}] ${groupTitle(g.key, total)}`,
    severity: worst,
    intro: `A security posture quick win: ${total} open finding${total === 1 ? "" : "s"} fixed by one remediation (POST ${base}/api/remediations {"quickWin": "${g.key}"}).`,
    lines: lines.map((l) => (l.href ? l : { label: l.label, value: l.value })),
  });
  return fileSubjectTicket(
    db,
    { ...input, kind: "quick_win", subject: g.key, findingIds: rows.map((r) => r.id), draft },
    deps,
  );
}
