import type { Db, incidents } from "@posture/db";
import type { TJobQueue, TLogger } from "@posture/platform";
import { emitEvent } from "@posture/webhooks";

type TRow = typeof incidents.$inferSelect;
export type TAnnounceDeps = { db: Db; jobs: TJobQueue; log: TLogger; publicUrl: string };

const linkOf = (publicUrl: string, id: string) => `${publicUrl.replace(/\/$/, "")}/api/incidents/${id}`;

/**
 * The one place incident events leave: after the change committed. A failed announcement is
 * logged, never turned into a failed request (the change is already durable).
 */
export async function announceIncident(
  deps: TAnnounceDeps,
  input:
    | { kind: "created"; row: TRow }
    | { kind: "updated"; row: TRow; changes: string[]; previousStatus: TRow["status"] | null },
): Promise<void> {
  const r = input.row;
  const common = {
    incidentId: r.id,
    title: r.title,
    status: r.status,
    priority: r.priority,
    assignee: r.assignee,
  };
  try {
    if (input.kind === "created") {
      await emitEvent(deps.db, deps.jobs, {
        orgId: r.orgId,
        type: "incident.created",
        data: {
          ...common,
          linkedFindingCount: r.linkedFindingIds.length,
          link: linkOf(deps.publicUrl, r.id),
        },
      });
    } else if (input.changes.length > 0) {
      await emitEvent(deps.db, deps.jobs, {
        orgId: r.orgId,
        type: "incident.updated",
        data: {
          ...common,
          changes: input.changes,
          previousStatus: input.previousStatus,
          link: linkOf(deps.publicUrl, r.id),
        },
      });
    }
  } catch (err) {
    deps.log.error({ err, incidentId: r.id }, "announcing an incident change failed");
  }
}
