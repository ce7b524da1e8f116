-- Custom SQL migration file, put your code below! --
-- A client's consent belongs to the client, not to the link an operator makes (issue 28, item 9).
-- 0024's trigger reset the consent row on every change of manager: a client that had withdrawn
-- its partner's access got it granted again, to the new partner, by whoever re-linked it. Now:
--   * a withdrawal outlives a re-link and an unlink: the row stays withdrawn (moved to the new
--     partner, who starts without access until the client's OWNER grants it);
--   * a client that had not withdrawn gives the new partner the access an operator's link gives
--     (granted, by nobody: the operator), as when the client was made;
--   * an unlink keeps a withdrawn row (the memory of the withdrawal), drops a granted one.
-- And a link never crosses between sandbox and real organizations: a sandbox partner's portfolio
-- would show a real client's data to whoever made the sandbox, a real partner's would mix
-- synthetic tenants into a real portfolio. The services refuse it with 400 first; this refuses
-- every other writer (SQL by hand, fixtures).
CREATE OR REPLACE FUNCTION partner_access_follow_manager() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  manager_sandbox boolean;
BEGIN
  IF NEW.managed_by_org_id IS NOT NULL THEN
    SELECT is_sandbox INTO manager_sandbox FROM organizations WHERE id = NEW.managed_by_org_id;
    IF manager_sandbox IS DISTINCT FROM NEW.is_sandbox THEN
      RAISE EXCEPTION 'organization % (sandbox: %) cannot be managed by % (sandbox: %)',
        NEW.id, NEW.is_sandbox, NEW.managed_by_org_id, manager_sandbox
        USING ERRCODE = 'check_violation';
    END IF;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.managed_by_org_id IS NOT DISTINCT FROM NEW.managed_by_org_id THEN
    RETURN NULL;
  END IF;
  IF NEW.managed_by_org_id IS NULL THEN
    DELETE FROM partner_access WHERE client_org_id = NEW.id AND withdrawn_at IS NULL;
  ELSE
    INSERT INTO partner_access (client_org_id, partner_org_id, granted_at)
    VALUES (NEW.id, NEW.managed_by_org_id, now())
    ON CONFLICT (client_org_id) DO UPDATE SET
      partner_org_id = EXCLUDED.partner_org_id,
      granted_at = CASE WHEN partner_access.withdrawn_at IS NULL THEN now() ELSE partner_access.granted_at END,
      granted_by_user_id = CASE WHEN partner_access.withdrawn_at IS NULL THEN NULL
        ELSE partner_access.granted_by_user_id END;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
DROP TRIGGER organizations_partner_access ON organizations;--> statement-breakpoint
CREATE TRIGGER organizations_partner_access AFTER INSERT OR UPDATE OF managed_by_org_id, is_sandbox ON organizations
FOR EACH ROW EXECUTE FUNCTION partner_access_follow_manager();
