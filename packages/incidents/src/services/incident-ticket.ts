import { and, eq, inArray } from "drizzle-orm";
import { findings, SEVERITY_RANK, type Db, type TIncidentPriority, type TSeverity } from "@posture/db";
import type { TActor, TRuntime } from "@posture/platform";
import { fileSubjectTicket, subjectDraft, type TSubjectTicket } from "@posture/ticketing";
import { getIncidentRow } from "./incidents";

/** The tracker's priority for an incident (Jira label, Linear priority): P1 is critical. */
const SEVERITY_OF: Record<TIncidentPriority, TSeverity> = {
  P1: "CRITICAL",
  P2: "HIGH",
  P3: "MEDIUM",
  P4: "LOW",
};

/**
 * One ticket for an incident: its title and priority, status, assignee, summary, its link, and
 * its linked findings worst first. 404 for an unknown incident or another organization's.
 */
export async function createIncidentTicket(
  db: Db,
  input: { orgId: string; actor: TActor; id: string },
  deps: { runtime: TRuntime; fetch?: typeof fetch },
): Promise<TSubjectTicket> {
  const row = await getIncidentRow(db, { orgId: input.orgId, id: input.id });
  const linked =
    row.linkedFindingIds.length === 0
      ? []
      : await db
          .select({ id: findings.id, title: findings.title, severity: findings.severity })
          .from(findings)
          .where(and(eq(findings.orgId, input.orgId), inArray(findings.id, row.linkedFindingIds)));
  linked.sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || (a.id < b.id ? -1 : 1));
  const base = deps.runtime.publicUrl.replace(/\/$/, "");
  const draft = subjectDraft({
    title: `[${row.priority}] Incident: ${row.title}`,
    severity: SEVERITY_OF[row.priority],
    intro: row.summary.trim() || `A security incident (${row.status}).`,
    lines: [
      {
        label: "Incident",
        value: `${base}/api/incidents/${row.id}`,
        href: `${base}/api/incidents/${row.id}`,
      },
      { label: "Status", value: row.status },
      { label: "Priority", value: row.priority },
      ...(row.assignee ? [{ label: "Assignee", value: row.assignee }] : []),
      ...linked.map((f) => ({
        label: `${f.severity} ${f.title}`,
        value: `${base}/api/findings/${f.id}`,
        href: `${base}/api/findings/${f.id}`,
      })),
    ],
  });
  return fileSubjectTicket(
    db,
    {
      orgId: input.orgId,
      actor: input.actor,
      kind: "incident",
      subject: row.id,
      findingIds: linked.map((f) => f.id),
      draft,
    },
    deps,
  );
}
