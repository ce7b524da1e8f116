import type { TColumn } from "./bulk-insert";

type TComputed = ReadonlyArray<readonly [name: string, expression: string]>;

// Column order of each table's bulk insert; the snapshot writer builds its rows in this order.

export const USER_COLUMNS: readonly TColumn[] = [
  ["id", "text"],
  ["org_id", "text"],
  ["connector_id", "text"],
  ["external_id", "text"],
  ["email", "text"],
  ["name", "text"],
  ["is_admin", "bool"],
  ["mfa_enabled", "bool"],
  ["status", "text"],
  ["last_login_at", "timestamptz"],
  ["source_created_at", "timestamptz"],
  ["dormant", "bool"],
  ["dormant_days", "int"],
  ["_assistants", "text"],
];

/** `_label` (the source's label, or NULL) becomes the `labels` array; `digest` is `rowsDigest` of the rest. */
export const FILE_COLUMNS: readonly TColumn[] = [
  ["id", "text"],
  ["org_id", "text"],
  ["connector_id", "text"],
  ["external_id", "text"],
  ["name", "text"],
  ["mime_type", "text"],
  ["owner_email", "text"],
  ["drive_external_id", "text"],
  ["sensitivity", "text"],
  ["exposure", "text"],
  ["external_permission_count", "int"],
  ["size_bytes", "bigint"],
  ["modified_at", "timestamptz"],
  ["reach_people", "int"],
  ["reach_org_wide", "bool"],
  ["_label", "text"],
  ["digest", "text"],
];

export const PERMISSION_COLUMNS: readonly TColumn[] = [
  ["id", "text"],
  ["org_id", "text"],
  ["connector_id", "text"],
  ["file_id", "text"],
  ["external_id", "text"],
  ["sharing_type", "text"],
  ["target", "text"],
  ["role", "text"],
  ["target_domain", "text"],
];

/** `_domain_list` (comma-separated) becomes the `target_domains` array. */
export const SHARE_COLUMNS: readonly TColumn[] = [
  ["id", "text"],
  ["org_id", "text"],
  ["connector_id", "text"],
  ["file_id", "text"],
  ["file_external_id", "text"],
  ["resource_name", "text"],
  ["owner_email", "text"],
  ["sharing_type", "text"],
  ["target", "text"],
  ["target_count", "int"],
  ["_domain_list", "text"],
  ["permission", "text"],
  ["sensitivity", "text"],
  ["base_severity", "text"],
  ["severity", "text"],
  ["severity_rank", "int"],
  ["risk_rank", "int"],
];

export const DRIVE_COLUMNS: readonly TColumn[] = [
  ["id", "text"],
  ["org_id", "text"],
  ["connector_id", "text"],
  ["external_id", "text"],
  ["name", "text"],
  ["_members", "text"],
  ["member_count", "int"],
  ["external_member_count", "int"],
  ["domain_users_only", "bool"],
  ["drive_members_only", "bool"],
  ["copy_requires_writer_permission", "bool"],
  ["file_count", "int"],
];

/** `_assistants` (comma-separated assistant kinds, empty for none) becomes the `assistants` array. */
export const USER_COMPUTED: TComputed = [
  [
    "assistants",
    `CASE WHEN u."_assistants" = '' THEN '{}'::text[] ELSE string_to_array(u."_assistants", ',') END`,
  ],
];

/** The stored columns computed from the `_…` inputs above, per table (bulkInsert's `computed`). */
export const FILE_COMPUTED: TComputed = [
  ["labels", `CASE WHEN u."_label" IS NULL THEN '{}'::text[] ELSE ARRAY[u."_label"] END`],
];
export const SHARE_COMPUTED: TComputed = [
  [
    "target_domains",
    `CASE WHEN u."_domain_list" = '' THEN '{}'::text[] ELSE string_to_array(u."_domain_list", ',') END`,
  ],
];
export const DRIVE_COMPUTED: TComputed = [["members", `u."_members"::jsonb`]];
