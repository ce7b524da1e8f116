import { type AnyPgColumn, bigint, boolean, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tsColumn } from "./columns";

export const PLAN_IDS = ["free", "starter", "team", "business", "enterprise"] as const;
export type TPlanId = (typeof PLAN_IDS)[number];

export const organizations = pgTable(
  "organizations",
  {
    id: idColumn("org"),
    name: text("name").notNull(),
    plan: text("plan", { enum: PLAN_IDS }).notNull().default("free"),
    // After a downgrade the previous plan's entitlements stay until grace_ends_at.
    gracePlan: text("grace_plan", { enum: PLAN_IDS }),
    graceEndsAt: tsColumn("grace_ends_at"),
    isPartner: boolean("is_partner").notNull().default(false),
    // Set once the default security policies and prevention rules were created, so rules an
    // administrator deleted are not brought back by the next scan.
    defaultRulesSeeded: boolean("default_rules_seeded").notNull().default(false),
    managedByOrgId: text("managed_by_org_id").references((): AnyPgColumn => organizations.id, {
      onDelete: "set null",
    }),
    // Incremented by triggers (migration 0007) whenever a resolved credential of the organization
    // may have changed; gateways compare it with their cached credentials (docs/architecture.md).
    credentialEpoch: bigint("credential_epoch", { mode: "number" }).notNull().default(0),
    // Remediation (issue 19): a second, different approver for every plan (four eyes); the most
    // changes prevention rules may apply in one scan before their plan waits for approval; whether
    // the managing partner's admins may approve this organization's plans.
    remediationFourEyes: boolean("remediation_four_eyes").notNull().default(false),
    preventionChangeCap: integer("prevention_change_cap").notNull().default(25),
    partnerMayApprove: boolean("partner_may_approve").notNull().default(false),
    /** Regulatory clocks (REGULATIONS of @posture/incidents) this organization turned off. */
    incidentRegulationsOff: text("incident_regulations_off").array().notNull().default([]),
    // A sandbox (issue 16): its sources are demo sources, and scenario triggers change its
    // synthetic tenants (docs/sandbox.md).
    isSandbox: boolean("is_sandbox").notNull().default(false),
    // Internal exposure (issue 30): a grant to a directory group with at least this many members
    // is a `broad_group_grant` finding (docs/decisions.md).
    broadGroupThreshold: integer("broad_group_threshold").notNull().default(1000),
    createdAt: createdAt(),
  },
  (t) => [index("organizations_managed_by_idx").on(t.managedByOrgId)],
);
