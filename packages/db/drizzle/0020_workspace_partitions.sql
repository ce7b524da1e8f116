-- Issue 15: the resource store's three large tables become list-partitioned by connector, so a
-- connector's first snapshot can be loaded into a table of its own without indexes, indexed once,
-- and attached (docs/decisions.md, "Scans at scale (issue 15): partitions for first loads").
-- Every existing row stays where it is: each table is renamed to <table>_default, keeps its heap,
-- its indexes and its foreign key, and is attached as the DEFAULT partition of a new partitioned
-- parent with the same columns and index names (equivalent indexes are attached, not rebuilt).
-- Only the primary key is rebuilt: a partitioned table's unique key must hold the partition key,
-- so it becomes (id, connector_id) (ids lead: a read by id alone is still an index lookup).
--> statement-breakpoint
ALTER TABLE "workspace_files" RENAME TO "workspace_files_default";
--> statement-breakpoint
ALTER TABLE "workspace_files_default" DROP CONSTRAINT "workspace_files_pkey";
--> statement-breakpoint
ALTER TABLE "workspace_files_default" ADD CONSTRAINT "workspace_files_default_pkey" PRIMARY KEY ("id","connector_id");
--> statement-breakpoint
ALTER TABLE "workspace_files_default" RENAME CONSTRAINT "workspace_files_connector_id_connectors_id_fk" TO "workspace_files_default_connector_id_fk";
--> statement-breakpoint
ALTER INDEX "workspace_files_connector_idx" RENAME TO "workspace_files_default_connector_idx";
--> statement-breakpoint
ALTER INDEX "workspace_files_org_order_idx" RENAME TO "workspace_files_default_org_order_idx";
--> statement-breakpoint
ALTER INDEX "workspace_files_search_trgm" RENAME TO "workspace_files_default_search_trgm";
--> statement-breakpoint
CREATE TABLE "workspace_files" (LIKE "workspace_files_default" INCLUDING DEFAULTS) PARTITION BY LIST ("connector_id");
--> statement-breakpoint
ALTER TABLE "workspace_files" ADD CONSTRAINT "workspace_files_id_connector_id_pk" PRIMARY KEY("id","connector_id");
--> statement-breakpoint
ALTER TABLE "workspace_files" ADD CONSTRAINT "workspace_files_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "workspace_files_connector_idx" ON "workspace_files" USING btree ("connector_id");
--> statement-breakpoint
CREATE INDEX "workspace_files_org_order_idx" ON "workspace_files" USING btree ("org_id","modified_at","id");
--> statement-breakpoint
CREATE INDEX "workspace_files_search_trgm" ON "workspace_files" USING gin ((lower("name" || ' ' || "owner_email")) gin_trgm_ops);
--> statement-breakpoint
ALTER TABLE "workspace_files" ATTACH PARTITION "workspace_files_default" DEFAULT;
--> statement-breakpoint
ALTER TABLE "workspace_permissions" RENAME TO "workspace_permissions_default";
--> statement-breakpoint
ALTER TABLE "workspace_permissions_default" DROP CONSTRAINT "workspace_permissions_pkey";
--> statement-breakpoint
ALTER TABLE "workspace_permissions_default" ADD CONSTRAINT "workspace_permissions_default_pkey" PRIMARY KEY ("id","connector_id");
--> statement-breakpoint
ALTER TABLE "workspace_permissions_default" RENAME CONSTRAINT "workspace_permissions_connector_id_connectors_id_fk" TO "workspace_permissions_default_connector_id_fk";
--> statement-breakpoint
ALTER INDEX "workspace_permissions_connector_idx" RENAME TO "workspace_permissions_default_connector_idx";
--> statement-breakpoint
ALTER INDEX "workspace_permissions_file_idx" RENAME TO "workspace_permissions_default_file_idx";
--> statement-breakpoint
ALTER INDEX "workspace_permissions_org_type_idx" RENAME TO "workspace_permissions_default_org_type_idx";
--> statement-breakpoint
CREATE TABLE "workspace_permissions" (LIKE "workspace_permissions_default" INCLUDING DEFAULTS) PARTITION BY LIST ("connector_id");
--> statement-breakpoint
ALTER TABLE "workspace_permissions" ADD CONSTRAINT "workspace_permissions_id_connector_id_pk" PRIMARY KEY("id","connector_id");
--> statement-breakpoint
ALTER TABLE "workspace_permissions" ADD CONSTRAINT "workspace_permissions_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "workspace_permissions_connector_idx" ON "workspace_permissions" USING btree ("connector_id");
--> statement-breakpoint
CREATE INDEX "workspace_permissions_file_idx" ON "workspace_permissions" USING btree ("file_id");
--> statement-breakpoint
CREATE INDEX "workspace_permissions_org_type_idx" ON "workspace_permissions" USING btree ("org_id","sharing_type");
--> statement-breakpoint
ALTER TABLE "workspace_permissions" ATTACH PARTITION "workspace_permissions_default" DEFAULT;
--> statement-breakpoint
ALTER TABLE "workspace_shares" RENAME TO "workspace_shares_default";
--> statement-breakpoint
ALTER TABLE "workspace_shares_default" DROP CONSTRAINT "workspace_shares_pkey";
--> statement-breakpoint
ALTER TABLE "workspace_shares_default" ADD CONSTRAINT "workspace_shares_default_pkey" PRIMARY KEY ("id","connector_id");
--> statement-breakpoint
ALTER TABLE "workspace_shares_default" RENAME CONSTRAINT "workspace_shares_connector_id_connectors_id_fk" TO "workspace_shares_default_connector_id_fk";
--> statement-breakpoint
ALTER INDEX "workspace_shares_connector_idx" RENAME TO "workspace_shares_default_connector_idx";
--> statement-breakpoint
ALTER INDEX "workspace_shares_org_approved_idx" RENAME TO "workspace_shares_default_org_approved_idx";
--> statement-breakpoint
ALTER INDEX "workspace_shares_org_name_idx" RENAME TO "workspace_shares_default_org_name_idx";
--> statement-breakpoint
ALTER INDEX "workspace_shares_org_owner_idx" RENAME TO "workspace_shares_default_org_owner_idx";
--> statement-breakpoint
ALTER INDEX "workspace_shares_org_risk_idx" RENAME TO "workspace_shares_default_org_risk_idx";
--> statement-breakpoint
ALTER INDEX "workspace_shares_org_severity_idx" RENAME TO "workspace_shares_default_org_severity_idx";
--> statement-breakpoint
ALTER INDEX "workspace_shares_org_target_idx" RENAME TO "workspace_shares_default_org_target_idx";
--> statement-breakpoint
ALTER INDEX "workspace_shares_org_type_risk_idx" RENAME TO "workspace_shares_default_org_type_risk_idx";
--> statement-breakpoint
CREATE TABLE "workspace_shares" (LIKE "workspace_shares_default" INCLUDING DEFAULTS) PARTITION BY LIST ("connector_id");
--> statement-breakpoint
ALTER TABLE "workspace_shares" ADD CONSTRAINT "workspace_shares_id_connector_id_pk" PRIMARY KEY("id","connector_id");
--> statement-breakpoint
ALTER TABLE "workspace_shares" ADD CONSTRAINT "workspace_shares_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "workspace_shares_connector_idx" ON "workspace_shares" USING btree ("connector_id");
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_approved_idx" ON "workspace_shares" USING btree ("org_id") WHERE approved_until IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_name_idx" ON "workspace_shares" USING btree ("org_id","resource_name","id");
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_owner_idx" ON "workspace_shares" USING btree ("org_id","owner_email","id");
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_risk_idx" ON "workspace_shares" USING btree ("org_id","risk_rank","id");
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_severity_idx" ON "workspace_shares" USING btree ("org_id","severity_rank","id");
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_target_idx" ON "workspace_shares" USING btree ("org_id","target","id");
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_type_risk_idx" ON "workspace_shares" USING btree ("org_id","sharing_type","risk_rank","id");
--> statement-breakpoint
ALTER TABLE "workspace_shares" ATTACH PARTITION "workspace_shares_default" DEFAULT;
--> statement-breakpoint
-- Grant changes rewrite a file's exposure and counts, no indexed column: room on the page keeps
-- those updates HOT (no index insertions). Applies to pages written from now on.
ALTER TABLE "workspace_files_default" SET (fillfactor = 90);
--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'posture_app') THEN
    EXECUTE 'GRANT SELECT, INSERT, UPDATE, DELETE ON workspace_files, workspace_permissions, workspace_shares TO posture_app';
  END IF;
