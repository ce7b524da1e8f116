-- One row per organization with what the partner portfolio and client report show: the latest
-- completed scan's posture score and the open findings per severity. It is kept exact by
-- statement-level triggers on findings and scans (transition tables), in the transaction of the
-- write, so every path that writes those tables (the scan pipeline, sharing approvals, trusted
-- domain re-rating, connector and organization deletion, a hand-written UPDATE) keeps it true
-- without knowing about it. See docs/decisions.md ("Posture summary").
CREATE TABLE "org_posture_summary" (
	"org_id" text PRIMARY KEY NOT NULL REFERENCES "organizations"("id") ON DELETE cascade,
	"posture_score" integer,
	"score_completed_at" timestamp with time zone,
	"open_critical" integer DEFAULT 0 NOT NULL,
	"open_high" integer DEFAULT 0 NOT NULL,
	"open_medium" integer DEFAULT 0 NOT NULL,
	"open_low" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Open findings are counted by delta: a statement adds its new OPEN rows and subtracts its old
-- ones, per organization and severity rank (4 = CRITICAL … 1 = LOW). Deltas commute, so concurrent
-- writers need no ordering beyond the summary row's own lock. A statement that changes neither
-- status nor severity (titles, details, last seen scan) writes nothing. Organizations that are
-- gone (a cascade from their deletion) are skipped: their summary row goes with them.
CREATE FUNCTION org_posture_summary_on_findings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO org_posture_summary AS s (org_id, open_critical, open_high, open_medium, open_low, updated_at)
    SELECT d.org_id,
      count(*) FILTER (WHERE d.severity_rank = 4), count(*) FILTER (WHERE d.severity_rank = 3),
      count(*) FILTER (WHERE d.severity_rank = 2), count(*) FILTER (WHERE d.severity_rank = 1), now()
    FROM new_rows d WHERE d.status = 'OPEN' GROUP BY d.org_id ORDER BY d.org_id
    ON CONFLICT (org_id) DO UPDATE SET
      open_critical = s.open_critical + excluded.open_critical, open_high = s.open_high + excluded.open_high,
      open_medium = s.open_medium + excluded.open_medium, open_low = s.open_low + excluded.open_low,
      updated_at = excluded.updated_at;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE org_posture_summary s SET
      open_critical = s.open_critical - d.c, open_high = s.open_high - d.h,
      open_medium = s.open_medium - d.m, open_low = s.open_low - d.l, updated_at = now()
    FROM (
      SELECT o.org_id,
        count(*) FILTER (WHERE o.severity_rank = 4) AS c, count(*) FILTER (WHERE o.severity_rank = 3) AS h,
        count(*) FILTER (WHERE o.severity_rank = 2) AS m, count(*) FILTER (WHERE o.severity_rank = 1) AS l
      FROM old_rows o WHERE o.status = 'OPEN' GROUP BY o.org_id
    ) d
    WHERE s.org_id = d.org_id;
  ELSE
    INSERT INTO org_posture_summary AS s (org_id, open_critical, open_high, open_medium, open_low, updated_at)
    SELECT g.org_id, g.c, g.h, g.m, g.l, now()
    FROM (
      SELECT x.org_id,
        coalesce(sum(x.n) FILTER (WHERE x.r = 4), 0)::int AS c, coalesce(sum(x.n) FILTER (WHERE x.r = 3), 0)::int AS h,
        coalesce(sum(x.n) FILTER (WHERE x.r = 2), 0)::int AS m, coalesce(sum(x.n) FILTER (WHERE x.r = 1), 0)::int AS l
      FROM (
        SELECT n.org_id, n.severity_rank AS r, 1 AS n FROM new_rows n WHERE n.status = 'OPEN'
        UNION ALL
        SELECT o.org_id, o.severity_rank, -1 FROM old_rows o WHERE o.status = 'OPEN'
      ) x
      GROUP BY x.org_id
    ) g
    JOIN organizations org ON org.id = g.org_id
    WHERE g.c <> 0 OR g.h <> 0 OR g.m <> 0 OR g.l <> 0
    ORDER BY g.org_id
    ON CONFLICT (org_id) DO UPDATE SET
      open_critical = s.open_critical + excluded.open_critical, open_high = s.open_high + excluded.open_high,
      open_medium = s.open_medium + excluded.open_medium, open_low = s.open_low + excluded.open_low,
      updated_at = excluded.updated_at;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- Transition tables allow one event per trigger: three triggers share the function.
CREATE TRIGGER findings_posture_summary_ins AFTER INSERT ON findings
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION org_posture_summary_on_findings();
--> statement-breakpoint
CREATE TRIGGER findings_posture_summary_upd AFTER UPDATE ON findings
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION org_posture_summary_on_findings();
--> statement-breakpoint
CREATE TRIGGER findings_posture_summary_del AFTER DELETE ON findings
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION org_posture_summary_on_findings();
--> statement-breakpoint
-- The latest score cannot be kept by delta (deleting or re-dating the latest scan needs the one
-- before it), so it is recomputed, one backward index probe per organization a statement touched
-- among COMPLETE scans. The summary rows are locked first and the score read by a later statement:
-- under READ COMMITTED that read sees every completion committed before the lock was granted, so
-- two scans of one organization completing together cannot leave the older score behind.
CREATE FUNCTION org_posture_refresh_score(orgs text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO org_posture_summary (org_id)
    SELECT o.id FROM organizations o WHERE o.id = ANY(orgs) ORDER BY o.id
    ON CONFLICT (org_id) DO NOTHING;
  PERFORM 1 FROM org_posture_summary s WHERE s.org_id = ANY(orgs) ORDER BY s.org_id FOR UPDATE;
  UPDATE org_posture_summary s SET posture_score = l.posture_score, score_completed_at = l.completed_at, updated_at = now()
  FROM (
    SELECT u.id, x.posture_score, x.completed_at
    FROM unnest(orgs) u(id)
    LEFT JOIN LATERAL (
      SELECT sc.posture_score, sc.completed_at FROM scans sc
      WHERE sc.org_id = u.id AND sc.status = 'COMPLETE' AND sc.posture_score IS NOT NULL
      ORDER BY sc.completed_at DESC, sc.id DESC LIMIT 1
    ) x ON true
  ) l
  WHERE s.org_id = l.id
    AND (s.posture_score IS DISTINCT FROM l.posture_score OR s.score_completed_at IS DISTINCT FROM l.completed_at);
END;
$$;
--> statement-breakpoint
CREATE FUNCTION org_posture_summary_on_scans() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs text[];
BEGIN
  -- Queued, running and failed scans never count: only statements touching a COMPLETE row matter.
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT n.org_id) INTO orgs FROM new_rows n WHERE n.status = 'COMPLETE';
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT o.org_id) INTO orgs FROM old_rows o WHERE o.status = 'COMPLETE';
  ELSE
    SELECT array_agg(DISTINCT x.org_id) INTO orgs FROM (
      SELECT n.org_id FROM new_rows n WHERE n.status = 'COMPLETE'
      UNION ALL
      SELECT o.org_id FROM old_rows o WHERE o.status = 'COMPLETE'
    ) x;
  END IF;
  IF orgs IS NOT NULL THEN
    PERFORM org_posture_refresh_score(orgs);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER scans_posture_summary_ins AFTER INSERT ON scans
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION org_posture_summary_on_scans();
--> statement-breakpoint
CREATE TRIGGER scans_posture_summary_upd AFTER UPDATE ON scans
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION org_posture_summary_on_scans();
--> statement-breakpoint
CREATE TRIGGER scans_posture_summary_del AFTER DELETE ON scans
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION org_posture_summary_on_scans();
--> statement-breakpoint
-- TRUNCATE fires no row or transition-table trigger: it empties the counts or scores instead.
CREATE FUNCTION org_posture_summary_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'findings' THEN
    UPDATE org_posture_summary SET open_critical = 0, open_high = 0, open_medium = 0, open_low = 0, updated_at = now();
  ELSE
    UPDATE org_posture_summary SET posture_score = NULL, score_completed_at = NULL, updated_at = now();
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER findings_posture_summary_truncate AFTER TRUNCATE ON findings
  FOR EACH STATEMENT EXECUTE FUNCTION org_posture_summary_on_truncate();
