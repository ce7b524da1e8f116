import { sql } from "drizzle-orm";
import {
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { createdAt, idColumn, tsColumn } from "./columns";
import { organizations } from "./organizations";
import { SEVERITIES } from "../severity";

/**
 * A managed client's consent to its partner's reads (issue 17): one row per client, written when
 * the relationship starts and when the client withdraws or grants access again. A partner reads a
 * client only while `withdrawn_at` is null and the client is still managed by it.
 */
export const partnerAccess = pgTable(
  "partner_access",
  {
    clientOrgId: text("client_org_id")
      .primaryKey()
      .references(() => organizations.id, { onDelete: "cascade" }),
    partnerOrgId: text("partner_org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    grantedAt: tsColumn("granted_at").notNull().defaultNow(),
    /** The client's user who granted it; null when the operator made the relationship. */
    grantedByUserId: text("granted_by_user_id"),
    withdrawnAt: tsColumn("withdrawn_at"),
    withdrawnByUserId: text("withdrawn_by_user_id"),
  },
  (t) => [index("partner_access_partner_idx").on(t.partnerOrgId)],
);

/** A partner's named group of clients; portfolio, reports and standards take one. */
export const partnerGroups = pgTable(
  "partner_groups",
  {
    id: idColumn("grp"),
    partnerOrgId: text("partner_org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("partner_groups_name_key").on(t.partnerOrgId, t.name)],
);

export const partnerGroupMembers = pgTable(
  "partner_group_members",
  {
    groupId: text("group_id")
      .notNull()
      .references(() => partnerGroups.id, { onDelete: "cascade" }),
    clientOrgId: text("client_org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    addedAt: tsColumn("added_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.groupId, t.clientOrgId] }),
    index("partner_group_members_client_idx").on(t.clientOrgId),
  ],
);

/**
 * A partner's baseline: the policies and prevention rules every assigned client must hold, the
 * domains it may share with, and the lowest posture score it may fall to. `policies` and
 * `prevention_rules` are the rule shapes of the client's own API (docs/partner.md).
 */
export const partnerStandards = pgTable(
  "partner_standards",
  {
    id: idColumn("std"),
    partnerOrgId: text("partner_org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    policies: jsonb("policies")
      .notNull()
      .default(sql`'[]'::jsonb`),
    preventionRules: jsonb("prevention_rules")
      .notNull()
      .default(sql`'[]'::jsonb`),
    trustedDomains: text("trusted_domains")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    minScore: integer("min_score"),
    createdAt: createdAt(),
    updatedAt: tsColumn("updated_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("partner_standards_name_key").on(t.partnerOrgId, t.name)],
);

/** A standard held by one client or by every client of one group (exactly one of the two). */
export const partnerStandardAssignments = pgTable(
  "partner_standard_assignments",
  {
    id: idColumn("sta"),
    // Named: the generated name is 64 characters, one past PostgreSQL's limit.
    standardId: text("standard_id").notNull(),
    partnerOrgId: text("partner_org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    clientOrgId: text("client_org_id").references(() => organizations.id, { onDelete: "cascade" }),
    groupId: text("group_id").references(() => partnerGroups.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    foreignKey({
      name: "partner_standard_assignments_standard_id_fkey",
      columns: [t.standardId],
      foreignColumns: [partnerStandards.id],
    }).onDelete("cascade"),
    check("partner_standard_assignments_one_target", sql`num_nonnulls(${t.clientOrgId}, ${t.groupId}) = 1`),
    uniqueIndex("partner_standard_assignments_client_key")
      .on(t.standardId, t.clientOrgId)
      .where(sql`${t.clientOrgId} IS NOT NULL`),
    uniqueIndex("partner_standard_assignments_group_key")
      .on(t.standardId, t.groupId)
      .where(sql`${t.groupId} IS NOT NULL`),
    index("partner_standard_assignments_partner_idx").on(t.partnerOrgId),
  ],
);

/**
 * One client's departure from one rule of a standard: open while `resolved_at` is null. `rule`
 * names the rule within the standard (`policy:<ruleId>`, `prevention:<ruleId>`,
 * `trusted_domain:<domain>`, `min_score`); `detail` says what the client has instead.
 */
export const partnerDrift = pgTable(
  "partner_drift",
  {
    id: idColumn("dft"),
    partnerOrgId: text("partner_org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    standardId: text("standard_id")
      .notNull()
      .references(() => partnerStandards.id, { onDelete: "cascade" }),
    clientOrgId: text("client_org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    rule: text("rule").notNull(),
    severity: text("severity", { enum: SEVERITIES }).notNull(),
    detail: jsonb("detail")
      .notNull()
      .default(sql`'{}'::jsonb`),
    since: tsColumn("since").notNull().defaultNow(),
    checkedAt: tsColumn("checked_at").notNull().defaultNow(),
    resolvedAt: tsColumn("resolved_at"),
  },
  (t) => [
    uniqueIndex("partner_drift_open_key")
      .on(t.standardId, t.clientOrgId, t.rule)
      .where(sql`${t.resolvedAt} IS NULL`),
    index("partner_drift_partner_idx").on(t.partnerOrgId, t.clientOrgId),
  ],
);

/** What the cross-client radar correlates across a partner's clients. */
export const CAMPAIGN_KINDS = ["oauth_app", "ai_agent", "outside_domain", "anomaly"] as const;
export type TCampaignKind = (typeof CAMPAIGN_KINDS)[number];
export const CAMPAIGN_STATUSES = ["ACTIVE", "RESOLVED"] as const;

/**
 * The same subject (an OAuth client id, an AI agent, an outside domain receiving shares, an
 * anomaly kind) seen in N or more of a partner's clients within the radar's window: one record per
 * partner, kind and subject, its client list kept current by the radar.
 */
export const partnerCampaigns = pgTable(
  "partner_campaigns",
  {
    id: idColumn("cmp"),
    partnerOrgId: text("partner_org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: CAMPAIGN_KINDS }).notNull(),
    subject: text("subject").notNull(),
    title: text("title").notNull(),
    severity: text("severity", { enum: SEVERITIES }).notNull(),
    status: text("status", { enum: CAMPAIGN_STATUSES }).notNull().default("ACTIVE"),
    clientOrgIds: text("client_org_ids")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    clientCount: integer("client_count").notNull().default(0),
    detail: jsonb("detail")
      .notNull()
      .default(sql`'{}'::jsonb`),
    firstSeenAt: tsColumn("first_seen_at").notNull(),
    lastSeenAt: tsColumn("last_seen_at").notNull(),
    createdAt: createdAt(),
    updatedAt: tsColumn("updated_at").notNull().defaultNow(),
    resolvedAt: tsColumn("resolved_at"),
  },
  (t) => [
    uniqueIndex("partner_campaigns_subject_key").on(t.partnerOrgId, t.kind, t.subject),
    index("partner_campaigns_list_idx").on(t.partnerOrgId, t.status, t.lastSeenAt),
  ],
);

/**
 * One partner action carried out in many clients: a remediation planned from a campaign or a
 * standard's drift, one remediation per affected client (remediations.partner_action_id).
 */
export const partnerActions = pgTable(
  "partner_actions",
  {
    id: idColumn("pac"),
    partnerOrgId: text("partner_org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    source: text("source", { enum: ["campaign", "standard"] }).notNull(),
    sourceId: text("source_id").notNull(),
    createdByUserId: text("created_by_user_id"),
    createdByEmail: text("created_by_email").notNull(),
    /** Per client: the remediation planned there, or why none was (nothing to do, a refusal). */
    clients: jsonb("clients")
      .notNull()
      .default(sql`'[]'::jsonb`),
    createdAt: createdAt(),
  },
  (t) => [index("partner_actions_partner_idx").on(t.partnerOrgId, t.createdAt)],
);

/** A sandbox scenario run (issue 16): what was asked, what it changed, when it finished. */
export const sandboxScenarioRuns = pgTable(
  "sandbox_scenario_runs",
  {
    id: idColumn("scn"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    status: text("status", { enum: ["RUNNING", "COMPLETE", "FAILED"] })
      .notNull()
      .default("RUNNING"),
    requestedByUserId: text("requested_by_user_id"),
    result: jsonb("result"),
    error: text("error"),
    createdAt: createdAt(),
    completedAt: tsColumn("completed_at"),
  },
  (t) => [index("sandbox_scenario_runs_org_idx").on(t.orgId, t.createdAt)],
);
