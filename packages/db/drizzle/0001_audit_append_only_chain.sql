-- The audit trail is append-only in the database itself, and hash-chained per organization
-- so that a row altered with the triggers disabled is still detectable.

CREATE OR REPLACE FUNCTION audit_log_row_hash(prev_hash text, seq bigint, org_id text, action text, target text,
  user_id text, user_email text, metadata jsonb, created_at timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT encode(sha256(convert_to(
    prev_hash || '|' || seq::text || '|' || org_id || '|' || action || '|' || target || '|' ||
    coalesce(user_id, '') || '|' || user_email || '|' || metadata::text || '|' ||
    ((extract(epoch FROM created_at) * 1000000)::bigint)::text,
  'UTF8')), 'hex')
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION audit_log_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint;
  last_hash text;
BEGIN
  -- Serialize writers of one organization's chain; other organizations proceed in parallel.
  PERFORM pg_advisory_xact_lock(hashtextextended('audit_log:' || NEW.org_id, 0));
  SELECT a.seq, a.hash INTO last_seq, last_hash
    FROM audit_log a WHERE a.org_id = NEW.org_id ORDER BY a.seq DESC LIMIT 1;
  NEW.seq := coalesce(last_seq, 0) + 1;
  NEW.prev_hash := coalesce(last_hash, repeat('0', 64));
  NEW.created_at := date_trunc('microseconds', coalesce(NEW.created_at, now()));
  NEW.hash := audit_log_row_hash(NEW.prev_hash, NEW.seq, NEW.org_id, NEW.action, NEW.target,
    NEW.user_id, NEW.user_email, NEW.metadata, NEW.created_at);
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_chain();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION audit_log_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_log_no_update_delete BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
--> statement-breakpoint
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();
--> statement-breakpoint
-- Returns the first seq whose stored link or hash does not match a recomputation, or NULL if intact.
CREATE OR REPLACE FUNCTION audit_log_verify(p_org_id text) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
  r record;
  expected_prev text := repeat('0', 64);
  expected_seq bigint := 1;
BEGIN
  FOR r IN SELECT * FROM audit_log WHERE org_id = p_org_id ORDER BY seq LOOP
    IF r.seq <> expected_seq OR r.prev_hash <> expected_prev OR r.hash <> audit_log_row_hash(r.prev_hash, r.seq,
        r.org_id, r.action, r.target, r.user_id, r.user_email, r.metadata, r.created_at) THEN
      RETURN r.seq;
    END IF;
    expected_prev := r.hash;
    expected_seq := r.seq + 1;
  END LOOP;
  RETURN NULL;
END
$$;
