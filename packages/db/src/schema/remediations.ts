import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { connectors } from "./connectors";
import { createdAt, idColumn, tsColumn } from "./columns";
import { organizations } from "./organizations";

/**
 * A remediation's life (CONTRACT.md, "Remediation…"): PLANNED → APPROVED → APPLYING → APPLIED /
 * PARTIAL / FAILED; (APPLIED, PARTIAL) → REVERTING → REVERTED; PLANNED → CANCELLED.
 */
export const REMEDIATION_STATUSES = [
  "PLANNED",
  "APPROVED",
  "CANCELLED",
  "APPLYING",
  "APPLIED",
  "PARTIAL",
  "FAILED",
  "REVERTING",
  "REVERTED",
] as const;
export type TRemediationStatus = (typeof REMEDIATION_STATUSES)[number];

/** One step's life: PENDING until applied (or gone already, or refused); REVERTED after an undo. */
export const REMEDIATION_STEP_STATUSES = [
  "PENDING",
  "APPLIED",
  "ALREADY_GONE",
  "FAILED",
  "REVERTED",
] as const;
export type TRemediationStepStatus = (typeof REMEDIATION_STEP_STATUSES)[number];

/** What a step changes at the source (connectors' TWriteAction, kept here as text). */
export const REMEDIATION_ACTIONS = [
  "remove_public_link",
  "remove_external_user",
  "remove_external_domain",
  "downgrade_permission",
  "revoke_oauth_grant",
  "transfer_ownership",
  // Internal exposure (issue 30): remove an organization-wide link, an everyone or a broad
  // group's grant.
  "remove_org_wide_link",
  "remove_everyone_grant",
  "remove_group_grant",
  // Make a searchable organization-wide link link-only (Google Drive; Microsoft links are never
  // searchable and their scope cannot change).
  "restrict_org_wide_link",
  // GitHub (issue 31): delete a deploy key with write access.
  "delete_deploy_key",
] as const;
export type TRemediationAction = (typeof REMEDIATION_ACTIONS)[number];

/** Who or what asked for a remediation. */
export const REMEDIATION_ORIGINS = ["manual", "prevention", "quick_win"] as const;

/** Who planned or approved: platform's TActor, and the organization they acted from (a partner's). */
export type TRemediationActor = {
  kind: "session" | "api_key" | "system";
  userId: string | null;
  email: string;
  orgId: string;
};

/** An undo asked for by one person and confirmed (or not yet) by a different one. */
export type TUndoRequest = {
  requestedBy: TRemediationActor & { role: string };
  requestedAt: string;
  confirmedBy: (TRemediationActor & { role: string }) | null;
  confirmedAt: string | null;
  /** Set when the undo started (REVERTING): the request is spent. */
  startedAt?: string;
};

