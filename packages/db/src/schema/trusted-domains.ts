import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn } from "./columns";
import { organizations } from "./organizations";

// Shares to these domains are still external, but scored with reduced severity.
export const trustedDomains = pgTable(
  "trusted_domains",
  {
    id: idColumn("tdm"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    domain: text("domain").notNull(),
    note: text("note").notNull().default(""),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("trusted_domains_org_domain_key").on(t.orgId, t.domain)],
);
