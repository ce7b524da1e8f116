import { boolean, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn } from "./columns";
import { organizations } from "./organizations";
import type { TSeverity } from "../severity";

// What a policy or prevention rule matches among a scan's new findings.
export type TRuleMatch = {
  categories?: string[];
  ruleIds?: string[];
  minSeverity?: TSeverity;
};

export const securityPolicies = pgTable(
  "security_policies",
  {
    id: idColumn("pol"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    match: jsonb("match").$type<TRuleMatch>().notNull(),
    enabled: boolean("enabled").notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [index("security_policies_org_idx").on(t.orgId)],
);

export const PREVENTION_ACTIONS = [
  "ALERT_ONLY",
  "REVOKE_PUBLIC_LINK",
  "REMOVE_EXTERNAL_ACCESS",
  "REVOKE_OAUTH_GRANT",
] as const;

export const preventionRules = pgTable(
  "prevention_rules",
  {
    id: idColumn("prv"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    match: jsonb("match").$type<TRuleMatch>().notNull(),
    action: text("action", { enum: PREVENTION_ACTIONS }).notNull().default("ALERT_ONLY"),
    // An acting rule in dry run records the plan it would have applied and changes nothing.
    dryRun: boolean("dry_run").notNull().default(false),
    enabled: boolean("enabled").notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [index("prevention_rules_org_idx").on(t.orgId)],
);
