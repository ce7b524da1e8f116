import { sql } from "drizzle-orm";
import { index, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tsColumn } from "./columns";
import { organizations } from "./organizations";

// An administrator's time-boxed acceptance of one external share (a sharing item id). Kept across
// rescans: the snapshot writer re-applies active approvals to the new snapshot's items.
export const sharingApprovals = pgTable(
  "sharing_approvals",
  {
    id: idColumn("apr"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    itemId: text("item_id").notNull(),
    resourceName: text("resource_name").notNull(),
    sharingType: text("sharing_type").notNull(),
    target: text("target").notNull(),
    reason: text("reason").notNull(),
    approvedBy: text("approved_by").notNull(),
    createdAt: createdAt(),
    expiresAt: tsColumn("expires_at").notNull(),
    withdrawnAt: tsColumn("withdrawn_at"),
    /** Set by the expiry sweep once the findings it hid are open again. */
    lapsedAt: tsColumn("lapsed_at"),
  },
  (t) => [
    index("sharing_approvals_org_item_idx").on(t.orgId, t.itemId),
    // The expiry sweep's scan of the active approvals (migration 0008).
    index("sharing_approvals_expiry_idx")
      .on(t.expiresAt)
      .where(sql`"withdrawn_at" IS NULL AND "lapsed_at" IS NULL`),
  ],
);