export const remediations = pgTable(
  "remediations",
  {
    id: idColumn("rem"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    status: text("status", { enum: REMEDIATION_STATUSES }).notNull().default("PLANNED"),
    origin: text("origin", { enum: REMEDIATION_ORIGINS }).notNull().default("manual"),
    /** The prevention rule that planned it (origin `prevention`). */
    preventionRuleId: text("prevention_rule_id"),
    /** The partner action that planned it in this client among others (partner_actions, issue 17). */
    partnerActionId: text("partner_action_id"),
    /** A dry run only records what it would have done: it can be read, never approved or applied. */
    dryRun: boolean("dry_run").notNull().default(false),
    /** The request as given (findingIds, shareIds, agentIds, playbook), for the audit and the detail. */
    request: jsonb("request").$type<Record<string, unknown>>().notNull(),
    /** The posture engine's prediction at planning time: {before, score, grade, scoreDelta}. */
    predicted: jsonb("predicted").$type<Record<string, unknown>>().notNull(),
    /** The compliance controls whose status would change: [{framework, controlId, before, after}]. */
    controls: jsonb("controls").$type<Array<Record<string, unknown>>>().notNull().default([]),
    /** Who planned it; `orgId` differs from the row's when a partner planned for a client. */
    plannedBy: jsonb("planned_by").$type<TRemediationActor>().notNull(),
    approvedBy: jsonb("approved_by").$type<TRemediationActor>(),
    approvedAt: tsColumn("approved_at"),
    /** The Idempotency-Key the apply was asked with, when one was given. */
    applyKey: text("apply_key"),
    applyStartedAt: tsColumn("apply_started_at"),
    finishedAt: tsColumn("finished_at"),
    /** Undo is offered until then (30 days after the apply finished). */
    undoUntil: tsColumn("undo_until"),
    revertedAt: tsColumn("reverted_at"),
    /** Four eyes (issue 28): the first person's undo request, waiting for a second person's. */
    undoRequest: jsonb("undo_request").$type<TUndoRequest>(),
    /** Counts per step status, kept with each step's change so lists need not count steps. */
    stepCounts: jsonb("step_counts").$type<Record<string, number>>().notNull().default({}),
    stepTotal: integer("step_total").notNull().default(0),
    /**
     * The apply or undo job's lease (services/lease.ts): one worker at a time changes the source.
     * `leaseToken` is the fencing token, raised by every take-over and checked by each step's claim
     * and outcome; `leaseOwner` names the try holding it (logs), `leaseExpiresAt` when another may take it.
     */
    leaseOwner: text("lease_owner"),
    leaseToken: integer("lease_token").notNull().default(0),
    leaseExpiresAt: tsColumn("lease_expires_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("remediations_org_created_idx").on(t.orgId, t.createdAt, t.id),
    index("remediations_active_idx")
      .on(t.status)
      .where(sql`status IN ('APPLYING', 'REVERTING')`),
  ],
);

/** Where a step acts: a permission on a file, an app's grant to a user, a repository's deploy key. */
export type TRemediationResource =
  | {
      kind: "permission";
      /** The file's id at the source, its drive (null: a personal drive) and its name. */
      fileId: string;
      driveId: string | null;
      name: string;
      ownerEmail: string;
      permissionId: string;
    }
  | {
      kind: "file_owner";
      fileId: string;
      driveId: string | null;
      name: string;
      ownerEmail: string;
    }
  | {
      kind: "grant";
      /** The grant's id at the source (oauth_grants.external_id), its app and its user. */
      grantId: string;
      clientId: string;
      label: string;
      userEmail: string;
    }
  | {
      kind: "deploy_key";
      /** The repository (a file of the store: its id at the source, `owner/repo`) and the key's id and title. */
      fileId: string;
      driveId: string | null;
      name: string;
      ownerEmail: string;
      keyId: string;
      title: string;
    };

export const remediationSteps = pgTable(
  "remediation_steps",
  {
    id: idColumn("rst"),
    remediationId: text("remediation_id")
      .notNull()
      .references(() => remediations.id, { onDelete: "cascade" }),
    orgId: text("org_id").notNull(),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    /** Order within the plan (apply goes up, undo comes down). */
    seq: integer("seq").notNull(),
    action: text("action", { enum: REMEDIATION_ACTIONS }).notNull(),
    resource: jsonb("resource").$type<TRemediationResource>().notNull(),
    /** The change, as the plan shows it: the grant or permission before, and after (null: gone). */
    before: jsonb("before").$type<Record<string, unknown>>().notNull(),
    after: jsonb("after").$type<Record<string, unknown> | null>(),
    reversible: boolean("reversible").notNull(),
    /** Why not, when it cannot be undone (a revoked OAuth token cannot be granted back by us). */
    irreversibleReason: text("irreversible_reason"),
    /** The findings this step (with the others naming them) fixes. */
    findingIds: text("finding_ids").array().notNull().default([]),
    /** The people who lose or change access. */
    people: text("people").array().notNull().default([]),
    status: text("status", { enum: REMEDIATION_STEP_STATUSES }).notNull().default("PENDING"),
    /** Set before the source is called: a step started but not finished is re-checked, never re-sent blindly. */
    startedAt: tsColumn("started_at"),
    appliedAt: tsColumn("applied_at"),
    revertedAt: tsColumn("reverted_at"),
    /** The source's refusal: {status, code, message}. */
    error: jsonb("error").$type<{ status: number | null; code: string; message: string }>(),
    /** The permission or grant as the source had it just before the change: what undo restores. */
    preImage: jsonb("pre_image").$type<Record<string, unknown>>(),
    /** The id the source gave the restored permission or grant (it may differ from the original). */
    restoredId: text("restored_id"),
    attempts: integer("attempts").notNull().default(0),
  },
  (t) => [
    index("remediation_steps_remediation_idx").on(t.remediationId, t.seq),
    index("remediation_steps_connector_idx").on(t.connectorId),
  ],
);

/**
 * The demo source's sandbox writes: what remediation changed in a synthetic tenant, laid over it
 * at every read until undone. Key: `perm:<fileId>:<permissionId>`, `owner:<fileId>`,
 * `grant:<grantId>`; `change` is what the overlay does (see connectors' demo/write.ts).
 */
export const demoOverlays = pgTable(
  "demo_overlays",
  {
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    change: jsonb("change").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.connectorId, t.key] })],
);
