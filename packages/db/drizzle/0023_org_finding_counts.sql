-- Open findings per organization, category and severity: the posture score's whole input, so a
-- what-if (POST /api/posture/simulate, a remediation plan's prediction) reads a few rows instead of
-- counting every open finding (171,000 on the 1M-file organization: over 100 ms). Kept exact by
-- statement-level triggers on findings in the writing transaction, by delta, exactly as
-- org_posture_summary (migration 0012) is; see docs/decisions.md ("Posture summary").
CREATE TABLE "org_finding_counts" (
	"org_id" text NOT NULL,
	"category" text NOT NULL,
	"severity" text NOT NULL,
	"open" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "org_finding_counts_org_id_category_severity_pk" PRIMARY KEY("org_id","category","severity")
);
--> statement-breakpoint
ALTER TABLE "org_finding_counts" ADD CONSTRAINT "org_finding_counts_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- A statement adds its new OPEN rows and subtracts its old ones per (org, category, severity);
-- deltas commute, and rows are written in key order so concurrent writers cannot deadlock.
-- Organizations being deleted (a cascade) are skipped: their rows go with them.
CREATE FUNCTION org_finding_counts_on_findings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE org_finding_counts c SET open = c.open - d.n, updated_at = now()
    FROM (
      SELECT o.org_id, o.category, o.severity, count(*)::int AS n
      FROM old_rows o WHERE o.status = 'OPEN' GROUP BY 1, 2, 3
    ) d
    WHERE c.org_id = d.org_id AND c.category = d.category AND c.severity = d.severity;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO org_finding_counts AS c (org_id, category, severity, open, updated_at)
    SELECT n.org_id, n.category, n.severity, count(*)::int, now()
    FROM new_rows n WHERE n.status = 'OPEN'
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (org_id, category, severity) DO UPDATE SET
      open = c.open + excluded.open, updated_at = excluded.updated_at;
  ELSE
    INSERT INTO org_finding_counts AS c (org_id, category, severity, open, updated_at)
    SELECT g.org_id, g.category, g.severity, g.n, now()
    FROM (
      SELECT x.org_id, x.category, x.severity, sum(x.n)::int AS n
      FROM (
        SELECT n.org_id, n.category, n.severity, 1 AS n FROM new_rows n WHERE n.status = 'OPEN'
        UNION ALL
        SELECT o.org_id, o.category, o.severity, -1 FROM old_rows o WHERE o.status = 'OPEN'
      ) x
      GROUP BY 1, 2, 3
    ) g
    JOIN organizations org ON org.id = g.org_id
    WHERE g.n <> 0
    ORDER BY g.org_id, g.category, g.severity
    ON CONFLICT (org_id, category, severity) DO UPDATE SET
      open = c.open + excluded.open, updated_at = excluded.updated_at;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER findings_finding_counts_ins AFTER INSERT ON findings
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION org_finding_counts_on_findings();
--> statement-breakpoint
CREATE TRIGGER findings_finding_counts_upd AFTER UPDATE ON findings
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION org_finding_counts_on_findings();
--> statement-breakpoint
CREATE TRIGGER findings_finding_counts_del AFTER DELETE ON findings
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION org_finding_counts_on_findings();
--> statement-breakpoint
CREATE FUNCTION org_finding_counts_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM org_finding_counts;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER findings_finding_counts_truncate AFTER TRUNCATE ON findings
  FOR EACH STATEMENT EXECUTE FUNCTION org_finding_counts_on_truncate();
--> statement-breakpoint
-- Backfill, after the triggers (creating them locked findings against writers until commit).
INSERT INTO org_finding_counts (org_id, category, severity, open)
SELECT org_id, category, severity, count(*)::int FROM findings WHERE status = 'OPEN'
GROUP BY 1, 2, 3
ON CONFLICT DO NOTHING;
