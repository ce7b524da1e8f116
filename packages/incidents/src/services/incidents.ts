import { and, desc, eq, inArray, type SQL } from "drizzle-orm";
import {
  findings,
  incidents,
  organizations,
  type Db,
  type TIncidentLogEntry,
  type TIncidentPriority,
  type TIncidentStatus,
  type TPostMortem,
} from "@posture/db";
import {
  AppError,
  audit,
  firstOr404,
  iso,
  type TActor,
  type TJobQueue,
  type TScope,
} from "@posture/platform";
import { withEvents } from "@posture/webhooks";
import { deadlinesOf, deadlinesWire, regulationsOff } from "./deadlines";
import { canMove } from "./transitions";

type TIncidentRow = typeof incidents.$inferSelect;
/** What announcing a change needs: the queue its deliveries go to once committed, the links' base. */
export type TIncidentDeps = { jobs: TJobQueue; publicUrl: string };

const linkOf = (publicUrl: string, id: string) => `${publicUrl.replace(/\/$/, "")}/api/incidents/${id}`;
const eventFields = (r: TIncidentRow, publicUrl: string) => ({
  incidentId: r.id,
  title: r.title,
  status: r.status,
  priority: r.priority,
  assignee: r.assignee,
  link: linkOf(publicUrl, r.id),
});

/** What a row is shown with: the regulations its organization turned off, and the time now. */
export type TShowContext = { off: readonly string[]; now: Date };

const clocksOf = (r: TIncidentRow, show: TShowContext) =>
  deadlinesWire(deadlinesOf({ openedAt: r.openedAt, resolvedAt: r.resolvedAt }, show.off, show.now));

/** The context to show an organization's incidents in, read once per request. */
export async function showContext(db: Db, q: { orgId: string; now?: Date }): Promise<TShowContext> {
  const { orgId, now = new Date() } = q;
  return { off: await regulationsOff(db, { orgId }), now };
}

export function toSummary(r: TIncidentRow, show: TShowContext) {
  return {
    id: r.id,
    title: r.title,
    status: r.status,
    priority: r.priority,
    assignee: r.assignee,
    openedAt: iso(r.openedAt),
    updatedAt: iso(r.updatedAt),
    linkedFindingCount: r.linkedFindingIds.length,
    resolvedAt: iso(r.resolvedAt),
    deadlines: clocksOf(r, show),
  };
}

export function toDetail(r: TIncidentRow, show: TShowContext) {
  return {
    id: r.id,
    title: r.title,
    summary: r.summary,
    status: r.status,
    priority: r.priority,
    assignee: r.assignee,
    openedAt: iso(r.openedAt),
    updatedAt: iso(r.updatedAt),
    closedAt: iso(r.closedAt),
    resolvedAt: iso(r.resolvedAt),
    deadlines: clocksOf(r, show),
    linkedFindings: r.linkedFindingIds,
    log: r.log,
    postMortem: r.postMortem ?? null,
  };
}
export type TIncidentDetail = ReturnType<typeof toDetail>;

export async function listIncidents(
  db: Db,
  q: { orgId: string; status?: TIncidentStatus; priority?: TIncidentPriority },
) {
  const where: SQL[] = [eq(incidents.orgId, q.orgId)];
  if (q.status) where.push(eq(incidents.status, q.status));
  if (q.priority) where.push(eq(incidents.priority, q.priority));
  const rows = await db
    .select()
    .from(incidents)
    .where(and(...where))
    .orderBy(desc(incidents.openedAt), desc(incidents.id));
  const show = await showContext(db, { orgId: q.orgId });
  return rows.map((r) => toSummary(r, show));
}

export async function getIncidentRow(db: Db, q: { orgId: string; id: string }): Promise<TIncidentRow> {
  return firstOr404(
    await db
      .select()
      .from(incidents)
      .where(and(eq(incidents.orgId, q.orgId), eq(incidents.id, q.id)))
      .limit(1),
    "Incident",
  );
}

