import { eq } from "drizzle-orm";
import { organizations, type Db } from "@posture/db";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The regulatory clocks an incident carries, unless its organization turned one off. */
export const REGULATIONS = ["gdpr", "hipaa"] as const;
export type TRegulation = (typeof REGULATIONS)[number];

export const DEADLINE_STATUSES = ["running", "overdue", "met", "missed"] as const;
export type TDeadlineStatus = (typeof DEADLINE_STATUSES)[number];

type TClock = {
  regime: string;
  obligation: string;
  window: string;
  windowMs: number;
  /** How long before the deadline `incident.deadline.approaching` is announced. */
  noticeMs: number;
};

/**
 * The clocks, counted from the incident's opening (the moment the organization became aware of
 * it: its detection). The notice leads by a third of the window for GDPR (24 of 72 hours) and a
 * week for HIPAA's 60 days: time enough to draft a notification.
 */
export const CLOCKS: Readonly<Record<TRegulation, TClock>> = {
  gdpr: {
    regime: "GDPR Art. 33",
    obligation: "Notify the supervisory authority of a personal-data breach",
    window: "72 hours",
    windowMs: 72 * HOUR_MS,
    noticeMs: 24 * HOUR_MS,
  },
  hipaa: {
    regime: "HIPAA 45 CFR 164.404(b)",
    obligation: "Notify affected individuals of a breach of unsecured PHI",
    window: "60 calendar days",
    windowMs: 60 * DAY_MS,
    noticeMs: 7 * DAY_MS,
  },
};

export type TDeadline = {
  regulation: TRegulation;
  dueAt: Date;
  status: TDeadlineStatus;
  /** When the clock stopped (the incident was resolved); null while it runs. */
  stoppedAt: Date | null;
};

/** What the clocks are computed from: the opening, and when it was resolved (null: not resolved). */
export type TClockIncident = { openedAt: Date; resolvedAt: Date | null };

/**
 * The one computation of an incident's regulatory clocks, used by the API (detail and list), the
 * PDF report and the approaching-deadline sweep. A resolved incident's clocks are stopped: met
 * when it was resolved by the deadline, missed after it; an unresolved one's run until the
 * deadline and are overdue after it.
 */
export function deadlinesOf(inc: TClockIncident, off: readonly string[], now: Date): TDeadline[] {
  return REGULATIONS.filter((r) => !off.includes(r)).map((regulation) => {
    const dueAt = new Date(inc.openedAt.getTime() + CLOCKS[regulation].windowMs);
    const stoppedAt = inc.resolvedAt;
    const status: TDeadlineStatus = stoppedAt
      ? stoppedAt.getTime() <= dueAt.getTime()
        ? "met"
        : "missed"
      : now.getTime() < dueAt.getTime()
        ? "running"
        : "overdue";
    return { regulation, dueAt, status, stoppedAt };
  });
}

/** The wire form: ISO times. */
export const deadlinesWire = (d: readonly TDeadline[]) =>
  d.map((x) => ({
    regulation: x.regulation,
    dueAt: x.dueAt.toISOString(),
    status: x.status,
    stoppedAt: x.stoppedAt ? x.stoppedAt.toISOString() : null,
  }));

/** The regulations an organization turned off (incident settings). */
export async function regulationsOff(db: Db, { orgId }: { orgId: string }): Promise<string[]> {
  const [row] = await db
    .select({ off: organizations.incidentRegulationsOff })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .limit(1);
  return row?.off ?? [];
}
