import { boolean, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tsColumn } from "./columns";
import { organizations } from "./organizations";

export const CONNECTOR_TYPES = ["google_workspace", "microsoft_365", "github"] as const;
export const CONNECTOR_MODES = ["real", "demo"] as const;

export const connectors = pgTable(
  "connectors",
  {
    id: idColumn("con"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    type: text("type", { enum: CONNECTOR_TYPES }).notNull(),
    displayName: text("display_name").notNull(),
    mode: text("mode", { enum: CONNECTOR_MODES }).notNull(),
    status: text("status").notNull().default("CONNECTED"),
    healthStatus: text("health_status").notNull().default("healthy"),
    healthDetail: text("health_detail"),
    // AES-256-GCM envelope ("v1:<iv>:<tag>:<ciphertext>", base64); never leaves the service.
    credentialsEnc: text("credentials_enc"),
    // Non-secret settings: demo workspace size, API base URLs for real mode.
    config: jsonb("config").$type<Record<string, unknown>>().notNull().default({}),
    resourceCount: integer("resource_count").notNull().default(0),
    findingCount: integer("finding_count").notNull().default(0),
    lastScanAt: tsColumn("last_scan_at"),
    // The connect-time access check: each permission a feature needs, granted or missing (null:
    // never checked, connectors made before issue 18).
    access: jsonb("access").$type<{
      granted: Array<{ feature: string; permission: string }>;
      missing: Array<{
        feature: string;
        permission: string;
        licence?: string;
        impact: string;
        detail?: string;
      }>;
    }>(),
    // Remediation writes to the source only when an admin opted in (demo connectors start opted in,
    // real ones read-only); the scopes writing needs are in connectors' write requirements.
    writeAccess: boolean("write_access").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [index("connectors_org_idx").on(t.orgId)],
);