END
$$;
--> statement-breakpoint
-- A connector's own partitions are created, indexed, attached and dropped by the owner role:
-- the service's role (a member of posture_app) may not create tables nor alter the parents. These
-- functions do exactly that and nothing else (SECURITY DEFINER, fixed search_path). A partition
-- of <table> for connector c is named <table>_p<first 16 hex digits of md5(c)>.
CREATE FUNCTION workspace_partition_name(p_table text, p_connector text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT p_table || '_p' || substr(md5(p_connector), 1, 16) $$;
--> statement-breakpoint
-- The three tables a first snapshot loads into: the parent's columns and defaults, no index, no
-- foreign key, a CHECK that makes the later ATTACH skip its scan of the new partition.
CREATE FUNCTION workspace_partition_create(p_connector text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  t text;
  part text;
BEGIN
  FOREACH t IN ARRAY ARRAY['workspace_files', 'workspace_permissions', 'workspace_shares'] LOOP
    part := workspace_partition_name(t, p_connector);
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS, CONSTRAINT %I CHECK (connector_id = %L))%s',
      part, t, part || '_connector_check', p_connector,
      CASE WHEN t = 'workspace_files' THEN ' WITH (fillfactor = 90)' ELSE '' END);
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'posture_app') THEN
      EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO posture_app', part);
    END IF;
  END LOOP;
