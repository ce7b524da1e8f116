import { and, eq, gt, inArray, isNull, lte, not, sql } from "drizzle-orm";
import { incidents, organizations, type Db } from "@posture/db";
import type { TJobQueue } from "@posture/platform";
import { withEvents } from "@posture/webhooks";
import { CLOCKS, REGULATIONS, type TRegulation } from "./deadlines";

const linkOf = (publicUrl: string, id: string) => `${publicUrl.replace(/\/$/, "")}/api/incidents/${id}`;

/**
 * Announces `incident.deadline.approaching` for every running clock inside its notice window
 * (deadlines.ts CLOCKS: GDPR 24 h, HIPAA 7 days before the deadline) and not yet announced, in
 * every organization that has not turned the regulation off. Once per incident and regulation:
 * the regulation is added to the incident's `deadline_notices` in the same transaction as the
 * event (the outbox), under a condition that only one of two concurrent sweeps can meet. A clock
 * already past its deadline when first seen is not announced as approaching (it is `overdue` on
 * the incident). Returns what was announced.
 */
export async function announceApproachingDeadlines(
  db: Db,
  deps: { jobs: TJobQueue; publicUrl: string },
  now = new Date(),
): Promise<Array<{ incidentId: string; regulation: TRegulation }>> {
  const announced: Array<{ incidentId: string; regulation: TRegulation }> = [];
  for (const regulation of REGULATIONS) {
    const clock = CLOCKS[regulation];
    const openedAfter = new Date(now.getTime() - clock.windowMs);
    const noticeFrom = new Date(now.getTime() - (clock.windowMs - clock.noticeMs));
    const due = await db
      .select({ id: incidents.id })
      .from(incidents)
      .innerJoin(organizations, eq(organizations.id, incidents.orgId))
      .where(
        and(
          isNull(incidents.resolvedAt),
          not(inArray(incidents.status, ["RESOLVED", "CLOSED"])),
          gt(incidents.openedAt, openedAfter),
          lte(incidents.openedAt, noticeFrom),
          sql`not (${regulation} = any(${incidents.deadlineNotices}))`,
          sql`not (${regulation} = any(${organizations.incidentRegulationsOff}))`,
        ),
      );
    for (const { id } of due) {
      const sent = await withEvents(db, deps.jobs, async (tx, emit) => {
        const [row] = await tx
          .update(incidents)
          .set({ deadlineNotices: sql`array_append(${incidents.deadlineNotices}, ${regulation})` })
          .where(
            and(
              eq(incidents.id, id),
              isNull(incidents.resolvedAt),
              sql`not (${regulation} = any(${incidents.deadlineNotices}))`,
            ),
          )
          .returning();
        if (!row) return false;
        await emit({
          orgId: row.orgId,
          type: "incident.deadline.approaching",
          data: {
            incidentId: row.id,
            title: row.title,
            status: row.status,
            priority: row.priority,
            regulation,
            dueAt: new Date(row.openedAt.getTime() + clock.windowMs).toISOString(),
            link: linkOf(deps.publicUrl, row.id),
          },
        });
        return true;
      });
      if (sent) announced.push({ incidentId: id, regulation });
    }
  }
  return announced;
}
