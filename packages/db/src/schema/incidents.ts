import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tsColumn } from "./columns";
import { organizations } from "./organizations";

export const INCIDENT_STATUSES = ["OPEN", "INVESTIGATING", "CONTAINED", "RESOLVED", "CLOSED"] as const;
export type TIncidentStatus = (typeof INCIDENT_STATUSES)[number];
export const INCIDENT_PRIORITIES = ["P1", "P2", "P3", "P4"] as const;
export type TIncidentPriority = (typeof INCIDENT_PRIORITIES)[number];

export type TIncidentLogEntry = { at: string; note: string; actor: string };
export type TPostMortem = {
  summary: string;
  rootCause: string;
  lessons: string;
  actionItems: Array<{ title: string; owner: string; done?: boolean }>;
};

export const incidents = pgTable(
  "incidents",
  {
    id: idColumn("inc"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    summary: text("summary").notNull().default(""),
    status: text("status", { enum: INCIDENT_STATUSES }).notNull().default("OPEN"),
    priority: text("priority", { enum: INCIDENT_PRIORITIES }).notNull(),
    assignee: text("assignee").notNull().default(""),
    linkedFindingIds: text("linked_finding_ids").array().notNull().default([]),
    log: jsonb("log").$type<TIncidentLogEntry[]>().notNull().default([]),
    postMortem: jsonb("post_mortem").$type<TPostMortem | null>(),
    createdByUserId: text("created_by_user_id"),
    openedAt: createdAt(),
    updatedAt: tsColumn("updated_at").notNull().defaultNow(),
    closedAt: tsColumn("closed_at"),
    /** When it last moved to RESOLVED or CLOSED (cleared when reopened): the regulatory clocks stop here. */
    resolvedAt: tsColumn("resolved_at"),
    /** Regulations whose `incident.deadline.approaching` was announced: each once per incident. */
    deadlineNotices: text("deadline_notices").array().notNull().default([]),
  },
  (t) => [
    index("incidents_org_opened_idx").on(t.orgId, t.openedAt, t.id),
    index("incidents_org_status_idx").on(t.orgId, t.status),
  ],
);