END
$$;
--> statement-breakpoint
-- Builds the loaded tables' primary keys and the parents' indexes (same definitions), so that the
-- ATTACH finds them and builds nothing, and gathers their statistics: a rescan's plans must not
-- wait for autovacuum to learn what the load wrote.
CREATE FUNCTION workspace_partition_index(p_connector text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  t text;
  part text;
  idx record;
BEGIN
  FOREACH t IN ARRAY ARRAY['workspace_files', 'workspace_permissions', 'workspace_shares'] LOOP
    part := workspace_partition_name(t, p_connector);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY (id, connector_id)', part, part || '_pkey');
    FOR idx IN
      SELECT c.relname, pg_get_indexdef(i.indexrelid) AS def
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = t::regclass AND NOT i.indisprimary
    LOOP
      EXECUTE regexp_replace(idx.def, '^CREATE (UNIQUE )?INDEX \S+ ON ONLY \S+ ',
        'CREATE \1INDEX ' || quote_ident(part || substr(idx.relname, length(t) + 1)) || ' ON ' || quote_ident(part) || ' ');
    END LOOP;
    EXECUTE format('ANALYZE %I', part);
  END LOOP;
END
$$;
--> statement-breakpoint
-- Attaches the three loaded tables as the connector's partitions.
CREATE FUNCTION workspace_partition_attach(p_connector text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['workspace_files', 'workspace_permissions', 'workspace_shares'] LOOP
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%L)', t,
      workspace_partition_name(t, p_connector), p_connector);
  END LOOP;
END
$$;
--> statement-breakpoint
-- Drops the connector's tables, attached or not (a small first load moved into the DEFAULT
-- partition, or a deleted connector); returns how many there were.
CREATE FUNCTION workspace_partition_drop(p_connector text) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  t text;
  part text;
  n int := 0;
BEGIN
  FOREACH t IN ARRAY ARRAY['workspace_files', 'workspace_permissions', 'workspace_shares'] LOOP
    part := workspace_partition_name(t, p_connector);
    IF to_regclass(quote_ident(part)) IS NOT NULL THEN
      EXECUTE format('DROP TABLE %I', part);
      n := n + 1;
    END IF;
  END LOOP;
  RETURN n;
