import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, createEmbeddedDb, queryRows, type Db, type DbHandle } from "./client";
import {
  bareTestDatabase,
  createTestDb,
  migrationsUpTo,
  postureSummaryMismatches,
  type TestDb,
} from "./testing";

type TFindingSpec = { rank: 1 | 2 | 3 | 4; status?: "OPEN" | "RESOLVED" | "ACCEPTED" };
const SEVERITY = { 4: "CRITICAL", 3: "HIGH", 2: "MEDIUM", 1: "LOW" } as const;
const uid = (p: string) => `${p}_${randomBytes(8).toString("hex")}`;

async function newOrg(db: Db, name = "Org"): Promise<string> {
  const id = uid("org");
  await db.execute(sql`INSERT INTO organizations (id, name) VALUES (${id}, ${name})`);
  return id;
}

async function newConnector(db: Db, orgId: string): Promise<string> {
  const id = uid("con");
  await db.execute(sql`INSERT INTO connectors (id, org_id, type, display_name, mode)
    VALUES (${id}, ${orgId}, 'google_workspace', 'Drive', 'demo')`);
  return id;
}

/** Inserts the findings in one statement (one trigger firing with several rows). */
async function addFindings(
  db: Db,
  orgId: string,
  connectorId: string,
  specs: TFindingSpec[],
): Promise<string[]> {
  const ids = specs.map(() => uid("fnd"));
  const rows = specs.map(
    (s, i) =>
      sql`(${ids[i]}, ${orgId}, ${connectorId}, 'google_workspace', ${ids[i]}, 'public_link', 'public_exposure',
        ${SEVERITY[s.rank]}, ${s.rank}, 'Finding', ${`res-${i}`}, 'File', 'file', ${s.status ?? "OPEN"})`,
  );
  await db.execute(sql`INSERT INTO findings (id, org_id, connector_id, connector_type, fingerprint, rule_id, category,
      severity, severity_rank, title, resource_id, resource_name, resource_type, status)
    VALUES ${sql.join(rows, sql`, `)}`);
  return ids;
}

async function addScan(
  db: Db,
  orgId: string,
  o: { score: number | null; minutesAgo: number; status?: string },
): Promise<string> {
  const id = uid("scn");
  await db.execute(sql`INSERT INTO scans (id, org_id, connector_name, trigger, status, posture_score, completed_at)
    VALUES (${id}, ${orgId}, 'Drive', 'manual', ${o.status ?? "COMPLETE"}, ${o.score},
      now() - ${o.minutesAgo} * interval '1 minute')`);
  return id;
}

type TSummary = { score: number | null; c: number; h: number; m: number; l: number } | undefined;
async function summaryOf(db: Db, orgId: string): Promise<TSummary> {
  const [row] = await queryRows<{ score: number | null; c: number; h: number; m: number; l: number }>(
    db,
    sql`SELECT posture_score AS score, open_critical AS c, open_high AS h, open_medium AS m, open_low AS l
      FROM org_posture_summary WHERE org_id = ${orgId}`,
  );
  return row;
}

