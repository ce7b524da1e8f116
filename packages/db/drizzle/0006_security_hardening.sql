-- Idempotency records written before results were sealed held creation results in plaintext
-- (new API keys, webhook signing secrets). They are dropped: a retry of such a request within
-- its 24 hours runs again instead of replaying.
DELETE FROM "idempotency_keys" WHERE "response_body" IS NOT NULL;
--> statement-breakpoint
-- Keyed audit chain. Rows written by the application carry chain = 'hmac': the application holds
-- the per-organization chain lock, links the row to the last one and computes
-- HMAC-SHA256(server key, row) itself, so the key never reaches the database. This trigger only
-- checks the link (seq and prev_hash) of such rows. Rows inserted any other way (and every row
-- from before this migration) are 'sha256' rows, chained with the plain hash as before; the
-- application's verifier reports them.
ALTER TABLE "audit_log" ADD COLUMN "chain" text DEFAULT 'sha256' NOT NULL;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION audit_log_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint;
  last_hash text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('audit_log:' || NEW.org_id, 0));
  SELECT a.seq, a.hash INTO last_seq, last_hash
    FROM audit_log a WHERE a.org_id = NEW.org_id ORDER BY a.seq DESC LIMIT 1;
  IF NEW.chain = 'hmac' THEN
    IF NEW.seq <> coalesce(last_seq, 0) + 1 OR NEW.prev_hash <> coalesce(last_hash, repeat('0', 64)) THEN
      RAISE EXCEPTION 'audit_log: row % does not extend the chain', NEW.seq USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN NEW;
  END IF;
  NEW.chain := 'sha256';
  NEW.seq := coalesce(last_seq, 0) + 1;
  NEW.prev_hash := coalesce(last_hash, repeat('0', 64));
  NEW.created_at := date_trunc('microseconds', coalesce(NEW.created_at, now()));
  NEW.hash := audit_log_row_hash(NEW.prev_hash, NEW.seq, NEW.org_id, NEW.action, NEW.target,
    NEW.user_id, NEW.user_email, NEW.metadata, NEW.created_at);
  RETURN NEW;
END
$$;
--> statement-breakpoint
-- The application's role. The service connects as a login role that is a member of posture_app
-- (see docs/operations.md); the owner role runs the migrations. posture_app may read and write
-- the tables, but may only INSERT into audit_log, and as a non-owner it cannot ALTER the table
-- (no DISABLE TRIGGER) nor drop or replace the trigger functions. Creating the role needs
-- CREATEROLE; without it (embedded mode, a managed database) this step is skipped with a notice
-- and the operator creates the role by hand as documented.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'posture_app') THEN
    CREATE ROLE posture_app NOLOGIN;
  END IF;
EXCEPTION
  WHEN insufficient_privilege OR duplicate_object THEN
    RAISE NOTICE 'posture_app role not created: %', SQLERRM;
END
$$;
--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'posture_app') THEN
    EXECUTE 'GRANT USAGE ON SCHEMA public TO posture_app';
    EXECUTE 'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO posture_app';
    EXECUTE 'GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO posture_app';
    EXECUTE 'REVOKE UPDATE, DELETE, TRUNCATE ON audit_log FROM posture_app';
    -- Tables later migrations create are the application's too (audit_log stays insert-only).
    EXECUTE 'ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO posture_app';
    EXECUTE 'ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO posture_app';
  END IF;
END
$$;
