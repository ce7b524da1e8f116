import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tsColumn } from "./columns";
import { connectors } from "./connectors";
import { organizations } from "./organizations";

export const SCAN_STATUSES = ["QUEUED", "RUNNING", "COMPLETE", "FAILED"] as const;
export const SCAN_KINDS = ["full", "incremental"] as const;
/** Why a scan read the whole source rather than the changes since the last one. */
export const FULL_SCAN_REASONS = [
  "first",
  "requested",
  "no_feed",
  "cursor_expired",
  "rules_changed",
] as const;

export type TScanTiming = {
  queuedMs: number;
  totalMs: number;
  stages: Array<{ stage: string; ms: number }>;
};

export const scans = pgTable(
  "scans",
  {
    id: idColumn("scn"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    // Kept after a disconnect: the posture history stays true to what was measured.
    connectorId: text("connector_id").references(() => connectors.id, { onDelete: "set null" }),
    connectorName: text("connector_name").notNull(),
    trigger: text("trigger", { enum: ["manual", "scheduled"] }).notNull(),
    status: text("status", { enum: SCAN_STATUSES }).notNull().default("QUEUED"),
    // A full scan reads the whole source; an incremental one the files changed since the last scan.
    // Set when the scan starts (a scan asked to be full is created `full`, reason `requested`).
    kind: text("kind", { enum: SCAN_KINDS }).notNull().default("full"),
    fullReason: text("full_reason", { enum: FULL_SCAN_REASONS }),
    resources: integer("resources").notNull().default(0),
    findingsNew: integer("findings_new").notNull().default(0),
    findingsResolved: integer("findings_resolved").notNull().default(0),
    findingsTotal: integer("findings_total").notNull().default(0),
    postureScore: integer("posture_score"),
    breakdown: jsonb("breakdown").$type<Record<string, unknown>>(),
    // What the scan could not read (a permission or licence missing, a setting unavailable): the
    // adapter's coverage gaps and the unavailable tenant settings, deduplicated. Null before issue 18.
    coverage: jsonb("coverage").$type<Array<{ feature: string; missing: string; detail: string }>>(),
    error: text("error"),
    // Where the scan's time went (issue 35): the wait for a worker, each stage's milliseconds in
    // the order the stages ended (plan, the source's reads, settings, commit, persist, ai_reach,
    // handoff) and their total, written when the last stage ends. Null before then, for a failed
    // scan, and for scans before migration 0036.
    timing: jsonb("timing").$type<TScanTiming>(),
    requestedByUserId: text("requested_by_user_id"),
    startedAt: tsColumn("started_at"),
    completedAt: tsColumn("completed_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("scans_org_completed_idx").on(t.orgId, t.completedAt, t.id),
    index("scans_org_created_idx").on(t.orgId, t.trigger, t.createdAt),
  ],
);
