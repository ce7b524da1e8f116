import { createHash, randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { sql } from "drizzle-orm";
import { createDb, MIGRATIONS_FOLDER, type Db, type DbHandle } from "./client";

// Each test file gets a database of its own on the real PostgreSQL server, cloned from a template
// migrated once from the committed migrations, and dropped afterwards: files run in parallel
// without seeing each other, and none pays for applying every migration.
export const TEST_POSTGRES_URL =
  process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export type TestDb = DbHandle & { url: string; drop: () => Promise<void> };

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs one statement on the server's maintenance database (CREATE / DROP DATABASE). */
async function admin(query: string): Promise<void> {
  const c = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await c.connect();
  try {
    await c.query(query);
  } finally {
    await c.end();
  }
}

/**
 * A database of the test's own that nothing has migrated yet (for the migrations' own tests):
 * `create` it before, `drop` it after.
 */
export function bareTestDatabase(prefix: string) {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  return {
    name,
    url: withDatabase(TEST_POSTGRES_URL, name),
    create: () => admin(`CREATE DATABASE "${name}"`),
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/** The committed migrations up to and including `last` (the journal cut there), in a temporary folder. */
export function migrationsUpTo(last: number): string {
  const dir = mkdtempSync(join(tmpdir(), "migrations-"));
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalPath = join(dir, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: Array<{ idx: number }> };
  journal.entries = journal.entries.filter((e) => e.idx <= last);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

/** Taken by whichever test process builds the template first; the others wait and find it built. */
const TEMPLATE_LOCK = 727_100_311;

/** The committed migrations' fingerprint: another set of migrations gets a template of its own. */
function migrationsDigest(): string {
  const hash = createHash("sha256");
  const files = [
    ...readdirSync(MIGRATIONS_FOLDER).filter((f) => f.endsWith(".sql")),
    "meta/_journal.json",
  ].sort();
  for (const file of files) hash.update(file).update(readFileSync(join(MIGRATIONS_FOLDER, file)));
  return hash.digest("hex").slice(0, 16);
}

/**
 * The template every test database is cloned from, migrated once per set of migrations. It is
 * built under another name and renamed when complete, so a build that died is never cloned.
 */
async function buildTemplate(): Promise<string> {
  const name = `test_template_${migrationsDigest()}`;
  const c = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await c.connect();
  try {
    await c.query("select pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    const found = await c.query("select 1 from pg_database where datname = $1", [name]);
    if (found.rowCount === 0) {
      const building = `${name}_building`;
      await c.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      await c.query(`CREATE DATABASE "${building}"`);
      const handle = createDb({ databaseUrl: withDatabase(TEST_POSTGRES_URL, building), poolSize: 1 });
      try {
        await handle.migrate();
      } finally {
        await handle.close();
      }
      await c.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
      await c.query(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true`);
    }
    return name;
  } finally {
    await c.query("select pg_advisory_unlock($1)", [TEMPLATE_LOCK]).catch(() => {});
    await c.end();
  }
}

let template: Promise<string> | undefined;

export async function createTestDb(): Promise<TestDb> {
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  template ??= buildTemplate().catch((err: unknown) => {
    template = undefined;
    throw err;
  });
  await admin(`CREATE DATABASE "${name}" TEMPLATE "${await template}"`);
  const url = withDatabase(TEST_POSTGRES_URL, name);
  // Three test workers on two cores: a first connection to a fresh clone can take over the
  // service's 1.5 s bound (seen once in a full run); tests that measure that bound set their own.
  const handle = createDb({ databaseUrl: url, poolSize: 5, connectTimeoutMs: 10_000 });
  // Finds every migration applied (the template's); kept so a template that falls behind is caught.
  await handle.migrate();
  return {
    ...handle,
    url,
    drop: async () => {
      await handle.close();
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

export type TSummaryMismatch = {
  org_id: string;
  expected: string;
  stored: string | null;
};

/**
 * Organizations whose org_posture_summary row differs from the same figures computed from scans
 * and findings directly (the portfolio's former per-client subqueries), and org_finding_counts
 * rows (`org_id` then reads `org:category:severity`) that differ from counting the open findings.
 * Empty when both are exact; an organization without a row must have no score and no open findings.
 */
export async function postureSummaryMismatches(db: Db): Promise<TSummaryMismatch[]> {
  const res = (await db.execute(sql`
    WITH expected AS (
      SELECT o.id AS org_id,
        (SELECT s.posture_score FROM scans s
          WHERE s.org_id = o.id AND s.status = 'COMPLETE' AND s.posture_score IS NOT NULL
          ORDER BY s.completed_at DESC, s.id DESC LIMIT 1) AS score,
        (SELECT count(*) FROM findings f WHERE f.org_id = o.id AND f.status = 'OPEN' AND f.severity_rank = 4) AS c,
        (SELECT count(*) FROM findings f WHERE f.org_id = o.id AND f.status = 'OPEN' AND f.severity_rank = 3) AS h,
        (SELECT count(*) FROM findings f WHERE f.org_id = o.id AND f.status = 'OPEN' AND f.severity_rank = 2) AS m,
        (SELECT count(*) FROM findings f WHERE f.org_id = o.id AND f.status = 'OPEN' AND f.severity_rank = 1) AS l
      FROM organizations o)
    SELECT e.org_id,
      concat_ws('/', coalesce(e.score::text, '-'), e.c, e.h, e.m, e.l) AS expected,
      CASE WHEN s.org_id IS NULL THEN NULL ELSE
        concat_ws('/', coalesce(s.posture_score::text, '-'), s.open_critical, s.open_high, s.open_medium, s.open_low) END AS stored
    FROM expected e LEFT JOIN org_posture_summary s ON s.org_id = e.org_id
    WHERE e.score IS DISTINCT FROM s.posture_score
      OR e.c <> coalesce(s.open_critical, 0) OR e.h <> coalesce(s.open_high, 0)
      OR e.m <> coalesce(s.open_medium, 0) OR e.l <> coalesce(s.open_low, 0)
    ORDER BY e.org_id`)) as unknown as { rows: TSummaryMismatch[] };
  const counts = (await db.execute(sql`
    WITH expected AS (
      SELECT org_id, category, severity, count(*)::int AS n FROM findings WHERE status = 'OPEN' GROUP BY 1, 2, 3)
    SELECT concat_ws(':', coalesce(e.org_id, c.org_id), coalesce(e.category, c.category),
        coalesce(e.severity, c.severity)) AS org_id,
      coalesce(e.n, 0)::text AS expected, c.open::text AS stored
    FROM expected e
    FULL JOIN org_finding_counts c ON c.org_id = e.org_id AND c.category = e.category AND c.severity = e.severity
    WHERE coalesce(e.n, 0) <> coalesce(c.open, 0)
    ORDER BY 1`)) as unknown as { rows: TSummaryMismatch[] };
  return [...res.rows, ...counts.rows];
}