describe("org_posture_summary on PostgreSQL", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(async () => {
    await t.drop();
  });

  it("counts inserted OPEN findings per severity, per organization", async () => {
    const a = await newOrg(t.db);
    const b = await newOrg(t.db);
    const ca = await newConnector(t.db, a);
    const cb = await newConnector(t.db, b);
    await addFindings(t.db, a, ca, [{ rank: 4 }, { rank: 4 }, { rank: 3 }, { rank: 1, status: "RESOLVED" }]);
    await addFindings(t.db, b, cb, [{ rank: 2 }, { rank: 4, status: "ACCEPTED" }]);
    expect(await summaryOf(t.db, a)).toEqual({ score: null, c: 2, h: 1, m: 0, l: 0 });
    expect(await summaryOf(t.db, b)).toEqual({ score: null, c: 0, h: 0, m: 1, l: 0 });
    expect(await postureSummaryMismatches(t.db)).toEqual([]);
  });

  it("follows status and severity changes, and writes nothing for other columns", async () => {
    const a = await newOrg(t.db);
    const ca = await newConnector(t.db, a);
    const [f1, f2, f3] = await addFindings(t.db, a, ca, [
      { rank: 4 },
      { rank: 3 },
      { rank: 2, status: "RESOLVED" },
    ]);
    await t.db.execute(sql`UPDATE findings SET status = 'RESOLVED', resolved_at = now() WHERE id = ${f1}`);
    await t.db.execute(sql`UPDATE findings SET status = 'OPEN' WHERE id = ${f3}`);
    await t.db.execute(sql`UPDATE findings SET severity = 'CRITICAL', severity_rank = 4 WHERE id = ${f2}`);
    expect(await summaryOf(t.db, a)).toEqual({ score: null, c: 1, h: 0, m: 1, l: 0 });
    await t.db.execute(sql`UPDATE findings SET status = 'ACCEPTED' WHERE id = ${f2}`);
    expect(await summaryOf(t.db, a)).toEqual({ score: null, c: 0, h: 0, m: 1, l: 0 });
    const before = await queryRows<{ xmin: string }>(
      t.db,
      sql`SELECT xmin::text FROM org_posture_summary WHERE org_id = ${a}`,
    );
    await t.db.execute(sql`UPDATE findings SET title = 'Renamed', details = '{"x":1}' WHERE org_id = ${a}`);
    const after = await queryRows<{ xmin: string }>(
      t.db,
      sql`SELECT xmin::text FROM org_posture_summary WHERE org_id = ${a}`,
    );
    expect(after).toEqual(before);
    expect(await postureSummaryMismatches(t.db)).toEqual([]);
  });

  it("keeps org_finding_counts per category and severity through inserts, moves and deletes", async () => {
    const a = await newOrg(t.db);
    const ca = await newConnector(t.db, a);
    const [f1, f2] = await addFindings(t.db, a, ca, [{ rank: 4 }, { rank: 4 }, { rank: 2 }]);
    const countsOf = () =>
      queryRows<{ category: string; severity: string; open: number }>(
        t.db,
        sql`SELECT category, severity, open FROM org_finding_counts WHERE org_id = ${a} AND open <> 0
            ORDER BY category, severity`,
      );
    expect(await countsOf()).toEqual([
      { category: "public_exposure", severity: "CRITICAL", open: 2 },
      { category: "public_exposure", severity: "MEDIUM", open: 1 },
    ]);
    await t.db.execute(sql`UPDATE findings SET category = 'external_sharing' WHERE id = ${f1}`);
    await t.db.execute(sql`UPDATE findings SET status = 'RESOLVED' WHERE id = ${f2}`);
    expect(await countsOf()).toEqual([
      { category: "external_sharing", severity: "CRITICAL", open: 1 },
      { category: "public_exposure", severity: "MEDIUM", open: 1 },
    ]);
    await t.db.execute(sql`DELETE FROM findings WHERE id = ${f1}`);
    expect(await countsOf()).toEqual([{ category: "public_exposure", severity: "MEDIUM", open: 1 }]);
    expect(await postureSummaryMismatches(t.db)).toEqual([]);
  });

  it("follows deletes: single findings, a connector's findings, a whole organization", async () => {
    const a = await newOrg(t.db);
    const c1 = await newConnector(t.db, a);
    const c2 = await newConnector(t.db, a);
    const [f1] = await addFindings(t.db, a, c1, [{ rank: 4 }, { rank: 1 }]);
    await addFindings(t.db, a, c2, [{ rank: 4 }, { rank: 3 }, { rank: 3, status: "RESOLVED" }]);
    await addScan(t.db, a, { score: 55, minutesAgo: 5 });
    await t.db.execute(sql`DELETE FROM findings WHERE id = ${f1}`);
    expect(await summaryOf(t.db, a)).toEqual({ score: 55, c: 1, h: 1, m: 0, l: 1 });
    await t.db.execute(sql`DELETE FROM connectors WHERE id = ${c2}`);
    expect(await summaryOf(t.db, a)).toEqual({ score: 55, c: 0, h: 0, m: 0, l: 1 });
    expect(await postureSummaryMismatches(t.db)).toEqual([]);
    await t.db.execute(sql`DELETE FROM organizations WHERE id = ${a}`);
    expect(await summaryOf(t.db, a)).toBeUndefined();
    expect(await postureSummaryMismatches(t.db)).toEqual([]);
  });

  it("keeps the latest completed score through completions, older scans, failures and deletes", async () => {
    const a = await newOrg(t.db);
    const queued = await addScan(t.db, a, { score: null, minutesAgo: 0, status: "RUNNING" });
    expect(await summaryOf(t.db, a)).toBeUndefined();
    const s1 = await addScan(t.db, a, { score: 70, minutesAgo: 60 });
    expect((await summaryOf(t.db, a))?.score).toBe(70);
    await addScan(t.db, a, { score: 20, minutesAgo: 120 }); // older: not the latest
    expect((await summaryOf(t.db, a))?.score).toBe(70);
    await t.db.execute(
      sql`UPDATE scans SET status = 'COMPLETE', posture_score = 90, completed_at = now() WHERE id = ${queued}`,
    );
    expect((await summaryOf(t.db, a))?.score).toBe(90);
    await addScan(t.db, a, { score: 5, minutesAgo: 0, status: "FAILED" });
    expect((await summaryOf(t.db, a))?.score).toBe(90);
    await t.db.execute(sql`DELETE FROM scans WHERE id = ${queued}`);
    expect((await summaryOf(t.db, a))?.score).toBe(70);
    await t.db.execute(sql`UPDATE scans SET posture_score = 71 WHERE id = ${s1}`);
    expect((await summaryOf(t.db, a))?.score).toBe(71);
    await t.db.execute(sql`DELETE FROM scans WHERE org_id = ${a} AND status = 'COMPLETE'`);
    expect((await summaryOf(t.db, a))?.score).toBeNull();
    expect(await postureSummaryMismatches(t.db)).toEqual([]);
  });

  it("is maintained when the restricted application role writes", async () => {
    const a = await newOrg(t.db);
    const ca = await newConnector(t.db, a);
    const c = new pg.Client({ connectionString: t.url });
    await c.connect();
    try {
      await c.query("SET ROLE posture_app");
      await c.query(
        `INSERT INTO findings (id, org_id, connector_id, connector_type, fingerprint, rule_id, category, severity,
          severity_rank, title, resource_id, resource_name, resource_type)
         VALUES ($1, $2, $3, 'google_workspace', $1, 'public_link', 'public_exposure', 'CRITICAL', 4, 'F', 'r', 'r', 'file')`,
        [uid("fnd"), a, ca],
      );
      await c.query(
        `INSERT INTO scans (id, org_id, connector_name, trigger, status, posture_score, completed_at)
         VALUES ($1, $2, 'Drive', 'manual', 'COMPLETE', 64, now())`,
        [uid("scn"), a],
      );
      await c.query("UPDATE findings SET status = 'RESOLVED' WHERE org_id = $1", [a]);
    } finally {
      await c.end();
    }
    expect(await summaryOf(t.db, a)).toEqual({ score: 64, c: 0, h: 0, m: 0, l: 0 });
  });

  it("two scans completing together: the newer score stays, whichever commits last", async () => {
    const a = await newOrg(t.db);
    await addScan(t.db, a, { score: 50, minutesAgo: 600 });
    const one = new pg.Client({ connectionString: t.url });
    const two = new pg.Client({ connectionString: t.url });
    await Promise.all([one.connect(), two.connect()]);
    try {
      await one.query("BEGIN");
      await one.query(
        `INSERT INTO scans (id, org_id, connector_name, trigger, status, posture_score, completed_at)
         VALUES ($1, $2, 'Drive', 'manual', 'COMPLETE', 91, now())`,
        [uid("scn"), a],
      );
      await two.query("BEGIN");
      // Older than `one`'s scan, committed after it: must not overwrite the newer score.
      const pending = two.query(
        `INSERT INTO scans (id, org_id, connector_name, trigger, status, posture_score, completed_at)
         VALUES ($1, $2, 'Drive', 'manual', 'COMPLETE', 33, now() - interval '1 hour')`,
        [uid("scn"), a],
      );
      await new Promise((r) => setTimeout(r, 200));
      await one.query("COMMIT");
      await pending;
      await two.query("COMMIT");
    } finally {
      await Promise.all([one.end(), two.end()]);
    }
    expect((await summaryOf(t.db, a))?.score).toBe(91);
    expect(await postureSummaryMismatches(t.db)).toEqual([]);
  });

  it("concurrent finding writers of one organization add up", async () => {
    const a = await newOrg(t.db);
    const ca = await newConnector(t.db, a);
    const handles = Array.from({ length: 4 }, () => createDb({ databaseUrl: t.url, poolSize: 1 }));
    try {
      await Promise.all(
        handles.map((h, i) =>
          h.db.transaction(async (tx) => {
            await addFindings(tx as unknown as Db, a, ca, [
              { rank: 4 },
              { rank: ((i % 4) + 1) as 1 | 2 | 3 | 4 },
            ]);
            await tx.execute(
              sql`UPDATE findings SET status = 'RESOLVED' WHERE org_id = ${a} AND severity_rank = 1`,
            );
          }),
        ),
      );
    } finally {
      await Promise.all(handles.map((h) => h.close()));
    }
    expect(await postureSummaryMismatches(t.db)).toEqual([]);
  });

  it("TRUNCATE empties the counts and scores", async () => {
    const a = await newOrg(t.db);
    const ca = await newConnector(t.db, a);
    await addFindings(t.db, a, ca, [{ rank: 4 }]);
    await addScan(t.db, a, { score: 40, minutesAgo: 1 });
    await t.db.execute(sql`TRUNCATE findings, scans CASCADE`);
    expect(await summaryOf(t.db, a)).toEqual({ score: null, c: 0, h: 0, m: 0, l: 0 });
    expect(await postureSummaryMismatches(t.db)).toEqual([]);
  });
});