END
$$;
--> statement-breakpoint
-- Empties the connector's own partitions (a deleted connector's, before the cascade would
-- delete their rows one by one): TRUNCATE locks only those partitions, not the parents.
CREATE FUNCTION workspace_partition_truncate(p_connector text) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  t text;
  part text;
  n int := 0;
BEGIN
  FOREACH t IN ARRAY ARRAY['workspace_files', 'workspace_permissions', 'workspace_shares'] LOOP
    part := workspace_partition_name(t, p_connector);
    IF to_regclass(quote_ident(part)) IS NOT NULL THEN
      EXECUTE format('TRUNCATE %I', part);
      n := n + 1;
    END IF;
  END LOOP;
  RETURN n;
END
$$;
--> statement-breakpoint
-- Drops the partitions whose connector is gone (their rows went with it); returns how many.
CREATE FUNCTION workspace_partition_sweep() RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  part text;
  n int := 0;
BEGIN
  FOR part IN
    SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent IN ('workspace_files'::regclass, 'workspace_permissions'::regclass, 'workspace_shares'::regclass)
      AND NOT c.relpartbound IS NULL AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
      AND NOT EXISTS (SELECT 1 FROM connectors k
        WHERE pg_get_expr(c.relpartbound, c.oid) = format('FOR VALUES IN (%L)', k.id))
  LOOP
    EXECUTE format('DROP TABLE %I', part);
    n := n + 1;
  END LOOP;
  RETURN n;
END
$$;
--> statement-breakpoint
-- Statistics after a large write, for the service's role (ANALYZE needs the table's owner; any
-- other role gets a warning and nothing is analyzed). For the partitioned tables it analyzes the
-- connector's own partition, or the DEFAULT one its rows live in, never the parent: that would
-- sample every partition of every connector. Like autovacuum, only when the rows written are more
-- than a tenth of the table's (one tenant's write into a table all tenants share seldom is), so
-- that concurrent scans rarely queue on the table's SHARE UPDATE EXCLUSIVE lock. Returns whether
-- it analyzed.
CREATE FUNCTION posture_analyze(p_table text, p_connector text, p_written bigint) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  target text;
  tuples real;
BEGIN
  IF p_table IN ('workspace_files', 'workspace_permissions', 'workspace_shares') THEN
    target := workspace_partition_name(p_table, p_connector);
    IF p_connector IS NULL OR NOT EXISTS (
      SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass(quote_ident(target))
    ) THEN
      target := p_table || '_default';
    END IF;
  ELSIF p_table IN ('workspace_users', 'workspace_drives', 'flow_nodes', 'flow_edges', 'findings', 'oauth_grants') THEN
    target := p_table;
  ELSE
    RAISE EXCEPTION 'posture_analyze: % is not a table the service analyzes', p_table;
  END IF;
  SELECT reltuples INTO tuples FROM pg_class WHERE oid = to_regclass(quote_ident(target));
  -- reltuples is -1 until the table was first analyzed.
  IF tuples >= 0 AND p_written <= tuples / 10 THEN
    RETURN false;
  END IF;
  EXECUTE format('ANALYZE %I', target);
  RETURN true;
END
$$;
--> statement-breakpoint
-- Only the service may run them (their owner always can): not every role that can log in.
REVOKE EXECUTE ON FUNCTION workspace_partition_create(text), workspace_partition_index(text),
  workspace_partition_attach(text), workspace_partition_drop(text), workspace_partition_truncate(text),
  workspace_partition_sweep(), posture_analyze(text, text, bigint) FROM PUBLIC;
--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'posture_app') THEN
    EXECUTE 'GRANT EXECUTE ON FUNCTION workspace_partition_create(text), workspace_partition_index(text),
      workspace_partition_attach(text), workspace_partition_drop(text), workspace_partition_truncate(text),
      workspace_partition_sweep(), posture_analyze(text, text, bigint) TO posture_app';
  END IF;
END
$$;