--> statement-breakpoint
CREATE TRIGGER scans_posture_summary_truncate AFTER TRUNCATE ON scans
  FOR EACH STATEMENT EXECUTE FUNCTION org_posture_summary_on_truncate();
--> statement-breakpoint
-- Backfill, after the triggers: creating them locked findings and scans against writers until this
-- migration commits, so nothing can change between this read and the first trigger firing.
INSERT INTO org_posture_summary (org_id, posture_score, score_completed_at, open_critical, open_high, open_medium, open_low)
SELECT o.id, l.posture_score, l.completed_at,
  coalesce(f.c, 0), coalesce(f.h, 0), coalesce(f.m, 0), coalesce(f.l, 0)
FROM organizations o
LEFT JOIN LATERAL (
  SELECT sc.posture_score, sc.completed_at FROM scans sc
  WHERE sc.org_id = o.id AND sc.status = 'COMPLETE' AND sc.posture_score IS NOT NULL
  ORDER BY sc.completed_at DESC, sc.id DESC LIMIT 1
) l ON true
LEFT JOIN (
  SELECT org_id,
    count(*) FILTER (WHERE severity_rank = 4) AS c, count(*) FILTER (WHERE severity_rank = 3) AS h,
    count(*) FILTER (WHERE severity_rank = 2) AS m, count(*) FILTER (WHERE severity_rank = 1) AS l
  FROM findings WHERE status = 'OPEN' GROUP BY org_id
) f ON f.org_id = o.id
ON CONFLICT (org_id) DO NOTHING;