describe("migration 0012 backfill", () => {
  const bare = bareTestDatabase("test_backfill");
  beforeAll(() => bare.create());
  afterAll(() => bare.drop());

  it("fills every organization's row from the data already there", async () => {
    // The migrations before 0012, from a copy of the folder with a shortened journal.
    const dir = migrationsUpTo(11);
    const handle = createDb({ databaseUrl: bare.url, poolSize: 2 });
    try {
      const client = new pg.Client({ connectionString: bare.url });
      await client.connect();
      try {
        await migrate(drizzle(client), { migrationsFolder: dir });
      } finally {
        await client.end();
      }
      const db = handle.db;
      const a = await newOrg(db);
      const b = await newOrg(db);
      const empty = await newOrg(db);
      const ca = await newConnector(db, a);
      await addFindings(db, a, ca, [{ rank: 4 }, { rank: 4 }, { rank: 2 }, { rank: 3, status: "RESOLVED" }]);
      await addScan(db, a, { score: 61, minutesAgo: 10 });
      await addScan(db, a, { score: 99, minutesAgo: 20 });
      await addScan(db, b, { score: 77, minutesAgo: 10 });
      await handle.migrate();
      expect(await summaryOf(db, a)).toEqual({ score: 61, c: 2, h: 0, m: 1, l: 0 });
      expect(await summaryOf(db, b)).toEqual({ score: 77, c: 0, h: 0, m: 0, l: 0 });
      expect(await summaryOf(db, empty)).toEqual({ score: null, c: 0, h: 0, m: 0, l: 0 });
      expect(await postureSummaryMismatches(db)).toEqual([]);
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("org_posture_summary on PGlite (the embedded default)", () => {
  let h: DbHandle;
  beforeAll(async () => {
    h = await createEmbeddedDb();
    await h.migrate();
  }, 60_000);
  afterAll(async () => {
    await h.close();
  });

  it("is maintained by the same triggers", async () => {
    const a = await newOrg(h.db);
    const b = await newOrg(h.db);
    const ca = await newConnector(h.db, a);
    const cb = await newConnector(h.db, b);
    const [f1] = await addFindings(h.db, a, ca, [{ rank: 4 }, { rank: 4 }, { rank: 1 }]);
    await addFindings(h.db, b, cb, [{ rank: 3 }]);
    await addScan(h.db, a, { score: 80, minutesAgo: 30 });
    await addScan(h.db, a, { score: 10, minutesAgo: 90 });
    await h.db.execute(sql`UPDATE findings SET status = 'RESOLVED' WHERE id = ${f1}`);
    await h.db.execute(sql`DELETE FROM connectors WHERE id = ${cb}`);
    expect(await summaryOf(h.db, a)).toEqual({ score: 80, c: 1, h: 0, m: 0, l: 1 });
    expect(await summaryOf(h.db, b)).toEqual({ score: null, c: 0, h: 0, m: 0, l: 0 });
    await h.db.execute(sql`DELETE FROM organizations WHERE id = ${a}`);
    expect(await postureSummaryMismatches(h.db)).toEqual([]);
  });
});