/** Linked findings must be the organization's own: an unknown id (or another organization's) is bad input. */
async function assertOwnFindings(db: Db, orgId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await db
    .select({ id: findings.id })
    .from(findings)
    .where(and(eq(findings.orgId, orgId), inArray(findings.id, ids)));
  const known = new Set(found.map((f) => f.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new AppError("invalid_input", "Unknown finding ids", {
      details: unknown.slice(0, 20).map((id) => ({ path: "findingIds", message: `no finding ${id}` })),
    });
  }
}

const entry = (actor: TActor, note: string, at: Date): TIncidentLogEntry => ({
  at: iso(at),
  note,
  actor: actor.email,
});

export async function createIncident(
  db: Db,
  scope: TScope,
  input: {
    title: string;
    priority: TIncidentPriority;
    findingIds: string[];
    assignee?: string;
    summary?: string;
  },
  deps: TIncidentDeps,
) {
  const ids = [...new Set(input.findingIds)];
  await assertOwnFindings(db, scope.orgId, ids);
  const now = new Date();
  // incident.created commits with the incident (the transactional outbox).
  return withEvents(db, deps.jobs, async (tx, emit) => {
    const [row] = await tx
      .insert(incidents)
      .values({
        orgId: scope.orgId,
        title: input.title,
        summary: input.summary ?? "",
        priority: input.priority,
        assignee: input.assignee ?? "",
        linkedFindingIds: ids,
        createdByUserId: scope.actor.userId,
        openedAt: now,
        updatedAt: now,
        log: [
          entry(
            scope.actor,
            `Incident opened at ${input.priority}${ids.length ? ` with ${ids.length} linked finding${ids.length === 1 ? "" : "s"}` : ""}${input.assignee ? `, assigned to ${input.assignee}` : ""}`,
            now,
          ),
        ],
      })
      .returning();
    if (!row) throw new Error("incident insert returned no row");
    await audit(tx, scope, {
      action: "INCIDENT_CREATED",
      target: row.id,
      metadata: { title: row.title, priority: row.priority, linkedFindings: ids.length },
    });
    await emit({
      orgId: row.orgId,
      type: "incident.created",
      data: { ...eventFields(row, deps.publicUrl), linkedFindingCount: row.linkedFindingIds.length },
    });
    return row;
  });
}

export type TIncidentChange = {
  status?: TIncidentStatus;
  priority?: TIncidentPriority;
  assignee?: string;
  note?: string;
  postMortem?: TPostMortem | null;
  findingIds?: string[];
};

/**
 * Applies one PATCH: a status move only along the contract's moves (409 invalid_transition, and
 * nothing is written), then priority, assignee, linked findings, post-mortem and a free note;
 * every change is one log line, and the whole is audited in the same transaction.
 */
export async function updateIncident(
  db: Db,
  scope: TScope,
  input: { id: string } & TIncidentChange,
  deps: TIncidentDeps,
) {
  if (input.findingIds) await assertOwnFindings(db, scope.orgId, [...new Set(input.findingIds)]);
  // incident.updated commits with the change (the transactional outbox).
  return withEvents(db, deps.jobs, async (tx, emit) => {
    const [current] = await tx
      .select()
      .from(incidents)
      .where(and(eq(incidents.orgId, scope.orgId), eq(incidents.id, input.id)))
      .for("update")
      .limit(1);
    if (!current) throw new AppError("not_found", "Incident not found");
    const now = new Date();
    const notes: string[] = [];
    const changes: string[] = [];
    const set: Partial<typeof incidents.$inferInsert> = {};
    if (input.status !== undefined && input.status !== current.status) {
      if (!canMove(current.status, input.status)) {
        throw new AppError(
          "invalid_transition",
          `An incident cannot move from ${current.status} to ${input.status}`,
          {
            from: current.status,
            to: input.status,
          },
        );
      }
      set.status = input.status;
      set.closedAt = input.status === "CLOSED" ? now : null;
      // The clocks stop at the first move to RESOLVED or CLOSED and run again when reopened.
      const resolved = input.status === "RESOLVED" || input.status === "CLOSED";
      set.resolvedAt = resolved ? (current.resolvedAt ?? now) : null;
      notes.push(
        current.status === "RESOLVED" && input.status === "INVESTIGATING"
          ? "Reopened: status RESOLVED → INVESTIGATING"
          : `Status ${current.status} → ${input.status}`,
      );
      changes.push("status");
    }
    if (input.priority !== undefined && input.priority !== current.priority) {
      set.priority = input.priority;
      notes.push(`Priority ${current.priority} → ${input.priority}`);
      changes.push("priority");
    }
    if (input.assignee !== undefined && input.assignee !== current.assignee) {
      set.assignee = input.assignee;
      notes.push(input.assignee ? `Assigned to ${input.assignee}` : "Unassigned");
      changes.push("assignee");
    }
    if (input.findingIds !== undefined) {
      const ids = [...new Set(input.findingIds)];
      const added = ids.filter((i) => !current.linkedFindingIds.includes(i)).length;
      const removed = current.linkedFindingIds.filter((i) => !ids.includes(i)).length;
      if (added + removed > 0) {
        set.linkedFindingIds = ids;
        notes.push(`Linked findings: ${added} added, ${removed} removed`);
        changes.push("linkedFindings");
      }
    }
    if (input.postMortem !== undefined) {
      set.postMortem = input.postMortem;
      notes.push(input.postMortem ? "Post-mortem updated" : "Post-mortem cleared");
      changes.push("postMortem");
    }
    if (input.note !== undefined) {
      notes.push(input.note);
      changes.push("note");
    }
    if (changes.length === 0) return { row: current, changes, previousStatus: null };
    set.log = [...current.log, ...notes.map((n) => entry(scope.actor, n, now))];
    set.updatedAt = now;
    const [row] = await tx.update(incidents).set(set).where(eq(incidents.id, current.id)).returning();
    if (!row) throw new Error("incident update returned no row");
    await audit(tx, scope, {
      action: "INCIDENT_UPDATED",
      target: row.id,
      metadata: { changes, ...(set.status ? { from: current.status, to: set.status } : {}) },
    });
    const previousStatus = set.status ? current.status : null;
    await emit({
      orgId: row.orgId,
      type: "incident.updated",
      data: { ...eventFields(row, deps.publicUrl), changes, previousStatus },
    });
    return { row, changes, previousStatus };
  });
}

export async function organizationName(db: Db, { orgId }: { orgId: string }): Promise<string> {
  const [org] = await db
    .select({ name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return org?.name ?? orgId;
}
