-- A per-organization credential epoch: every change that can revoke or alter a resolved credential
-- (an API key or session revoked or re-dated, a membership or role changed, the plan or partner
-- flag changed, a user's e-mail changed) increments it in the same transaction. Gateways cache
-- resolved credentials in memory together with the epoch they were read at and compare it with
-- the epoch published in Redis on every request, so a cached credential never outlives a change.
ALTER TABLE "organizations" ADD COLUMN "credential_epoch" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE FUNCTION bump_credential_epoch(target_org text) RETURNS void LANGUAGE sql AS $$
  UPDATE organizations SET credential_epoch = credential_epoch + 1 WHERE id = target_org;
$$;
--> statement-breakpoint
CREATE FUNCTION credential_epoch_on_row_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM bump_credential_epoch(OLD.org_id);
    RETURN OLD;
  END IF;
  PERFORM bump_credential_epoch(NEW.org_id);
  IF TG_OP = 'UPDATE' AND NEW.org_id IS DISTINCT FROM OLD.org_id THEN
    PERFORM bump_credential_epoch(OLD.org_id);
  END IF;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER api_keys_credential_epoch AFTER UPDATE OF revoked_at, expires_at, org_id, created_by_user_id OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION credential_epoch_on_row_change();
--> statement-breakpoint
CREATE TRIGGER sessions_credential_epoch AFTER UPDATE OF revoked_at, expires_at, org_id, user_id OR DELETE ON sessions
  FOR EACH ROW EXECUTE FUNCTION credential_epoch_on_row_change();
--> statement-breakpoint
CREATE TRIGGER memberships_credential_epoch AFTER INSERT OR UPDATE OR DELETE ON memberships
  FOR EACH ROW EXECUTE FUNCTION credential_epoch_on_row_change();
--> statement-breakpoint
CREATE FUNCTION credential_epoch_on_org_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.credential_epoch := OLD.credential_epoch + 1;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER organizations_credential_epoch BEFORE UPDATE OF name, plan, grace_plan, grace_ends_at, is_partner ON organizations
  FOR EACH ROW WHEN (
    NEW.name IS DISTINCT FROM OLD.name OR NEW.plan IS DISTINCT FROM OLD.plan
    OR NEW.grace_plan IS DISTINCT FROM OLD.grace_plan OR NEW.grace_ends_at IS DISTINCT FROM OLD.grace_ends_at
    OR NEW.is_partner IS DISTINCT FROM OLD.is_partner
  )
  EXECUTE FUNCTION credential_epoch_on_org_change();
--> statement-breakpoint
CREATE FUNCTION credential_epoch_on_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE organizations SET credential_epoch = credential_epoch + 1
    WHERE id IN (SELECT org_id FROM memberships WHERE user_id = OLD.id);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER users_credential_epoch AFTER UPDATE OF email OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION credential_epoch_on_user_change();
