import { boolean, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tsColumn } from "./columns";
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

/** A person who changed or approved a rule (an API key counts as its creator). */
export type TRuleActor = { userId: string; email: string; role: string; kind: "session" | "api_key" };

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
    // Four eyes (issue 28): who last made the rule act or act more widely, and the standing
    // approval of that configuration by someone else (cleared whenever the rule is widened).
    actingSetBy: jsonb("acting_set_by").$type<TRuleActor>(),
    approvedBy: jsonb("approved_by").$type<TRuleActor>(),
    approvedAt: tsColumn("approved_at"),
    createdAt: createdAt(),
  },
  (t) => [index("prevention_rules_org_idx").on(t.orgId)],
);
